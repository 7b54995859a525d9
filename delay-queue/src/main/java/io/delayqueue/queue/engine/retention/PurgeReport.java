package io.delayqueue.queue.engine.retention;

/**
 * What a pass of journal retention did.
 *
 * @param jobs final jobs deleted from the journal ({@code delay_queue_job} rows)
 * @param logRows their transitions deleted ({@code delay_queue_job_log} rows)
 * @param batches transactions it took, the last one short (or empty)
 */
public record PurgeReport(long jobs, long logRows, int batches) {
    static final PurgeReport NONE = new PurgeReport(0, 0, 0);
}
