package io.delayqueue.config;

import io.delayqueue.queue.engine.WarmUpSettings;
import java.time.Duration;

/** The start-up warm-up: a rehearsal on a private, throw-away world before the service says it is ready. */
public class WarmUpProperties {
    /** Whether the service warms its push, hand-over and pull paths up before it says it is ready. */
    private boolean enabled = WarmUpSettings.DEFAULT_ENABLED;

    /** Longest the warm-up runs; it stops sooner once its rounds are no faster (after eight rounds at least). */
    private Duration maxTime = WarmUpSettings.DEFAULT_MAX_TIME;

    /** Jobs of one warm-up round, all due at once. */
    private int jobsPerRound = WarmUpSettings.DEFAULT_JOBS_PER_ROUND;

    public WarmUpSettings toSettings() {
        return new WarmUpSettings(enabled, maxTime, jobsPerRound);
    }

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Duration getMaxTime() {
        return maxTime;
    }

    public void setMaxTime(Duration maxTime) {
        this.maxTime = maxTime;
    }

    public int getJobsPerRound() {
        return jobsPerRound;
    }

    public void setJobsPerRound(int jobsPerRound) {
        this.jobsPerRound = jobsPerRound;
    }
}
