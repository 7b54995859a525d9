package io.delayqueue.queue.journal;

import io.delayqueue.common.JobStatus;

/**
 * One page of the console's job browser: jobs of one status, of one topic or of all, in one of two orders, strictly
 * after a keyset cursor (never an offset: a page deep in a large table costs what the first one does).
 *
 * @param status the jobs' status
 * @param topic their topic, {@code null} for every topic
 * @param order soonest due first, or newest (latest created) first
 * @param after the last job of the previous page: its due time (soonest first) or its creation time (newest first),
 *     and its id; {@code null} for the first page
 * @param limit the page's size
 */
public record JobQuery(JobStatus status, String topic, Order order, JobCursor after, int limit) {

    /** The order of a page. */
    public enum Order {
        /** By due time, then id, ascending: over the {@code (status, due_at)} index. */
        SOONEST,
        /** By creation time, then id, descending: over the {@code (status, create_time, id)} index. */
        NEWEST
    }
}
