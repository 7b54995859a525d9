package io.delayqueue.client;

import java.util.List;

/**
 * {@code GET /jobs/{id}}: the job, its status, where the service found it and its journaled history.
 *
 * @param tier {@code redis}, or {@code journal} for a far job not loaded yet (or a final job Redis no longer keeps)
 * @param history the journaled transitions, in the order they happened ({@code CREATED} first)
 */
public record JobDetails(Job job, String status, String tier, List<HistoryEntry> history) {
    public JobDetails {
        history = history == null ? List.of() : List.copyOf(history);
    }

    /**
     * One journaled transition.
     *
     * @param event {@code CREATED}, {@code READY}, {@code RESERVED}, {@code FINISHED}, {@code TTR_EXPIRED}, ...
     * @param at epoch milliseconds
     * @param detail why, when the service says (a failed send's error, say)
     */
    public record HistoryEntry(
            String event, String from, String to, long at, String host, String worker, String detail) {}
}
