package io.delayqueue.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.ConcurrentHistogram;

/** Drives load: closed-loop callers for throughput, an open-loop pacer for a steady rate. */
final class LoadDriver {
    private LoadDriver() {}

    /** One call of a closed-loop caller; returns how many jobs it pushed. */
    @FunctionalInterface
    interface Call {
        int run() throws Exception;
    }

    /** Creates the call of one caller thread (each may hold a connection of its own). */
    @FunctionalInterface
    interface CallerFactory {
        Call open(int caller) throws Exception;
    }

    /**
     * {@code callers} threads each call in a loop for {@code preRoll + measure}; jobs of calls that complete
     * within the measured window count, and so does each such call's latency ({@code callP50Ms}, {@code
     * callP99Ms}). The first failed call fails the run.
     */
    static RunResult throughput(int callers, Duration preRoll, Duration measure, CallerFactory factory)
            throws Exception {
        List<Call> calls = new ArrayList<>(callers);
        for (int i = 0; i < callers; i++) {
            calls.add(factory.open(i));
        }
        AtomicLong counted = new AtomicLong();
        AtomicLong callsCounted = new AtomicLong();
        ConcurrentHistogram callMicros = new ConcurrentHistogram(3);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long start = System.nanoTime();
        long measureFrom = start + preRoll.toNanos();
        long measureTo = measureFrom + measure.toNanos();
        List<Thread> threads = new ArrayList<>(callers);
        for (int i = 0; i < callers; i++) {
            Call call = calls.get(i);
            Thread t = new Thread(
                    () -> {
                        try {
                            while (failure.get() == null) {
                                long begun = System.nanoTime();
                                if (begun >= measureTo) {
                                    return;
                                }
                                int jobs = call.run();
                                long ended = System.nanoTime();
                                if (ended >= measureFrom && ended < measureTo) {
                                    counted.addAndGet(jobs);
                                    callsCounted.incrementAndGet();
                                    callMicros.recordValue((ended - begun) / 1_000);
                                }
                            }
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                        }
                    },
                    "bench-caller-" + i);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        awaitAll(threads, preRoll.plus(measure), failure);
        if (failure.get() != null) {
            throw new IllegalStateException("a push failed: " + failure.get(), failure.get());
        }
        double seconds = measure.toNanos() / 1e9;
        return RunResult.of("jobsPerSecond", counted.get() / seconds)
                .and("callP50Ms", callMicros.getValueAtPercentile(50) / 1e3)
                .and("callP99Ms", callMicros.getValueAtPercentile(99) / 1e3)
                .with("callMaxMs", callMicros.getMaxValue() / 1e3)
                .with("jobs", counted.get())
                .with("calls", callsCounted.get())
                .with("seconds", seconds)
                .with("callers", callers);
    }

    /**
     * Waits for {@code threads} (started for a run of {@code run}); one still alive 60 s after the run is reported
     * in {@code failure} as hung.
     */
    static void awaitAll(List<Thread> threads, Duration run, AtomicReference<Throwable> failure)
            throws InterruptedException {
        for (Thread t : threads) {
            t.join(run.plusSeconds(60).toMillis());
            if (t.isAlive()) {
                failure.compareAndSet(null, new IllegalStateException("a caller hung for over 60 s after the run"));
            }
        }
    }

    /** One job of the steady load; returns normally once it was pushed. */
    @FunctionalInterface
    interface PacedPush {
        void push(long sequence) throws Exception;
    }

    /**
     * Pushes {@code rate} jobs per second for {@code duration} (open loop: a pacer hands each job to a pool of
     * {@code workers} at its scheduled time, so slow pushes do not slow the schedule down).
     *
     * @return jobs pushed, failed, and the rate achieved
     */
    static Map<String, Number> paced(int rate, Duration duration, int workers, PacedPush push)
            throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(workers, r -> {
            Thread t = new Thread(r, "bench-paced-push");
            t.setDaemon(true);
            return t;
        });
        AtomicLong pushed = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicReference<Throwable> firstFailure = new AtomicReference<>();
        long total = (long) rate * duration.toSeconds();
        long start = System.nanoTime();
        long issued = 0;
        try {
            while (issued < total) {
                long due = (long) ((System.nanoTime() - start) / 1e9 * rate) + 1;
                for (; issued < Math.min(due, total); issued++) {
                    long seq = issued;
                    pool.execute(() -> {
                        try {
                            push.push(seq);
                            pushed.incrementAndGet();
                        } catch (Throwable e) {
                            failed.incrementAndGet();
                            firstFailure.compareAndSet(null, e);
                        }
                    });
                }
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(250));
            }
        } finally {
            pool.shutdown();
            if (!pool.awaitTermination(60, TimeUnit.SECONDS)) {
                pool.shutdownNow();
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        if (firstFailure.get() != null && failed.get() * 100 > total) {
            throw new IllegalStateException(
                    failed.get() + " of " + total + " pushes failed: " + firstFailure.get(), firstFailure.get());
        }
        return Map.of("pushed", pushed.get(), "failed", failed.get(), "achievedRate", pushed.get() / seconds);
    }
}
