package io.delayqueue.queue.store;

/**
 * The hot-path store of pending jobs: a job pool plus, per shard, a delay bucket, ready lists and dead
 * lists. Every method is one atomic state transition in the store (a Lua script for Redis); callers never
 * read-modify-write job state.
 *
 * <p>All times are epoch milliseconds from the engine's clock, passed in, so a store never reads a clock
 * of its own. Methods throw {@link io.delayqueue.common.DelayQueueException.Unavailable} when the store
 * cannot be reached.
 *
 * <p>Its calls are grouped by role, and each part of the engine holds only the role it uses, so a reader sees
 * which calls a path makes: {@link PushStore} (the push path), {@link HandOverStore} (moving due jobs, pull
 * reservations, acknowledgements, retries), {@link DeleteStore} (deletes and {@code clearAll}), {@link TierStore}
 * (far jobs loaded from the journal), {@link FailoverStore} (a new Redis master made to agree with the journal),
 * {@link DeadLetterStore} and {@link StoreReads} (look-ups and stats).
 */
public interface JobStore
        extends PushStore,
                HandOverStore,
                DeleteStore,
                DeadLetterStore,
                StoreReads,
                TierStore,
                FailoverStore,
                AutoCloseable {

    /** Number of shards; a job's shard is {@link io.delayqueue.common.JobIds#shardOf}. */
    int shards();

    /** Who hears each round trip of the store's state transitions (metrics), from now on. */
    default void setListener(StoreListener listener) {}

    @Override
    void close();
}
