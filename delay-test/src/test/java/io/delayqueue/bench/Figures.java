package io.delayqueue.bench;

import java.time.Duration;
import java.util.Map;
import org.HdrHistogram.Histogram;

/** Turns what a run recorded into its {@link RunResult}, the same way for every system. */
final class Figures {
    /** Longest a burst may take from its due instant to its last hand-over before the run fails. */
    static final Duration BURST_TIMEOUT = Duration.ofMinutes(5);

    private Figures() {}

    /**
     * Waits, once a burst is loaded, until its {@code jobs} jobs due at {@code dueAtMs} were all handed over, at
     * most {@link #BURST_TIMEOUT} past the due instant, and gives the run's figures; {@code verb} says what
     * happened to the jobs in the failure's message ("were handed over").
     */
    static RunResult awaitBurst(
            HandOvers handOvers, int jobs, long dueAtMs, double loadSeconds, long leadMs, String verb)
            throws InterruptedException {
        long loadedAt = System.currentTimeMillis();
        long doneAtMicros = handOvers.await(
                jobs, Duration.ofMillis(Math.max(0, dueAtMs - loadedAt)).plus(BURST_TIMEOUT));
        if (doneAtMicros < 0) {
            throw burstTimedOut(handOvers.count(), jobs, verb);
        }
        return burst(jobs, dueAtMs, doneAtMicros, handOvers.firstAtMicros(), loadSeconds, loadedAt, leadMs);
    }

    /** The failure of a burst that did not finish within {@link #BURST_TIMEOUT}, with the rate it reached. */
    private static IllegalStateException burstTimedOut(long handedOver, int jobs, String verb) {
        long seconds = BURST_TIMEOUT.toSeconds();
        return new IllegalStateException("only " + handedOver + " of " + jobs + " jobs " + verb + " within " + seconds
                + " s of their due time (" + BenchReport.number((double) handedOver / seconds, 0) + " jobs/s)");
    }

    /**
     * A burst: {@code jobs} jobs due at {@code dueAtMs}, the last handed over at {@code lastAtMicros}. The rate is
     * jobs over the time from the due instant to the last hand-over.
     */
    private static RunResult burst(
            int jobs,
            long dueAtMs,
            long lastAtMicros,
            long firstAtMicros,
            double loadSeconds,
            long loadedAtMs,
            long leadMs) {
        double seconds = (lastAtMicros - dueAtMs * 1_000L) / 1e6;
        return RunResult.of("jobsPerSecond", jobs / seconds)
                .with("jobs", jobs)
                .with("secondsFromDueToLast", seconds)
                .with("firstHandOverAfterDueMs", (firstAtMicros - dueAtMs * 1_000L) / 1e3)
                .with("loadSeconds", loadSeconds)
                .with("leadMs", leadMs)
                .with("loadedBeforeDueMs", dueAtMs - loadedAtMs)
                .with("overran", loadedAtMs > dueAtMs);
    }

    /** Lateness percentiles in milliseconds from a histogram in microseconds. */
    static RunResult lateness(Histogram micros, long early, Map<String, Number> load) {
        return RunResult.of("p50Ms", micros.getValueAtPercentile(50) / 1e3)
                .and("p99Ms", micros.getValueAtPercentile(99) / 1e3)
                .and("maxMs", micros.getMaxValue() / 1e3)
                .with("p999Ms", micros.getValueAtPercentile(99.9) / 1e3)
                .with("meanMs", micros.getMean() / 1e3)
                .with("handedOver", micros.getTotalCount())
                .with("handedOverBeforeDue", early)
                .with("pushed", load.get("pushed"))
                .with("pushesFailed", load.get("failed"))
                .with("achievedRate", load.get("achievedRate"));
    }
}
