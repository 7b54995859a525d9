package io.delayqueue.queue.engine.handover;

import io.delayqueue.queue.engine.handover.DispatchLanes.Waiter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Bounds how long a job waits in {@link DispatchLanes} for a slot of its topic ({@link DispatchSettings#laneWait()}):
 * a topic whose sends settle hands its waiting jobs on long before that; one whose receiver stalled would hold them
 * until their reservations expire. One timer, armed for the oldest waiting job only while some job waits (no fixed
 * tick), takes the jobs that waited too long out of their lanes and hands them to {@code putBack}.
 *
 * <p>Threading: {@link #armed} and {@link #expiredBefore} on any thread; {@code putBack} runs on the {@code
 * delay-lane-waits} thread.
 */
final class LaneWaitTimer implements AutoCloseable {
    private final DispatchLanes lanes;
    private final long laneWaitNanos;
    private final Consumer<List<Waiter>> putBack;
    private final ScheduledExecutorService timer;
    private final AtomicBoolean scheduled = new AtomicBoolean();

    LaneWaitTimer(DispatchLanes lanes, Duration laneWait, Consumer<List<Waiter>> putBack) {
        this.lanes = lanes;
        this.laneWaitNanos = laneWait.toNanos();
        this.putBack = putBack;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "delay-lane-waits");
            t.setDaemon(true);
            return t;
        });
    }

    /** Jobs that began to wait before this ({@link System#nanoTime()}) waited too long. */
    long expiredBefore() {
        return System.nanoTime() - laneWaitNanos;
    }

    /** A job began to wait: makes sure the timer will look once it has waited too long. */
    void armed() {
        schedule(laneWaitNanos);
    }

    private void schedule(long inNanos) {
        if (scheduled.compareAndSet(false, true)) {
            try {
                timer.schedule(this::expire, Math.max(1, inNanos), TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException closed) {
                scheduled.set(false);
            }
        }
    }

    private void expire() {
        scheduled.set(false);
        try {
            putBack.accept(lanes.expire(expiredBefore()));
        } finally {
            lanes.oldestWaiter().ifPresent(oldest -> schedule(oldest + laneWaitNanos - System.nanoTime()));
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
