package io.delayqueue.common;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Objects;

/**
 * A job as the engine keeps it. Immutable; state changes produce a new instance.
 *
 * @param id unique id, generated (14 characters of {@code [0-9a-z]}) or the client's; its shard follows from it
 *     (see {@link JobIds})
 * @param topic routing topic, {@code [A-Za-z0-9._-]{1,64}}
 * @param subtopic optional sub-topic (a RocketMQ tag, for instance)
 * @param bizKey optional business key (an order number, for instance)
 * @param body the payload handed over at the due time
 * @param executeAt the current due time in epoch milliseconds (moves on when a retry is scheduled)
 * @param ttr time-to-run in milliseconds: how long a pull consumer may hold the job before it comes back
 * @param maxAttempts deliveries allowed before the job is {@link JobStatus#DEAD}
 * @param url callback address for the HTTP dispatcher
 * @param priority informational priority, higher first where a dispatcher honours it
 * @param createTime when the job was accepted, epoch milliseconds
 * @param status current state
 * @param attempts failed deliveries so far (expired reservations and failed sends)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Job(
        String id,
        String topic,
        String subtopic,
        String bizKey,
        String body,
        long executeAt,
        long ttr,
        int maxAttempts,
        String url,
        int priority,
        long createTime,
        JobStatus status,
        int attempts) {

    public Job {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(body, "body");
        Objects.requireNonNull(status, "status");
    }

    public Job withState(JobStatus newStatus, int newAttempts, long newExecuteAt) {
        return new Job(
                id,
                topic,
                subtopic,
                bizKey,
                body,
                newExecuteAt,
                ttr,
                maxAttempts,
                url,
                priority,
                createTime,
                newStatus,
                newAttempts);
    }

    /** This job under another id (a generated one, given once the whole push is valid). */
    public Job withId(String newId) {
        return new Job(
                newId,
                topic,
                subtopic,
                bizKey,
                body,
                executeAt,
                ttr,
                maxAttempts,
                url,
                priority,
                createTime,
                status,
                attempts);
    }
}
