package io.delayqueue.config;

import io.delayqueue.queue.engine.push.LimitSettings;
import java.time.Duration;
import org.springframework.util.unit.DataSize;

/** Limits on what clients may push. */
public class LimitsProperties {
    /** Largest {@code body} of a job, in UTF-8 bytes. */
    private DataSize maxBodySize = DataSize.ofBytes(LimitSettings.DEFAULT_MAX_BODY_BYTES);

    /** Longest {@code delay} (and furthest {@code executeAt}) a job may have. */
    private Duration maxDelay = LimitSettings.DEFAULT_MAX_DELAY;

    /** Most jobs in one {@code POST /push/batch}. */
    private int maxBatchSize = LimitSettings.DEFAULT_MAX_BATCH_SIZE;

    /** The limits; a body size beyond {@code int} is capped instead of overflowing. */
    public LimitSettings toSettings() {
        return new LimitSettings((int) Math.min(Integer.MAX_VALUE, maxBodySize.toBytes()), maxDelay, maxBatchSize);
    }

    public DataSize getMaxBodySize() {
        return maxBodySize;
    }

    public void setMaxBodySize(DataSize maxBodySize) {
        this.maxBodySize = maxBodySize;
    }

    public Duration getMaxDelay() {
        return maxDelay;
    }

    public void setMaxDelay(Duration maxDelay) {
        this.maxDelay = maxDelay;
    }

    public int getMaxBatchSize() {
        return maxBatchSize;
    }

    public void setMaxBatchSize(int maxBatchSize) {
        this.maxBatchSize = maxBatchSize;
    }
}
