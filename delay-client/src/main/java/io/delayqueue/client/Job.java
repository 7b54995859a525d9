package io.delayqueue.client;

/**
 * A job as the service answers it (a reservation of {@code GET /get/{topic}}, or {@code GET /jobs/{id}}'s job).
 *
 * @param executeAt the current due time, epoch milliseconds (a reservation's: when it was due)
 * @param ttr milliseconds a pull consumer may hold the job before it comes back
 * @param createTime when the service accepted the job, epoch milliseconds
 * @param status {@code DELAY}, {@code READY}, {@code RESERVED}, {@code FINISHED}, {@code DELETED} or {@code DEAD}
 * @param attempts failed deliveries so far; a reservation's is what its finish names
 */
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
        String status,
        int attempts) {}
