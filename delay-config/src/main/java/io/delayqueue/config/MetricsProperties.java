package io.delayqueue.config;

import java.time.Duration;

/** The metrics at /actuator/prometheus. */
public class MetricsProperties {
    /** Topics that get a label of their own in the metrics; later ones share the label {@code _other}. */
    private int maxTopics = 100;

    /**
     * How often the web console's charts take a sample of the meters; the last {@code 360} samples are kept (an
     * hour at the default).
     */
    private Duration consoleSampleInterval = Duration.ofSeconds(10);

    public Duration getConsoleSampleInterval() {
        return consoleSampleInterval;
    }

    public void setConsoleSampleInterval(Duration consoleSampleInterval) {
        if (consoleSampleInterval == null || consoleSampleInterval.toMillis() < 100) {
            throw new IllegalArgumentException("delay.metrics.console-sample-interval must be at least 100ms");
        }
        this.consoleSampleInterval = consoleSampleInterval;
    }

    public int getMaxTopics() {
        return maxTopics;
    }

    public void setMaxTopics(int maxTopics) {
        if (maxTopics < 1) {
            throw new IllegalArgumentException("delay.metrics.max-topics must be at least 1");
        }
        this.maxTopics = maxTopics;
    }
}
