package io.delayqueue.config;

import io.delayqueue.queue.engine.handover.RetrySettings;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Failed sends. */
public class RetryProperties {
    /** Deliveries a job gets before it is DEAD, when its push gave no {@code maxAttempts}. */
    private int maxAttempts = RetrySettings.DEFAULT_MAX_ATTEMPTS;

    /** Waits after the 1st, 2nd, ... failed send; the last repeats. */
    private List<Duration> backoff = RetrySettings.DEFAULT_BACKOFF;

    /**
     * Ladder and max attempts per topic, e.g. {@code delay.retry.topics.order.backoff=1s,10s}; a topic
     * with dots in brackets: {@code delay.retry.topics[order.paid].max-attempts=3}.
     */
    private Map<String, TopicRetry> topics = new LinkedHashMap<>();

    /** The retry settings; throws {@link IllegalArgumentException} naming a value they cannot work with. */
    public RetrySettings toSettings() {
        Map<String, RetrySettings.TopicRetry> topicRetries = new LinkedHashMap<>();
        topics.forEach((topic, t) -> topicRetries.put(topic, new RetrySettings.TopicRetry(t.backoff, t.maxAttempts)));
        return new RetrySettings(maxAttempts, backoff, topicRetries);
    }

    public int getMaxAttempts() {
        return maxAttempts;
    }

    public void setMaxAttempts(int maxAttempts) {
        this.maxAttempts = maxAttempts;
    }

    public List<Duration> getBackoff() {
        return backoff;
    }

    public void setBackoff(List<Duration> backoff) {
        this.backoff = backoff;
    }

    public Map<String, TopicRetry> getTopics() {
        return topics;
    }

    public void setTopics(Map<String, TopicRetry> topics) {
        this.topics = topics;
    }

    /** Retry settings of one topic; what is left unset comes from {@code delay.retry.*}. */
    public static class TopicRetry {
        /** The topic's backoff ladder. */
        private List<Duration> backoff;

        /** Deliveries a job of the topic gets before it is DEAD, when its push gave no {@code maxAttempts}. */
        private Integer maxAttempts;

        public List<Duration> getBackoff() {
            return backoff;
        }

        public void setBackoff(List<Duration> backoff) {
            this.backoff = backoff;
        }

        public Integer getMaxAttempts() {
            return maxAttempts;
        }

        public void setMaxAttempts(Integer maxAttempts) {
            this.maxAttempts = maxAttempts;
        }
    }
}
