package io.delayqueue.queue.journal;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The durable record of jobs and their transitions, from which the queue is restored after Redis is lost.
 *
 * <p>Contract (DESIGN.md, "journal contract"): in {@link JournalMode#SYNC} mode {@link #recordCreated} and
 * {@link #recordTransitionsDurably} return only once their rows are committed, and throw {@link
 * io.delayqueue.common.DelayQueueException.Unavailable} when they cannot be, so that nothing is accepted
 * that is not durable. {@link #recordTransitions} is written in batches within a bounded lag and flushed on
 * {@link #close()}. Concurrent callers share commits (group commit).
 */
public interface Journal extends AutoCloseable {

    /** No journal ({@code delay.journal.mode=off}): nothing survives the loss of Redis. */
    Journal NONE = new EmptyJournal() {
        @Override
        public JournalMode mode() {
            return JournalMode.OFF;
        }
    };

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

    /** Records transitions within the journal's lag. */
    void recordTransitions(List<Transition> transitions);

    /** Records transitions and, in sync mode, returns only once they are committed. */
    void recordTransitionsDurably(List<Transition> transitions);

    /** The job as last journaled. */
    Optional<Job> find(String id);

    /**
     * The jobs of {@code ids} as last journaled, by id (ids the journal does not hold are absent): one read for
     * many, as the push path needs when a round re-pushes known client ids. The default asks {@link #find} once
     * per id; a journal on a database reads them in a few statements.
     */
    default Map<String, Job> findAll(Collection<String> ids) {
        Map<String, Job> found = new HashMap<>();
        for (String id : ids) {
            find(id).ifPresent(job -> found.put(id, job));
        }
        return found;
    }

    /** The job's transitions, oldest first. */
    List<JournalEntry> history(String id);

    /**
     * Jobs in {@code status} due before {@code dueBefore}, ordered by (due time, id), strictly after {@code
     * after}: one page of a keyset walk over the {@code (status, due_at)} index.
     */
    List<Job> page(JobStatus status, JobCursor after, long dueBefore, int limit);

    /** One page of the console's job browser (see {@link JobQuery}); a journal that keeps nothing has none. */
    default List<Job> browse(JobQuery query) {
        return List.of();
    }

    /**
     * The last error of each of {@code ids} that has one, by id: the detail of its latest failed send, expired
     * reservation or deferral, else of its death ({@code max attempts reached}). One read for a page of jobs.
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

    /**
     * Deletes up to {@code limit} jobs in a final state that stays final ({@code FINISHED}, {@code DELETED}) last
     * updated before {@code updatedBefore}, and their log rows, in one short transaction: a batch of journal
     * retention. {@code DEAD} jobs are never purged (they wait for an operator's requeue). A job that changed after
     * it was selected is left alone; a concurrent purge of the same rows deletes nothing twice.
     *
     * @return rows selected and deleted; fewer selected than {@code limit} means no more were due
     */
    default PurgedRows purgeFinished(long updatedBefore, int limit) {
        return PurgedRows.NONE;
    }

    /**
     * The {@code DELAY} jobs of one shard due at or before {@code dueAtMost}, ordered by (due time, id), strictly
     * after {@code after}: one page of the tier loader's keyset walk over the {@code (shard, status, due_at, id)}
     * index. Reads only rows committed when the query began.
     */
    List<Job> delayedOfShard(int shard, JobCursor after, long dueAtMost, int limit);

    /**
     * How many jobs are {@code DELAY} with a due time after {@code dueAfter}: the journal tier's size when
     * {@code dueAfter} is the horizon. A range count over the {@code (status, due_at)} index, which takes time
     * on a large table: callers cache it, off any request path.
     */
    long countDelayedDueAfter(long dueAfter);

    /**
     * Fills in the shard of up to {@code limit} rows written before the journal recorded shards (a bounded
     * batch; rows of other writers meanwhile are left as they are); idempotent.
     *
     * @return rows that lacked a shard when the batch was read (fewer than {@code limit}: none left)
     */
    default int assignMissingShards(int limit) {
        return 0;
    }

    JournalMode mode();

    /** Who hears each commit (metrics), from now on; a journal that commits nothing ignores it. */
    default void setListener(JournalListener listener) {}

    /** Rows handed to the journal and not committed yet (nor given up by their callers). */
    default long queuedRows() {
        return 0;
    }

    /**
     * Throws {@link io.delayqueue.common.DelayQueueException.Unavailable} (503) while the journal's backlog is full
     * (the database too slow or down), so that a caller about to change Redis and then journal the transition (a
     * consumer's reserve or finish) is refused before it changes anything.
     */
    default void requireRoom() {}

    /**
     * Rows of lagged transitions not journaled because the backlog was full (the database away), since start: Redis
     * kept their jobs' state, and the reconciler writes final states back to the journal.
     */
    default long droppedRows() {
        return 0;
    }

    /**
     * The service begins to stop (before its HTTP server and engine stop): from now on the journal has a bounded time
     * to write what it holds, and {@link #close()} returns by then whatever the database does.
     */
    default void startClosing() {}

    /**
     * How far behind the journal is, in milliseconds of its clock: the age of the oldest entry (a push's rows or
     * a batch of transitions) handed to the journal and not committed yet, 0 when every entry is committed.
     */
    default long lagMillis() {
        return 0;
    }

    @Override
    default void close() {}
}
