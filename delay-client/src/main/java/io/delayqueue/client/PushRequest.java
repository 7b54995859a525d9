package io.delayqueue.client;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A job to push, as {@code POST /push} takes it: {@code topic} and {@code body} are required, the rest optional
 * (the service's defaults apply). Give {@code delay} or {@code executeAt}, not both; neither means due now.
 *
 * <p>Without an {@code id}, the client gives the job one of its own before the first call (see {@link
 * DelayQueueClient.Builder#idSupplier}), so that a retry can never make a second job.
 *
 * @param id the job's id, {@code [A-Za-z0-9._:-]{1,128}}; pushing the same job under it again is one job
 * @param topic {@code [A-Za-z0-9._-]{1,64}}
 * @param body the payload handed over at the due time
 * @param delay milliseconds from the push
 * @param executeAt the due time, epoch milliseconds
 * @param ttr milliseconds a pull consumer may hold the job before it comes back
 * @param maxAttempts deliveries before the job is dead
 * @param url the callback address of the HTTP dispatcher
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PushRequest(
        String id,
        String topic,
        String subtopic,
        String bizKey,
        String body,
        Long delay,
        Long executeAt,
        Long ttr,
        Integer maxAttempts,
        String url,
        Integer priority) {

    public PushRequest {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(body, "body");
        if (delay != null && executeAt != null) {
            throw new IllegalArgumentException("give delay or executeAt, not both");
        }
    }

    /** A job of {@code topic} with {@code body}, due after {@code delay}. */
    public static PushRequest of(String topic, String body, Duration delay) {
        return builder(topic, body).delay(delay).build();
    }

    public static Builder builder(String topic, String body) {
        return new Builder(topic, body);
    }

    /** This job under {@code newId}. */
    public PushRequest withId(String newId) {
        return new PushRequest(newId, topic, subtopic, bizKey, body, delay, executeAt, ttr, maxAttempts, url, priority);
    }

    /** Builds a {@link PushRequest}; every setter but the two required fields is optional. */
    public static final class Builder {
        private String id;
        private final String topic;
        private String subtopic;
        private String bizKey;
        private final String body;
        private Long delay;
        private Long executeAt;
        private Long ttr;
        private Integer maxAttempts;
        private String url;
        private Integer priority;

        private Builder(String topic, String body) {
            this.topic = Objects.requireNonNull(topic, "topic");
            this.body = Objects.requireNonNull(body, "body");
        }

        public Builder id(String id) {
            this.id = id;
            return this;
        }

        public Builder subtopic(String subtopic) {
            this.subtopic = subtopic;
            return this;
        }

        public Builder bizKey(String bizKey) {
            this.bizKey = bizKey;
            return this;
        }

        /** Due {@code delay} after the push (counted by the service, from each call). */
        public Builder delay(Duration delay) {
            this.delay = Transport.millis(delay);
            this.executeAt = null;
            return this;
        }

        /** Due at {@code at} (the same due time on every retry). */
        public Builder executeAt(Instant at) {
            this.executeAt = at.toEpochMilli();
            this.delay = null;
            return this;
        }

        public Builder ttr(Duration ttr) {
            this.ttr = Transport.millis(ttr);
            return this;
        }

        public Builder maxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
            return this;
        }

        public Builder url(String url) {
            this.url = url;
            return this;
        }

        public Builder priority(int priority) {
            this.priority = priority;
            return this;
        }

        public PushRequest build() {
            return new PushRequest(
                    id, topic, subtopic, bizKey, body, delay, executeAt, ttr, maxAttempts, url, priority);
        }
    }
}
