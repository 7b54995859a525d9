package io.delayqueue.queue.journal;

import io.delayqueue.common.Job;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The calls of the push path: new jobs handed over for their commit (group commit shared by concurrent callers), and the rows of re-pushed ids read back. A role of {@link Journal}. */
public interface PushJournal {
    /**
     * Records new jobs (state {@code DELAY}, a {@link JobEvent#CREATED} row each).
     *
     * @return ids among {@code jobs} that the journal already held; their rows are left as they were
     */
    Set<String> recordCreated(List<Job> jobs);

    /**
     * Hands new jobs to the journal as {@link #recordCreated} does, and returns at once: concurrent callers can
     * each hand over their jobs (one entry each, so that rows the database refuses fail only their own caller)
     * and then wait for their answers together.
     */
    default PendingCreate startCreated(List<Job> jobs) {
        try {
            Set<String> existing = recordCreated(jobs);
            return deadlineNanos -> existing;
        } catch (RuntimeException failure) {
            return deadlineNanos -> {
                throw failure;
            };
        }
    }

    /**
     * {@link #startCreated} for several callers at once, one answer per group, in order: each group's outcome is
     * its own (a row the database refuses fails only its group), while they may share one commit.
     */
    default List<PendingCreate> startCreatedGroups(List<List<Job>> groups) {
        List<PendingCreate> pending = new java.util.ArrayList<>(groups.size());
        for (List<Job> group : groups) {
            pending.add(startCreated(group));
        }
        return pending;
    }

    /** How long a sync caller waits for its commit ({@code delay.journal.commit-timeout}). */
    default Duration commitTimeout() {
        return DEFAULT_COMMIT_TIMEOUT;
    }

    Duration DEFAULT_COMMIT_TIMEOUT = Duration.ofSeconds(10);

    /** New jobs handed to the journal, not answered yet. */
    @FunctionalInterface
    interface PendingCreate {
        /**
         * Waits for the journal's answer until {@code deadlineNanos} ({@link System#nanoTime()}).
         *
         * @return ids among the jobs that the journal already held (their rows were left as they were)
         * @throws io.delayqueue.common.DelayQueueException.Unavailable nothing of the jobs was written (503)
         * @throws io.delayqueue.common.DelayQueueException.OutcomeUnknown a commit of them was under way at the
         *     deadline, or broke off while committing: they may or may not be written (504)
         * @throws io.delayqueue.common.DelayQueueException with a 4xx status: the database refuses a row of these
         *     jobs (nothing of them was written; the message names the field)
         */
        Set<String> await(long deadlineNanos);

        /**
         * The async journal's second step, after Redis answered: the jobs of {@code notStored} (ids Redis did not
         * take) are not written, so that a push answered 503 never lands later. Called once, by the pushing caller;
         * the journal holds the new jobs back from its writers until then (up to the commit timeout).
         *
         * @return false when they may be written all the same (the journal's writer took them first): the push's
         *     outcome is then unknown
         */
        default boolean release(Set<String> notStored) {
            return notStored.isEmpty();
        }
    }

    /**
     * The jobs of {@code ids} as last journaled, by id (ids the journal does not hold are absent): one read for
     * many, as the push path needs when a round re-pushes known client ids.
     */
    Map<String, Job> findAll(Collection<String> ids);

    JournalMode mode();
}
