package io.delayqueue.bench;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * Counts the jobs one run hands over (to the benchmark's dispatcher, or taken by Redisson consumers), when the
 * expected number was reached, and optionally each job's lateness: the wall-clock time it was handed over
 * minus its due time, in microseconds. Safe for any number of recording threads.
 */
final class HandOvers {
    private static final Clock WALL = Clock.systemUTC();

    private final AtomicLong count = new AtomicLong();
    private final AtomicLong early = new AtomicLong();
    private final ConcurrentHistogram latenessMicros; // null: lateness not recorded
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition reached = lock.newCondition();
    private volatile long expected = Long.MAX_VALUE;
    private volatile long reachedAtMicros;
    private volatile long firstAtMicros;

    private HandOvers(boolean recordLateness) {
        this.latenessMicros = recordLateness ? new ConcurrentHistogram(3) : null;
    }

    /** Counts hand-overs only. */
    static HandOvers counting() {
        return new HandOvers(false);
    }

    /** Counts hand-overs and records their lateness. */
    static HandOvers recordingLateness() {
        return new HandOvers(true);
    }

    /** Wall-clock time in microseconds since the epoch (the JDK's clock has microsecond precision on Linux). */
    static long nowMicros() {
        Instant now = WALL.instant();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }

    /** One job due at {@code dueMs} (epoch milliseconds) was handed over now. */
    void record(long dueMs) {
        long now = nowMicros();
        if (latenessMicros != null) {
            long late = now - dueMs * 1_000L;
            if (late < 0) {
                early.incrementAndGet();
                late = 0;
            }
            latenessMicros.recordValue(late);
        }
        long n = count.incrementAndGet();
        if (n == 1) {
            firstAtMicros = now;
        }
        if (n == expected) {
            reachedAtMicros = now;
            lock.lock();
            try {
                reached.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    long count() {
        return count.get();
    }

    /** Jobs handed over before their due time (counted as 0 lateness). */
    long early() {
        return early.get();
    }

    /** When the first job was handed over, epoch microseconds (0: none yet). */
    long firstAtMicros() {
        return firstAtMicros;
    }

    /**
     * Waits until {@code jobs} jobs were handed over, at most {@code timeout}.
     *
     * @return when the last of them was handed over, epoch microseconds; -1 on timeout
     */
    long await(long jobs, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        lock.lock();
        try {
            expected = jobs;
            while (reachedAtMicros == 0) {
                if (count.get() >= jobs) {
                    // reached before this wait set the target: the bound is now, at worst later than the truth
                    reachedAtMicros = nowMicros();
                    break;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return -1;
                }
                reached.awaitNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
            }
            return reachedAtMicros;
        } finally {
            lock.unlock();
        }
    }

    /** Sets the number of hand-overs at which {@link #await} is woken, before the jobs are loaded. */
    void expect(long jobs) {
        expected = jobs;
    }

    Histogram lateness() {
        if (latenessMicros == null) {
            throw new IllegalStateException("lateness is not recorded");
        }
        return latenessMicros.copy();
    }
}
