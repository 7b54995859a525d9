package io.delayqueue.queue.journal;

import io.delayqueue.common.JobStatus;

/** One row of a job's history, as {@code GET /jobs/{id}} shows it. */
public record JournalEntry(
        JobEvent event, JobStatus from, JobStatus to, long at, String host, String worker, String detail) {}
