package io.delayqueue.queue.journal;

/**
 * What one purge batch of {@link Journal#purgeFinished} did.
 *
 * @param selected jobs the batch found past the retention; fewer than its limit means no more were due
 * @param jobs rows of {@code delay_queue_job} deleted: fewer than {@code selected} when some changed meanwhile
 * @param logRows rows of {@code delay_queue_job_log} deleted, the history of those jobs
 */
public record PurgedRows(int selected, int jobs, int logRows) {
    public static final PurgedRows NONE = new PurgedRows(0, 0, 0);
}
