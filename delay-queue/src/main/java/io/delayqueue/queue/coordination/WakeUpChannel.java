package io.delayqueue.queue.coordination;

import java.util.Collection;

/**
 * Wake-ups between the instances of one queue. A job pushed on an instance that does not scan its shard
 * must wake the scanner of the instance that does; jobs made ready on one instance must wake consumers
 * long-polling on the others. Wake-ups inside one process do not come through here.
 *
 * <p>A shard's wake-ups need reach only the instance that scans it ({@link Listener#owns}); a channel that
 * can address them so is told by {@link #ownershipChanged} when to look again at which shards that is, and
 * then costs one delivery per wake-up however many instances there are.
 *
 * <p>Messages are hints: one that is lost costs latency, never a job, since an idle scanner looks at its
 * shard at least every {@code delay.scanner.max-sleep} and waiting consumers recheck every
 * {@code delay.pull.recheck}. Publishing never blocks the caller for long and never throws.
 */
public interface WakeUpChannel extends AutoCloseable {

    /** In-process wake-ups only: the single instance of a standalone queue. */
    WakeUpChannel NONE = new WakeUpChannel() {
        @Override
        public void start(Listener listener) {}

        @Override
        public void publishScheduled(int shard, long dueAt) {}

        @Override
        public void publishReady(Collection<String> topics) {}

        @Override
        public void close() {}
    };

    /**
     * The shards the listener {@linkplain Listener#owns owns} may have changed: a channel that delivers a shard's
     * wake-ups only to its owner looks again. Returns at once, never throws.
     */
    default void ownershipChanged() {}

    /** Starts handing the other instances' messages to {@code listener}. */
    void start(Listener listener);

    /** Tells the other instances that {@code shard} now holds a job due at {@code dueAt} (epoch ms). */
    void publishScheduled(int shard, long dueAt);

    /** Tells the other instances that jobs of these pull topics became ready. */
    void publishReady(Collection<String> topics);

    @Override
    void close();

    /** Receives the other instances' messages, on the channel's own thread. */
    interface Listener {
        /** A job due at {@code dueAt} landed in {@code shard}. */
        void scheduled(int shard, long dueAt);

        /** Jobs of the pull topic {@code topic} became ready. */
        void ready(String topic);

        /** Messages may have been missed (the subscription was down): look at everything once. */
        void resynchronize();

        /**
         * Whether this instance scans {@code shard} now: only then does it need the shard's wake-ups. A channel
         * that asks may drop those of other shards before they reach this instance, and must start delivering a
         * shard's (then call {@link #scheduled} with {@link Long#MIN_VALUE}, for what it may have missed) once
         * this answers {@code true}. Called on any thread; cheap.
         */
        default boolean owns(int shard) {
            return true;
        }
    }
}
