package io.delayqueue.config;

/** The metrics at /actuator/prometheus. */
public class MetricsProperties {
    /** Topics that get a label of their own in the metrics; later ones share the label {@code _other}. */
    private int maxTopics = 100;

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
