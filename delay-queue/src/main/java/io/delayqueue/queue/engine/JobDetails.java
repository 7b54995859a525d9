package io.delayqueue.queue.engine;

import io.delayqueue.common.Job;
import io.delayqueue.queue.journal.JournalEntry;
import java.util.List;

/**
 * A job with its status and transition history, for {@code GET /jobs/{id}}.
 *
 * @param tier where the job was found: {@value #REDIS} (the job as Redis holds it), or {@value #JOURNAL} (only
 *     the journal holds it: a far job not loaded yet, which its shard's owner loads ahead of its due time, or a
 *     final job Redis no longer keeps)
 * @param lastError why its latest attempt failed, as the journal has it (the detail of its latest failed send,
 *     expired reservation or deferral, else of its death); null when none did or without a journal
 */
public record JobDetails(Job job, String tier, List<JournalEntry> history, String lastError) {
    public static final String REDIS = "redis";
    public static final String JOURNAL = "journal";
}
