package io.delayqueue.queue.engine.handover;

import static io.delayqueue.queue.SettingChecks.require;
import static io.delayqueue.queue.SettingChecks.requireBetween;
import static io.delayqueue.queue.SettingChecks.requirePositive;

import java.time.Duration;

/**
 * The per-shard timers ({@code delay.scanner.*}). The {@code DEFAULT_*} constants are the one source of the
 * defaults.
 *
 * @param batchSize most due jobs one scan moves in one Redis call
 * @param maxSleep longest a scanner sleeps when its shard holds nothing due sooner
 * @param lead how long before its due time a push-topic job is taken from Redis
 */
public record ScannerSettings(int batchSize, Duration maxSleep, Duration lead) {
    public static final int DEFAULT_BATCH_SIZE = 500;
    public static final Duration DEFAULT_MAX_SLEEP = Duration.ofSeconds(1);
    /**
     * How long before its due time a push-topic job is taken from Redis: the move's round trip is then behind
     * it when it is due, and the scanner hands it over at its due time, never sooner. A delete in that window
     * answers 409 (being delivered).
     */
    public static final Duration DEFAULT_LEAD = Duration.ofMillis(2);

    public static final ScannerSettings DEFAULTS =
            new ScannerSettings(DEFAULT_BATCH_SIZE, DEFAULT_MAX_SLEEP, DEFAULT_LEAD);

    public ScannerSettings {
        requireBetween(batchSize, 1, 10_000, "delay.scanner.batch-size");
        requirePositive(maxSleep, "delay.scanner.max-sleep");
        require(
                lead != null && !lead.isNegative() && lead.compareTo(Duration.ofSeconds(1)) <= 0,
                "delay.scanner.lead must be between 0 and 1 s");
    }

    public ScannerSettings withBatchSize(int v) {
        return new ScannerSettings(v, maxSleep, lead);
    }

    public ScannerSettings withMaxSleep(Duration v) {
        return new ScannerSettings(batchSize, v, lead);
    }

    public ScannerSettings withLead(Duration v) {
        return new ScannerSettings(batchSize, maxSleep, v);
    }
}
