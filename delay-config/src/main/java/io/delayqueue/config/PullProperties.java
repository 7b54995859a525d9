package io.delayqueue.config;

import io.delayqueue.queue.engine.handover.PullSettings;
import java.time.Duration;

/** Pull topics, consumed with {@code GET /get/{topic}}. */
public class PullProperties {
    /** Time-to-run of a reserved job whose push gave no {@code ttr}. */
    private Duration defaultTtr = PullSettings.DEFAULT_TTR;

    /** Longest {@code timeout} a consumer may long-poll for. */
    private Duration maxTimeout = PullSettings.DEFAULT_MAX_TIMEOUT;

    /** How often waiting consumers look for jobs made ready by another instance. */
    private Duration recheck = PullSettings.DEFAULT_RECHECK;

    public PullSettings toSettings() {
        return new PullSettings(defaultTtr, maxTimeout, recheck);
    }

    public Duration getDefaultTtr() {
        return defaultTtr;
    }

    public void setDefaultTtr(Duration defaultTtr) {
        this.defaultTtr = defaultTtr;
    }

    public Duration getMaxTimeout() {
        return maxTimeout;
    }

    public void setMaxTimeout(Duration maxTimeout) {
        this.maxTimeout = maxTimeout;
    }

    public Duration getRecheck() {
        return recheck;
    }

    public void setRecheck(Duration recheck) {
        this.recheck = recheck;
    }
}
