package io.delayqueue.queue.engine.retention;

import io.delayqueue.queue.coordination.Coordinator;
import io.delayqueue.queue.engine.handover.DeadLetters;
import io.delayqueue.queue.store.DeadLetterStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Dead-letter retention ({@code delay.dead.retention}): deletes dead letters whose last delivery was due more than
 * the retention ago, as an operator's delete does ({@link DeadLetters#deleteBefore}: {@code DELETED} committed in the
 * journal, then in Redis), so that neither a restore nor a requeue brings them back. From then on they are final jobs
 * like any deleted one: Redis purges them after {@code delay.retention}, the journal after {@code
 * delay.journal.retention}.
 *
 * <p>Who purges: each shard's owner its own shards, the topics found in the shard's topic set (those with jobs), each
 * topic's dead set read by score (O(log N) plus the jobs deleted). Should two instances overlap during a hand-over,
 * each delete is one script per batch, and a dead letter deleted by one is no dead letter to the other.
 *
 * <p>Threading: passes are serialized ({@code synchronized}), run on the engine's purge timer or by hand.
 */
public final class DeadLetterPurger {
    private static final Logger log = LoggerFactory.getLogger(DeadLetterPurger.class);
    /** The journal's detail of a dead letter deleted by retention. */
    public static final String DETAIL = "dead letter past delay.dead.retention";

    private final DeadLetterStore store;
    private final DeadLetters deadLetters;
    private final Coordinator coordinator;
    private final Clock clock;
    private final Duration retention;

    public DeadLetterPurger(
            DeadLetterStore store, DeadLetters deadLetters, Coordinator coordinator, Clock clock, Duration retention) {
        this.store = store;
        this.deadLetters = deadLetters;
        this.coordinator = coordinator;
        this.clock = clock;
        this.retention = retention;
    }

    /** Whether passes do anything: a retention is set. */
    public boolean enabled() {
        return !retention.isZero();
    }

    /**
     * One pass over the shards this instance owns; stops between topics once {@code keepGoing} turns false. The
     * cutoff is fixed at the start of the pass.
     *
     * @return dead letters deleted
     */
    public synchronized long purgeOnce(BooleanSupplier keepGoing) {
        if (!enabled()) {
            return 0;
        }
        long before = clock.millis() - retention.toMillis();
        long deleted = 0;
        for (int shard = 0; shard < store.shards() && keepGoing.getAsBoolean(); shard++) {
            if (!coordinator.owns(shard)) {
                continue;
            }
            for (String topic : store.topics(shard)) {
                if (!keepGoing.getAsBoolean()) {
                    break;
                }
                long dead = store.countDead(topic, shard);
                if (dead > 0) {
                    deleted += deadLetters.deleteBefore(topic, shard, before, dead, DETAIL);
                }
            }
        }
        if (deleted > 0) {
            log.info(
                    "dead-letter retention: deleted {} dead letters last due before {} ({} ago)",
                    deleted,
                    Instant.ofEpochMilli(before),
                    retention);
        }
        return deleted;
    }
}
