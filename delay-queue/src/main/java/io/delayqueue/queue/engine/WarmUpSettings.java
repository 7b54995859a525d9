package io.delayqueue.queue.engine;

import java.time.Duration;

/**
 * The start-up warm-up ({@code delay.warm-up.*}): before the service says it is ready, a rehearsal of the queue on a
 * private, throw-away world runs its push, hand-over and pull paths until they are warm (their code compiled, their
 * pools filled). The {@code DEFAULT_*} constants are the one source of the defaults.
 *
 * @param enabled whether the service warms up before it says it is ready
 * @param maxTime longest the warm-up runs; it stops sooner once its rounds are no faster (after eight at least)
 * @param jobsPerRound jobs of one round, all due at once: pushed, handed over by callback and by pull, finished
 */
public record WarmUpSettings(boolean enabled, Duration maxTime, int jobsPerRound) {
    public static final boolean DEFAULT_ENABLED = true;
    public static final Duration DEFAULT_MAX_TIME = Duration.ofSeconds(30);
    public static final int DEFAULT_JOBS_PER_ROUND = 5000;

    public static final WarmUpSettings DEFAULTS =
            new WarmUpSettings(DEFAULT_ENABLED, DEFAULT_MAX_TIME, DEFAULT_JOBS_PER_ROUND);

    public WarmUpSettings {
        if (maxTime == null || maxTime.isNegative() || maxTime.isZero()) {
            throw new IllegalArgumentException("delay.warm-up.max-time must be positive");
        }
        if (jobsPerRound < 10 || jobsPerRound > 100_000) {
            throw new IllegalArgumentException("delay.warm-up.jobs-per-round must be between 10 and 100000");
        }
    }
}
