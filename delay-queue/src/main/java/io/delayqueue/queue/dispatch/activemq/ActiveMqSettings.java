package io.delayqueue.queue.dispatch.activemq;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * Settings of the ActiveMQ dispatcher. The {@code DEFAULT_*} constants are the one source of the defaults.
 *
 * @param url broker URL, e.g. {@code tcp://host:61616} (or {@code failover:(...)?timeout=3000}: a failover
 *     transport without {@code timeout} blocks sends while the broker is down)
 * @param user user name, {@code null} for none
 * @param password password, {@code null} for none
 * @param destinationType where jobs of topics not named in {@code destinations} go: a queue or a topic
 *     named as the job's topic
 * @param destinations destination type per job topic
 * @param sendTimeout longest a synchronous send (or a connection attempt) may take
 * @param threads sends running at once (pooled sessions)
 * @param maxPending sends waiting for a thread; more are put back unsent
 */
public record ActiveMqSettings(
        String url,
        String user,
        String password,
        DestinationType destinationType,
        Map<String, DestinationType> destinations,
        Duration sendTimeout,
        int threads,
        int maxPending) {
    public static final DestinationType DEFAULT_DESTINATION_TYPE = DestinationType.QUEUE;
    public static final Duration DEFAULT_SEND_TIMEOUT = Duration.ofSeconds(3);
    public static final int DEFAULT_THREADS = 8;
    public static final int DEFAULT_MAX_PENDING = 2000;

    /** JMS point-to-point or publish-subscribe. */
    public enum DestinationType {
        QUEUE,
        TOPIC;

        /** {@code queue} or {@code topic}, any case. */
        public static DestinationType parse(String value, String setting) {
            try {
                return valueOf(value.trim().toUpperCase(Locale.ROOT));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(setting + " must be queue or topic, not " + value);
            }
        }
    }

    public ActiveMqSettings {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("delay.activemq.url must name the broker, e.g. tcp://host:61616");
        }
        if (destinationType == null) {
            throw new IllegalArgumentException("delay.activemq.destination-type must be queue or topic");
        }
        destinations = Map.copyOf(destinations);
        if (sendTimeout == null || sendTimeout.isNegative() || sendTimeout.isZero()) {
            throw new IllegalArgumentException("delay.activemq.send-timeout must be positive");
        }
        if (threads < 1 || maxPending < 1) {
            throw new IllegalArgumentException("delay.activemq: threads and max-pending must be at least 1");
        }
    }

    public static ActiveMqSettings defaults(String url) {
        return new ActiveMqSettings(
                url,
                null,
                null,
                DEFAULT_DESTINATION_TYPE,
                Map.of(),
                DEFAULT_SEND_TIMEOUT,
                DEFAULT_THREADS,
                DEFAULT_MAX_PENDING);
    }

    public DestinationType destinationTypeOf(String topic) {
        return destinations.getOrDefault(topic, destinationType);
    }
}
