package io.delayqueue.queue.journal;

import io.delayqueue.common.Job;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The durable record of jobs and their transitions, from which the queue is restored after Redis is lost.
 *
 * <p>Contract (DESIGN.md, "journal contract"): in {@link JournalMode#SYNC} mode {@link #recordCreated} and
 * {@link #recordTransitionsDurably} return only once their rows are committed, and throw {@link
 * io.delayqueue.common.DelayQueueException.Unavailable} when they cannot be, so that nothing is accepted
 * that is not durable. {@link #recordTransitions} is written in batches within a bounded lag and flushed on
 * {@link #close()}. Concurrent callers share commits (group commit).
 *
 * <p>Its calls are grouped by role, and each part of the engine that needs only one holds that one: {@link
 * PushJournal} (the push path), {@link TransitionJournal} (hand-over, acknowledgements, retries, dead letters),
 * {@link JournalLookups} (look-ups, keyset pages, the console's browser) and {@link TierJournal} (the tier
 * loader's pages); retention, the backlog's gauges and the lifecycle are here.
 */
public interface Journal extends PushJournal, TransitionJournal, JournalLookups, TierJournal, AutoCloseable {

    /** No journal ({@code delay.journal.mode=off}): nothing survives the loss of Redis. */
    Journal NONE = new EmptyJournal() {
        @Override
        public JournalMode mode() {
            return JournalMode.OFF;
        }
    };

    /**
     * The jobs of {@code ids} as last journaled, by id (ids the journal does not hold are absent): one read for
     * many, as the push path needs when a round re-pushes known client ids. The default asks {@link #find} once
     * per id; a journal on a database reads them in a few statements.
     */
    @Override
    default Map<String, Job> findAll(Collection<String> ids) {
        Map<String, Job> found = new HashMap<>();
        for (String id : ids) {
            find(id).ifPresent(job -> found.put(id, job));
        }
        return found;
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

    @Override
    JournalMode mode();

    /** Who hears each commit (metrics), from now on; a journal that commits nothing ignores it. */
    default void setListener(JournalListener listener) {}

    /**
     * Rows the journal's backlog holds at most before it refuses pushes and drops lagged transitions ({@code
     * delay.journal.queue-capacity}); 0 when it keeps no backlog.
     */
    default long queueCapacityRows() {
        return 0;
    }

    /** Rows handed to the journal and not committed yet (nor given up by their callers). */
    default long queuedRows() {
        return 0;
    }

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

    /**
     * Waits until every entry handed to the journal at or before {@code queuedByMs} (its clock) is settled, written
     * or failed to its caller, or until {@code timeout} has passed; woken by the writers as they settle groups, not
     * on a tick. True when the journal holds nothing that old any more.
     */
    default boolean awaitWritten(long queuedByMs, Duration timeout) throws InterruptedException {
        return true;
    }

    /**
     * Why the journal cannot keep its commits now, while the service runs (the embedded journal's database or log
     * file deleted or replaced under it, an fsync of its log failed), or empty when it can: pushes are refused
     * meanwhile, and the service's health is down.
     */
    default Optional<String> unsound() {
        return Optional.empty();
    }

    @Override
    default void close() {}
}
