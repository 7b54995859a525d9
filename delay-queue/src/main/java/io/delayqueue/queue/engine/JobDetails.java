package io.delayqueue.queue.engine;

import io.delayqueue.common.Job;
import io.delayqueue.queue.journal.JournalEntry;
import java.util.List;

/** A job with its status and transition history, for {@code GET /jobs/{id}}. */
public record JobDetails(Job job, List<JournalEntry> history) {}
