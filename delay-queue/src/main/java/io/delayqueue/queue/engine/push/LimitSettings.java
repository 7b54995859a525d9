package io.delayqueue.queue.engine.push;

import static io.delayqueue.queue.SettingChecks.require;
import static io.delayqueue.queue.SettingChecks.requirePositive;

import java.time.Duration;

/**
 * Limits on what clients may push ({@code delay.limits.*}). The {@code DEFAULT_*} constants are the one source
 * of the defaults.
 *
 * @param maxBodyBytes largest {@code body} of a job, in UTF-8 bytes
 * @param maxDelay longest {@code delay} (and furthest {@code executeAt}) a job may have
 * @param maxBatchSize most jobs in one {@code POST /push/batch}
 */
public record LimitSettings(int maxBodyBytes, Duration maxDelay, int maxBatchSize) {
    public static final int DEFAULT_MAX_BODY_BYTES = 64 * 1024;
    public static final Duration DEFAULT_MAX_DELAY = Duration.ofDays(365);
    public static final int DEFAULT_MAX_BATCH_SIZE = 1000;
    /** The largest body the journal holds (its {@code body} column is a MEDIUMTEXT): a larger limit is capped. */
    public static final int MAX_JOURNAL_BODY_BYTES = 16 * 1024 * 1024 - 1;

    public static final LimitSettings DEFAULTS =
            new LimitSettings(DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_DELAY, DEFAULT_MAX_BATCH_SIZE);

    public LimitSettings {
        require(maxBodyBytes >= 1, "delay.limits.max-body-size must be at least 1 byte");
        requirePositive(maxDelay, "delay.limits.max-delay");
        require(maxBatchSize >= 1, "delay.limits.max-batch-size must be at least 1");
    }

    public LimitSettings withMaxBodyBytes(int v) {
        return new LimitSettings(v, maxDelay, maxBatchSize);
    }

    public LimitSettings withMaxDelay(Duration v) {
        return new LimitSettings(maxBodyBytes, v, maxBatchSize);
    }

    public LimitSettings withMaxBatchSize(int v) {
        return new LimitSettings(maxBodyBytes, maxDelay, v);
    }
}
