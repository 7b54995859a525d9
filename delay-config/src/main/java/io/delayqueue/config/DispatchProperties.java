package io.delayqueue.config;

import io.delayqueue.queue.engine.handover.DispatchSettings;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/** Where due jobs go. */
public class DispatchProperties {
    /**
     * Dispatcher of every topic not named in {@link #topics}: {@code console}, {@code pull}, {@code
     * rocketmq}, {@code activemq} or {@code http}.
     */
    private String defaultDispatcher = DispatchSettings.DEFAULT_DISPATCHER;

    /** Dispatcher per topic, e.g. {@code delay.dispatch.topics.order=rocketmq}. */
    private Map<String, String> topics = new LinkedHashMap<>();

    /** How long a send may take before the job is delivered again. */
    private Duration timeout = DispatchSettings.DEFAULT_TIMEOUT;

    /** Most jobs between their move and a settled send (sent, or waiting for a slot of their topic), over all topics. */
    private int maxInFlight = DispatchSettings.DEFAULT_MAX_IN_FLIGHT;

    /** Most sends of one topic open at once (handed to its dispatcher, not yet confirmed); more wait for a slot. */
    private int maxInFlightPerTopic = DispatchSettings.DEFAULT_MAX_IN_FLIGHT_PER_TOPIC;

    /**
     * How long a graceful stop waits for sends in flight to be confirmed, so that it acknowledges them
     * instead of leaving them to be delivered again after the restart.
     */
    private Duration shutdownWait = DispatchSettings.DEFAULT_SHUTDOWN_WAIT;

    public DispatchSettings toSettings() {
        return new DispatchSettings(defaultDispatcher, topics, timeout, maxInFlight, maxInFlightPerTopic, shutdownWait);
    }

    public String getDefault() {
        return defaultDispatcher;
    }

    public void setDefault(String defaultDispatcher) {
        this.defaultDispatcher = defaultDispatcher;
    }

    public Map<String, String> getTopics() {
        return topics;
    }

    public void setTopics(Map<String, String> topics) {
        this.topics = topics;
    }

    public Duration getTimeout() {
        return timeout;
    }

    public void setTimeout(Duration timeout) {
        this.timeout = timeout;
    }

    public int getMaxInFlight() {
        return maxInFlight;
    }

    public void setMaxInFlight(int maxInFlight) {
        this.maxInFlight = maxInFlight;
    }

    public int getMaxInFlightPerTopic() {
        return maxInFlightPerTopic;
    }

    public void setMaxInFlightPerTopic(int maxInFlightPerTopic) {
        this.maxInFlightPerTopic = maxInFlightPerTopic;
    }

    public Duration getShutdownWait() {
        return shutdownWait;
    }

    public void setShutdownWait(Duration shutdownWait) {
        this.shutdownWait = shutdownWait;
    }
}
