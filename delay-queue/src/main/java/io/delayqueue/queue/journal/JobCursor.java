package io.delayqueue.queue.journal;

/** Keyset position in a page-by-page read of jobs ordered by (due time, id). */
public record JobCursor(long dueAt, String id) {
    /** Before every job. */
    public static final JobCursor START = new JobCursor(Long.MIN_VALUE, "");
}
