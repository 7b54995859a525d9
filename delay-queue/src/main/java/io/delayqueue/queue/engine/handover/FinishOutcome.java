package io.delayqueue.queue.engine.handover;

import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.engine.DelayQueueEngine;

/**
 * What one finish of a batch ({@link DelayQueueEngine#finishAll}) did.
 *
 * @param id the job
 * @param outcome what happened to it
 * @param status the job's status now, when known
 */
public record FinishOutcome(String id, Result outcome, JobStatus status) {
    public enum Result {
        /** The job is {@code FINISHED}: by this call, or already before it (a retried finish). */
        FINISHED,
        /**
         * The attempt named is over (its reservation expired and the job was handed over again): ignored, as a
         * single finish answers 409.
         */
        STALE,
        /** No such job (never pushed, or finished or deleted longer ago than the retention). */
        NOT_FOUND,
        /** The job is not reserved ({@link #status()} says what it is): nothing changed. */
        NOT_RESERVED,
        /**
         * Redis failed on the call of the job's shard: the finish may or may not have been applied. Finishing again
         * (with the same attempt) is safe and says which.
         */
        UNKNOWN
    }
}
