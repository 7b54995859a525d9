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
 * @param replayWindow how far back the journal's transitions are replayed onto a new Redis master before its shards
 *     are scanned (the fail-over protocol): at least the longest a replica may lag behind its master and still be
 *     promoted
 */
public record ScannerSettings(int batchSize, Duration maxSleep, Duration lead, Duration replayWindow) {
    public static final int DEFAULT_BATCH_SIZE = 500;
    public static final Duration DEFAULT_MAX_SLEEP = Duration.ofSeconds(1);
    /**
     * How long before its due time a push-topic job is taken from Redis: the move's round trip is then behind
     * it when it is due, and the scanner hands it over at its due time, never sooner. A delete in that window
     * answers 409 (being delivered).
     */
    public static final Duration DEFAULT_LEAD = Duration.ofMillis(2);

    /**
     * One minute of the journal's transitions is replayed onto a new Redis master: a connected replica lags
     * milliseconds, and Redis refuses writes once its replicas lag over {@code min-replicas-max-lag} (10 s) where
     * that is set. A replica cut off for longer can still be promoted by Sentinel (up to ten times its
     * down-after period): raise the window to that, or rely on the reconciler for such jobs.
     */
    public static final Duration DEFAULT_REPLAY_WINDOW = Duration.ofMinutes(1);

    public static final ScannerSettings DEFAULTS =
            new ScannerSettings(DEFAULT_BATCH_SIZE, DEFAULT_MAX_SLEEP, DEFAULT_LEAD, DEFAULT_REPLAY_WINDOW);

    public ScannerSettings {
        requireBetween(batchSize, 1, 10_000, "delay.scanner.batch-size");
        requirePositive(maxSleep, "delay.scanner.max-sleep");
        require(
                lead != null && !lead.isNegative() && lead.compareTo(Duration.ofSeconds(1)) <= 0,
                "delay.scanner.lead must be between 0 and 1 s");
        requirePositive(replayWindow, "delay.scanner.replay-window");
    }

    public ScannerSettings withBatchSize(int v) {
        return new ScannerSettings(v, maxSleep, lead, replayWindow);
    }

    public ScannerSettings withMaxSleep(Duration v) {
        return new ScannerSettings(batchSize, v, lead, replayWindow);
    }

    public ScannerSettings withLead(Duration v) {
        return new ScannerSettings(batchSize, maxSleep, v, replayWindow);
    }

    public ScannerSettings withReplayWindow(Duration v) {
        return new ScannerSettings(batchSize, maxSleep, lead, v);
    }
}
