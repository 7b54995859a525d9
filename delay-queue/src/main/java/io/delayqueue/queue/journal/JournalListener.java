package io.delayqueue.queue.journal;

/**
 * Hears the journal's commits, for metrics. Called on a journal writer thread right after each commit, before
 * the callers waiting for it are answered: an implementation must be quick and must not throw or block.
 */
public interface JournalListener {
    JournalListener NONE = (nanos, rows) -> {};

    /**
     * One group was written and committed.
     *
     * @param nanos the time from the start of its transaction to the end of its commit (forced to disk where the
     *     database needs it), a retry after a lost deadlock included
     * @param rows the rows the group wrote (job rows and log rows)
     */
    void committed(long nanos, int rows);
}
