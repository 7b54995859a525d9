package io.delayqueue.queue.engine.handover;

import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The timer of one shard. It sleeps until the earliest due time in its bucket (at most {@code maxSleep}),
 * and is woken at once when a push lands a job earlier than that. No fixed tick: an idle shard costs one
 * Redis call per {@code maxSleep}, a busy one moves batches back to back.
 */
final class ShardScanner implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(ShardScanner.class);

    /** One pass over the shard; tells when the next pass is wanted. */
    @FunctionalInterface
    interface Pass {
        /** @return epoch ms of the earliest wanted next pass ({@code <= now} for "at once") */
        long run(int shard);
    }

    private final int shard;
    private final Pass pass;
    private final Clock clock;
    private final long maxSleepMs;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition wake = lock.newCondition();
    private volatile boolean running = true;

    // guarded by lock
    private boolean passing;
    private long pendingEarliest = Long.MAX_VALUE;
    private long plannedWakeAt = Long.MIN_VALUE;

    ShardScanner(int shard, Pass pass, Clock clock, long maxSleepMs) {
        this.shard = shard;
        this.pass = pass;
        this.clock = clock;
        this.maxSleepMs = maxSleepMs;
    }

    /**
     * A job due at {@code dueAt} was added to this shard. If that is earlier than the planned wake-up, the
     * scanner wakes at once. A push that lands while a pass runs is remembered and bounds the next sleep,
     * since the pass may have looked at the bucket before the job arrived.
     */
    void onScheduled(long dueAt) {
        lock.lock();
        try {
            if (passing) {
                pendingEarliest = Math.min(pendingEarliest, dueAt);
            } else if (dueAt < plannedWakeAt) {
                plannedWakeAt = dueAt;
                wake.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Wakes the scanner for an immediate pass (ownership changed, capacity freed). */
    void wakeNow() {
        onScheduled(Long.MIN_VALUE);
    }

    void stop() {
        running = false;
        lock.lock();
        try {
            wake.signal();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void run() {
        long errorBackoff = 0;
        while (running) {
            lock.lock();
            try {
                passing = true;
                pendingEarliest = Long.MAX_VALUE;
            } finally {
                lock.unlock();
            }
            long next;
            try {
                next = pass.run(shard);
                errorBackoff = 0;
            } catch (RuntimeException e) {
                errorBackoff = errorBackoff == 0 ? 50 : Math.min(errorBackoff * 2, maxSleepMs);
                log.warn("scan of shard {} failed, next try in {} ms: {}", shard, errorBackoff, e.toString());
                next = clock.millis() + errorBackoff;
            }
            lock.lock();
            try {
                passing = false;
                plannedWakeAt = Math.min(Math.min(next, pendingEarliest), clock.millis() + maxSleepMs);
                while (running) {
                    // compare before subtracting: plannedWakeAt may be Long.MIN_VALUE ("at once"), and
                    // MIN_VALUE - now overflows to a huge positive wait that no later push could shorten
                    if (plannedWakeAt <= clock.millis()) {
                        break;
                    }
                    // to the start of the wanted millisecond, in nanoseconds: waiting whole milliseconds from
                    // a truncated "now" would wake up to a millisecond late, half a millisecond on average
                    Instant now = clock.instant();
                    long waitNanos = TimeUnit.MILLISECONDS.toNanos(plannedWakeAt - now.toEpochMilli())
                            - now.getNano() % 1_000_000;
                    wake.awaitNanos(Math.max(1, waitNanos));
                }
                plannedWakeAt = Long.MIN_VALUE;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } finally {
                lock.unlock();
            }
        }
    }
}
