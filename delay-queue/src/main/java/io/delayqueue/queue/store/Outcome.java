package io.delayqueue.queue.store;

import io.delayqueue.common.JobStatus;

/**
 * What a state transition did.
 *
 * @param result whether it applied
 * @param status the job's status afterwards ({@code null} when not found)
 */
public record Outcome(Result result, JobStatus status) {
    public enum Result {
        /** The transition was applied. */
        APPLIED,
        /** No such job. */
        NOT_FOUND,
        /** The job's status does not allow the transition; {@link #status()} tells which it has. */
        CONFLICT,
        /**
         * The outcome belongs to an attempt the job has left behind (its reservation expired, or a send of it
         * failed, and the job went on): ignored; {@link #status()} is the job's status now.
         */
        STALE
    }

    public boolean applied() {
        return result == Result.APPLIED;
    }
}
