package io.delayqueue.queue.journal;

import io.delayqueue.common.JobStatus;

/**
 * One state change of one job.
 *
 * @param from status before ({@code null} when unknown to the caller)
 * @param at epoch milliseconds
 * @param attempts the job's attempts afterwards, {@code null} when unchanged (a {@link JobEvent#TTR_EXPIRED}
 *     counts one more attempt by itself)
 * @param dueAt the job's due time afterwards, {@code null} when unchanged
 * @param detail free text: an error message, who restored it
 */
public record Transition(
        String jobId,
        JobEvent event,
        JobStatus from,
        JobStatus to,
        long at,
        Integer attempts,
        Long dueAt,
        String detail) {

    /**
     * The detail of a death that says nothing but that the attempts ran out (the last reservation expired): the
     * job's last error is then the failure before it.
     */
    public static final String MAX_ATTEMPTS_REACHED = "max attempts reached";

    /** A change of status only. */
    public static Transition of(String jobId, JobEvent event, JobStatus from, JobStatus to, long at, String detail) {
        return new Transition(jobId, event, from, to, at, null, null, detail);
    }
}
