package io.delayqueue.queue.engine.handover;

import static io.delayqueue.queue.SettingChecks.requirePositive;

import java.time.Duration;

/**
 * Pull topics, consumed with {@code GET /get/{topic}} ({@code delay.pull.*}). The {@code DEFAULT_*} constants
 * are the one source of the defaults.
 *
 * @param defaultTtr time-to-run of a reserved job whose push gave no {@code ttr}
 * @param maxTimeout longest {@code timeout} a consumer may long-poll for
 * @param recheck how often waiting consumers look for jobs made ready by another instance
 */
public record PullSettings(Duration defaultTtr, Duration maxTimeout, Duration recheck) {
    public static final Duration DEFAULT_TTR = Duration.ofSeconds(30);
    public static final Duration DEFAULT_MAX_TIMEOUT = Duration.ofSeconds(30);
    public static final Duration DEFAULT_RECHECK = Duration.ofMillis(250);

    /** The most jobs one {@code GET /get/{topic}?count=} reserves, and one {@code POST /jobs/finish} finishes. */
    public static final int MAX_COUNT = 1000;

    public static final PullSettings DEFAULTS = new PullSettings(DEFAULT_TTR, DEFAULT_MAX_TIMEOUT, DEFAULT_RECHECK);

    public PullSettings {
        requirePositive(defaultTtr, "delay.pull.default-ttr");
        requirePositive(maxTimeout, "delay.pull.max-timeout");
        requirePositive(recheck, "delay.pull.recheck");
    }

    public PullSettings withDefaultTtr(Duration v) {
        return new PullSettings(v, maxTimeout, recheck);
    }

    public PullSettings withMaxTimeout(Duration v) {
        return new PullSettings(defaultTtr, v, recheck);
    }

    public PullSettings withRecheck(Duration v) {
        return new PullSettings(defaultTtr, maxTimeout, v);
    }
}
