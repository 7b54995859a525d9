package io.delayqueue.queue.engine.push;

import io.delayqueue.common.Job;

/**
 * A push's answer for one job. Failures are not results: they are thrown, carrying the job's id.
 *
 * @param id the job's id
 * @param created {@code false} when a job with this client-supplied id already existed (and was kept)
 * @param scheduled {@code true} when the job is in Redis, or (a far job, due beyond the tier horizon) in the
 *     journal tier, from which its shard's owner loads it ahead of its due time; {@code false} when it is
 *     journaled (durable) but Redis could not take it: the reconciler puts it there once Redis is back (HTTP 202)
 * @param existing when not created: the job the id already named (as journaled, or as Redis or this round holds
 *     it), against which the push is compared ({@link SameJob}); {@code null} when created, or when it could not
 *     be read
 */
public record PushResult(String id, boolean created, boolean scheduled, Job existing) {
    public PushResult(String id, boolean created, boolean scheduled) {
        this(id, created, scheduled, null);
    }

    public PushResult(String id, boolean created) {
        this(id, created, true);
    }
}
