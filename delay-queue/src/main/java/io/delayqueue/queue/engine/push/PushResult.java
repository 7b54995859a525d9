package io.delayqueue.queue.engine.push;

/**
 * A push's answer for one job. Failures are not results: they are thrown, carrying the job's id.
 *
 * @param id the job's id
 * @param created {@code false} when a job with this client-supplied id already existed (and was kept)
 * @param scheduled {@code true} when the job is in Redis, or (a far job, due beyond the tier horizon) in the
 *     journal tier, from which its shard's owner loads it ahead of its due time; {@code false} when it is
 *     journaled (durable) but Redis could not take it: the reconciler puts it there once Redis is back (HTTP 202)
 */
public record PushResult(String id, boolean created, boolean scheduled) {
    public PushResult(String id, boolean created) {
        this(id, created, true);
    }
}
