package io.delayqueue.queue.engine.handover;

import static io.delayqueue.queue.SettingChecks.require;
import static io.delayqueue.queue.SettingChecks.requireNotNegative;
import static io.delayqueue.queue.SettingChecks.requirePositive;

import java.time.Duration;
import java.util.Map;

/**
 * Where due jobs go ({@code delay.dispatch.*}). The {@code DEFAULT_*} constants are the one source of the
 * defaults.
 *
 * @param defaultDispatcher dispatcher of every topic not named in {@code topics}
 * @param topics dispatcher per topic
 * @param timeout how long a send may take before the job is delivered again
 * @param maxInFlight most jobs between their move and a confirmed send (sent, or waiting for a slot of their
 *     topic), over all topics
 * @param maxInFlightPerTopic most sends of one topic open at once (handed to its dispatcher, not yet confirmed);
 *     more of its due jobs wait for a slot
 * @param shutdownWait how long a graceful stop waits for sends in flight to be confirmed
 */
public record DispatchSettings(
        String defaultDispatcher,
        Map<String, String> topics,
        Duration timeout,
        int maxInFlight,
        int maxInFlightPerTopic,
        Duration shutdownWait) {

    /** The console adapter's routing name ({@code ConsoleDispatcher.NAME}; a test checks that they agree). */
    public static final String DEFAULT_DISPATCHER = "console";
    /** The routing name of topics consumed over {@code GET /get/{topic}}. */
    public static final String PULL = "pull";

    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);
    public static final int DEFAULT_MAX_IN_FLIGHT = 20_000;
    public static final int DEFAULT_MAX_IN_FLIGHT_PER_TOPIC = 1000;
    /**
     * How long a graceful stop waits for sends in flight to be confirmed (and acknowledged) before it gives up
     * on them; a send it gave up on is delivered again once its reservation expires.
     */
    public static final Duration DEFAULT_SHUTDOWN_WAIT = Duration.ofSeconds(10);

    public static final DispatchSettings DEFAULTS = new DispatchSettings(
            DEFAULT_DISPATCHER,
            Map.of(),
            DEFAULT_TIMEOUT,
            DEFAULT_MAX_IN_FLIGHT,
            DEFAULT_MAX_IN_FLIGHT_PER_TOPIC,
            DEFAULT_SHUTDOWN_WAIT);

    public DispatchSettings {
        require(
                defaultDispatcher != null && !defaultDispatcher.isBlank(),
                "delay.dispatch.default must name a dispatcher");
        require(topics != null, "delay.dispatch.topics must not be null");
        topics = Map.copyOf(topics);
        requirePositive(timeout, "delay.dispatch.timeout");
        require(maxInFlight >= 1, "delay.dispatch.max-in-flight must be at least 1");
        require(maxInFlightPerTopic >= 1, "delay.dispatch.max-in-flight-per-topic must be at least 1");
        requireNotNegative(shutdownWait, "delay.dispatch.shutdown-wait");
    }

    /**
     * Longest a moved job waits for a slot of its topic before it is put back (its receiver stalled): a quarter of
     * the {@link #timeout}, so that the wait and the send that follows it end well before the job's reservation.
     */
    public Duration laneWait() {
        return timeout.dividedBy(4);
    }

    public DispatchSettings withDefaultDispatcher(String v) {
        return new DispatchSettings(v, topics, timeout, maxInFlight, maxInFlightPerTopic, shutdownWait);
    }

    public DispatchSettings withTopics(Map<String, String> v) {
        return new DispatchSettings(defaultDispatcher, v, timeout, maxInFlight, maxInFlightPerTopic, shutdownWait);
    }

    public DispatchSettings withTimeout(Duration v) {
        return new DispatchSettings(defaultDispatcher, topics, v, maxInFlight, maxInFlightPerTopic, shutdownWait);
    }

    public DispatchSettings withMaxInFlight(int v) {
        return new DispatchSettings(defaultDispatcher, topics, timeout, v, maxInFlightPerTopic, shutdownWait);
    }

    public DispatchSettings withMaxInFlightPerTopic(int v) {
        return new DispatchSettings(defaultDispatcher, topics, timeout, maxInFlight, v, shutdownWait);
    }

    public DispatchSettings withShutdownWait(Duration v) {
        return new DispatchSettings(defaultDispatcher, topics, timeout, maxInFlight, maxInFlightPerTopic, v);
    }
}
