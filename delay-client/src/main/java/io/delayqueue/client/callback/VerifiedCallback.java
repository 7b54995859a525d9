package io.delayqueue.client.callback;

import java.time.Instant;

/**
 * A callback {@link CallbackVerifier} accepted. Every value is covered by the signature: the id and timestamp are
 * signed, the topic and attempt are read from the signed body (the job as JSON) and checked against the
 * {@code X-Delay-Topic} and {@code X-Delay-Attempt} headers.
 *
 * @param id the job's id ({@code webhook-id}, also {@code X-Delay-Job-Id}): the same on each delivery of a job, so
 *     that a receiver can ignore one it has already handled (delivery is at least once)
 * @param timestamp when the service sent this delivery ({@code webhook-timestamp}, whole seconds); each attempt has
 *     its own
 * @param topic the job's topic
 * @param attempt which delivery this is, from 1 ({@code X-Delay-Attempt}: the job's failed deliveries so far plus
 *     one)
 */
public record VerifiedCallback(String id, Instant timestamp, String topic, int attempt) {
    /** The job's id: the same as {@link #id()}. */
    public String jobId() {
        return id;
    }
}
