package io.delayqueue.queue.engine.handover;

import static io.delayqueue.queue.SettingChecks.require;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Failed sends ({@code delay.retry.*}). The {@code DEFAULT_*} constants are the one source of the defaults.
 *
 * @param maxAttempts deliveries a job gets before it is {@code DEAD}, when its push gave no {@code maxAttempts}
 * @param backoff waits after the 1st, 2nd, ... failed send; the last repeats
 * @param topics ladder and max attempts per topic
 */
public record RetrySettings(int maxAttempts, List<Duration> backoff, Map<String, TopicRetry> topics) {
    public static final int DEFAULT_MAX_ATTEMPTS = 10;
    public static final List<Duration> DEFAULT_BACKOFF = List.of(
            Duration.ofSeconds(15),
            Duration.ofMinutes(3),
            Duration.ofMinutes(10),
            Duration.ofMinutes(30),
            Duration.ofMinutes(30),
            Duration.ofHours(1),
            Duration.ofHours(2),
            Duration.ofHours(6),
            Duration.ofHours(15));

    public static final RetrySettings DEFAULTS = new RetrySettings(DEFAULT_MAX_ATTEMPTS, DEFAULT_BACKOFF, Map.of());

    public RetrySettings {
        require(maxAttempts >= 1, "delay.retry.max-attempts must be at least 1");
        requireLadder(backoff, "delay.retry.backoff");
        backoff = List.copyOf(backoff);
        require(topics != null, "delay.retry.topics must not be null");
        topics.forEach((topic, retry) -> {
            String property = "delay.retry.topics" + (topic.contains(".") ? "[" + topic + "]" : "." + topic);
            require(retry != null, property + " must not be empty");
            if (retry.backoff() != null) {
                requireLadder(retry.backoff(), property + ".backoff");
            }
            require(
                    retry.maxAttempts() == null || retry.maxAttempts() >= 1,
                    property + ".max-attempts must be at least 1");
        });
        topics = Map.copyOf(topics);
    }

    /**
     * The retry settings of one topic; a {@code null} part falls back to the default ({@code
     * delay.retry.backoff}, {@code delay.retry.max-attempts}).
     *
     * @param backoff the topic's backoff ladder
     * @param maxAttempts deliveries before a job of the topic is {@code DEAD}, unless its push says otherwise
     */
    public record TopicRetry(List<Duration> backoff, Integer maxAttempts) {
        public TopicRetry {
            backoff = backoff == null ? null : List.copyOf(backoff);
        }
    }

    /** The backoff ladder of {@code topic}: its own, else the default. */
    public List<Duration> backoffOf(String topic) {
        TopicRetry retry = topics.get(topic);
        return retry != null && retry.backoff() != null ? retry.backoff() : backoff;
    }

    /** The max attempts of a job of {@code topic} whose push gave none: the topic's, else the default. */
    public int maxAttemptsOf(String topic) {
        TopicRetry retry = topics.get(topic);
        return retry != null && retry.maxAttempts() != null ? retry.maxAttempts() : maxAttempts;
    }

    public RetrySettings withMaxAttempts(int v) {
        return new RetrySettings(v, backoff, topics);
    }

    public RetrySettings withBackoff(List<Duration> v) {
        return new RetrySettings(maxAttempts, v, topics);
    }

    public RetrySettings withTopics(Map<String, TopicRetry> v) {
        return new RetrySettings(maxAttempts, backoff, v);
    }

    private static void requireLadder(List<Duration> ladder, String property) {
        require(ladder != null && !ladder.isEmpty(), property + " needs at least one step");
        ladder.forEach(d -> require(d != null && !d.isNegative(), property + " steps must not be negative"));
    }
}
