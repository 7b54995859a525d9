package io.delayqueue.queue.journal;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Reads of jobs as journaled: look-ups, history, keyset pages for restore and the reconciler, and the console's browser. A role of {@link Journal}. */
public interface JournalLookups {
    /** The job as last journaled. */
    Optional<Job> find(String id);

    /** The job's transitions, oldest first. */
    List<JournalEntry> history(String id);

    /**
     * Jobs in {@code status} due before {@code dueBefore}, ordered by (due time, id), strictly after {@code
     * after}: one page of a keyset walk over the {@code (status, due_at)} index.
     */
    List<Job> page(JobStatus status, JobCursor after, long dueBefore, int limit);

    /**
     * Jobs in {@code status} whose last transition was journaled at or after {@code since}, ordered by (update time,
     * id), strictly after {@code after} (a cursor of {@link JobChange#cursor()}): one page of the fail-over
     * protocol's replay over the {@code (status, update_time)} index. A journal that keeps nothing has none.
     */
    default List<JobChange> changedSince(JobStatus status, long since, JobCursor after, int limit) {
        return List.of();
    }

    /** One page of the console's job browser (see {@link JobQuery}); a journal that keeps nothing has none. */
    default List<Job> browse(JobQuery query) {
        return List.of();
    }

    /**
     * The last error of each of {@code ids} that has one, by id: the detail of its latest failed send (the last one
     * journaled with its death), expired reservation or deferral, else of its death ({@code max attempts
     * reached}). One read for a page of jobs.
     */
    default Map<String, String> lastErrors(Collection<String> ids) {
        return Map.of();
    }

    /**
     * How many jobs of each topic are {@code DELAY}, {@code READY}, {@code RESERVED} and {@code DEAD}: a grouped
     * count over the jobs not final, which takes time on a large table (callers ask at most every few seconds).
     */
    default List<TopicCount> countByTopic() {
        return List.of();
    }
}
