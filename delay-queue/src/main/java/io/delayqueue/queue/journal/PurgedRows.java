package io.delayqueue.queue.journal;

/**
 * What one purge batch of {@link Journal#purgeFinished} deleted.
 *
 * @param jobs rows of {@code delay_queue_job}
 * @param logRows rows of {@code delay_queue_job_log}, the history of those jobs
 */
public record PurgedRows(int jobs, int logRows) {
    public static final PurgedRows NONE = new PurgedRows(0, 0);
}
