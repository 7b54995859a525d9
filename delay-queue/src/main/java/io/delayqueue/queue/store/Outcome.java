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
        CONFLICT
    }

    public boolean applied() {
        return result == Result.APPLIED;
    }
}
