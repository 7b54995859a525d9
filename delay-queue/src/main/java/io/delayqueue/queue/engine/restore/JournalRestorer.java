package io.delayqueue.queue.engine.restore;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.engine.DelayQueueEngine;
import io.delayqueue.queue.engine.tier.TierLoader;
import io.delayqueue.queue.journal.JobCursor;
import io.delayqueue.queue.journal.JobEvent;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.journal.Transition;
import io.delayqueue.queue.store.JobStore;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts journaled jobs that Redis lost back into Redis. Never wipes anything: each job is added only if its
 * id is absent (the push script's HSETNX), so a restore is idempotent and safe while the queue runs. Reads
 * the journal in keyset pages, never all rows at once.
 *
 * <p>A job the journal last saw {@code READY} or {@code RESERVED} comes back as {@code DELAY} at its due
 * time (already passed, so at once): its consumer may have had it, so this is at-least-once. A {@code DEAD}
 * job comes back to its topic's dead letters.
 *
 * <p>Serves the engine's restores ({@link #restoreUpToHorizon}, {@link #restoreJob}: far jobs of a tiered engine are
 * left to the tier loader), the {@link Reconciler}'s and the fail-over protocol's ({@link #restore(List, String)}). Threading: runs on the
 * caller's thread (a restore's caller, the reconciler's timer); holds no state between calls, so restores may
 * overlap: the push script's HSETNX lets only one of them create a job.
 */
public final class JournalRestorer {
    private static final Logger log = LoggerFactory.getLogger(JournalRestorer.class);
    static final List<JobStatus> RESTORABLE =
            List.of(JobStatus.DELAY, JobStatus.READY, JobStatus.RESERVED, JobStatus.DEAD);

    /** After a wait for the journal that timed out, how long restores go on without waiting ({@link #paceOnJournal}). */
    static final Duration PACING_OFF_AFTER_TIMEOUT = Duration.ofMinutes(1);

    private final Journal journal;
    private final JobStore store;
    private final Clock clock;
    private final int pageSize;
    private final Consumer<Job> onRestored;
    /** {@code null} when every job is kept in Redis. */
    private final TierLoader tierLoader;
    /** Until when ({@link System#nanoTime()}) restores do not wait for the journal: set when a wait timed out. */
    private volatile long pacingOffUntilNanos = System.nanoTime();

    public JournalRestorer(
            Journal journal,
            JobStore store,
            Clock clock,
            int pageSize,
            Consumer<Job> onRestored,
            TierLoader tierLoader) {
        this.journal = journal;
        this.store = store;
        this.clock = clock;
        this.pageSize = pageSize;
        this.onRestored = onRestored;
        this.tierLoader = tierLoader;
    }

    /** {@link DelayQueueEngine#restore(boolean)}; far jobs are left to their shards' tier loaders. */
    public RestoreReport restoreUpToHorizon(boolean expire) {
        requireJournal();
        // far jobs stay in the journal tier: their shards' loaders bring them in ahead of time
        long dueAtMost = tierLoader == null ? Long.MAX_VALUE : tierLoader.farAfter();
        return restoreAll(expire, dueAtMost, "restore (expire=" + expire + ")");
    }

    /** {@link DelayQueueEngine#restoreJob(String)}. */
    public RestoreReport restoreJob(String id) {
        requireJournal();
        Job job = journal.find(id).orElseThrow(() -> new DelayQueueException.JobNotFound(id));
        if (job.status().isFinal() && job.status() != JobStatus.DEAD) {
            throw new DelayQueueException.StateConflict(id, job.status(), "a final job is not restored");
        }
        if (tierLoader != null
                && job.status() == JobStatus.DELAY
                && job.executeAt() > tierLoader.farAfter()
                && store.find(id).isEmpty()) {
            return new RestoreReport(1, 0, 0, 0, 1);
        }
        long restored = restore(List.of(job), "restoreJob");
        return new RestoreReport(1, restored, 1 - restored, 0);
    }

    private void requireJournal() {
        if (journal.mode() == JournalMode.OFF) {
            throw new DelayQueueException(409, "there is no journal to restore from (delay.journal.mode=off)");
        }
    }

    /**
     * Restores every non-final job due at or before {@code dueAtMost} that is missing from Redis; {@code
     * expire=false} skips those already due.
     */
    RestoreReport restoreAll(boolean expire, long dueAtMost, String detail) {
        RestoreReport total = new RestoreReport(0, 0, 0, 0);
        for (JobStatus status : RESTORABLE) {
            JobCursor cursor = JobCursor.START;
            while (true) {
                List<Job> page = journal.page(
                        status, cursor, dueAtMost == Long.MAX_VALUE ? Long.MAX_VALUE : dueAtMost + 1, pageSize);
                if (page.isEmpty()) {
                    break;
                }
                Job last = page.get(page.size() - 1);
                cursor = new JobCursor(last.executeAt(), last.id());
                long now = clock.millis();
                List<Job> wanted = new ArrayList<>(page.size());
                for (Job job : page) {
                    if (expire || job.status() == JobStatus.DEAD || job.executeAt() >= now) {
                        wanted.add(job);
                    }
                }
                long restored = restore(wanted, detail);
                total = total.plus(new RestoreReport(
                        page.size(), restored, wanted.size() - restored, page.size() - wanted.size()));
                if (page.size() < pageSize) {
                    break;
                }
            }
        }
        return total;
    }

    /** Puts {@code jobs} (as the journal has them) back where absent; returns how many were. */
    public long restore(List<Job> jobs, String detail) {
        if (jobs.isEmpty()) {
            return 0;
        }
        List<Job> restorable = jobs.stream().map(JournalRestorer::restorable).toList();
        List<Boolean> created = store.push(restorable);
        long now = clock.millis();
        List<Transition> transitions = new ArrayList<>();
        List<Job> restored = new ArrayList<>();
        for (int i = 0; i < jobs.size(); i++) {
            if (Boolean.TRUE.equals(created.get(i))) { // null: its shard failed, the next pass tries again
                Job before = jobs.get(i);
                Job after = restorable.get(i);
                transitions.add(new Transition(
                        after.id(),
                        JobEvent.RESTORED,
                        before.status(),
                        after.status(),
                        now,
                        after.attempts(),
                        after.executeAt(),
                        detail));
                restored.add(after);
            }
        }
        // journal RESTORED before waking the scanners: a due job woken first is READY or RESERVED (journaled)
        // before its RESTORED, and its history reads out of order
        journal.recordTransitions(transitions);
        restored.forEach(onRestored);
        paceOnJournal();
        return transitions.size();
    }

    /**
     * Keeps a large restore (a million jobs into an emptied Redis, a fail-over replay of a busy minute) within the
     * journal's backlog: once the rows waiting for the database pass a quarter of its capacity, waits until what was
     * handed to it by now is written (at most the commit timeout) before the next page is put back. Without it, the
     * pages' {@code RESTORED} transitions outran the transitions writer and, past the capacity, were dropped (their
     * history lost, a warning per batch); the restore now goes at the journal's pace, and pushes keep their room.
     */
    private void paceOnJournal() {
        long bound = journal.queueCapacityRows() / 4;
        if (bound <= 0 || journal.queuedRows() <= bound || System.nanoTime() - pacingOffUntilNanos < 0) {
            return;
        }
        try {
            if (!journal.awaitWritten(clock.millis(), journal.commitTimeout())) {
                // the database is away or far too slow: a fail-over replay must not wait a commit timeout a page
                // while its shards are not scanned; Redis holds what the dropped transitions would have said
                pacingOffUntilNanos = System.nanoTime() + PACING_OFF_AFTER_TIMEOUT.toNanos();
                log.warn(
                        "restore: the journal did not write its {} waiting rows within {} ms; not waiting for it"
                                + " again for {} s",
                        journal.queuedRows(),
                        journal.commitTimeout().toMillis(),
                        PACING_OFF_AFTER_TIMEOUT.toSeconds());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the caller's loop sees it at its next blocking call
        }
    }

    public static Job restorable(Job journaled) {
        return switch (journaled.status()) {
            case READY, RESERVED -> journaled.withState(JobStatus.DELAY, journaled.attempts(), journaled.executeAt());
            default -> journaled;
        };
    }
}
