package io.delayqueue.queue.engine.restore;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobIds;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.coordination.Coordinator;
import io.delayqueue.queue.engine.delete.DeleteProtocol;
import io.delayqueue.queue.journal.JobCursor;
import io.delayqueue.queue.journal.JobEvent;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.journal.Transition;
import io.delayqueue.queue.store.DeleteStore;
import java.time.Clock;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Heals the loss of Redis by itself: every pass reads one bounded page per non-final status of jobs that
 * the journal says are overdue by more than the grace period, over the {@code (status, due_at)} index,
 * and re-enqueues those Redis no longer holds (journaled as {@code RESTORED}). A job Redis holds in a final
 * state that the journal has not caught up with (lost after a crash of the async writer) is written back
 * to the journal instead; a job the journal holds {@code DELETED} that Redis holds live (a fail-over lost its
 * delete) is deleted in Redis again: the journal is the truth for a final state ({@link
 * DeleteProtocol#enforceJournalDeletes}). Deletes left pending are settled by the {@link DeleteProtocol}. Each
 * instance reconciles only the shards it owns.
 *
 * <p>Pages resume where the last pass stopped and wrap around, so a large backlog of, say, slow pull
 * consumers is walked through over several passes instead of in one. The {@code DELETED} rows are read two pages a
 * pass: the soonest due (from a grace before now) every pass, and one page of a walk through the later ones.
 */
public final class Reconciler {
    private static final Logger log = LoggerFactory.getLogger(Reconciler.class);
    private static final List<JobStatus> WATCHED = List.of(JobStatus.DELAY, JobStatus.READY, JobStatus.RESERVED);

    private final Journal journal;
    private final DeleteStore store;
    private final Coordinator coordinator;
    private final JournalRestorer restorer;
    private final Clock clock;
    private final long graceMs;
    private final int pageSize;
    private final int shards;
    private final DeleteProtocol deletes;

    private final Map<JobStatus, JobCursor> cursors = new EnumMap<>(JobStatus.class);
    /** Where the walk over {@code DELETED} rows goes on; {@code null}: start again a grace before now. */
    private JobCursor deletedCursor;

    public Reconciler(
            Journal journal,
            DeleteStore store,
            Coordinator coordinator,
            JournalRestorer restorer,
            Clock clock,
            long graceMs,
            int pageSize,
            int shards,
            DeleteProtocol deletes) {
        this.journal = journal;
        this.store = store;
        this.coordinator = coordinator;
        this.restorer = restorer;
        this.clock = clock;
        this.graceMs = graceMs;
        this.pageSize = pageSize;
        this.shards = shards;
        this.deletes = deletes;
        WATCHED.forEach(s -> cursors.put(s, JobCursor.START));
    }

    /** One pass; returns how many jobs it put back into Redis. */
    public synchronized long reconcileOnce() {
        settlePendingDeletes();
        enforceJournalDeletes();
        long restored = 0;
        long overdueBefore = clock.millis() - graceMs;
        for (JobStatus status : WATCHED) {
            List<Job> page = journal.page(status, cursors.get(status), overdueBefore, pageSize);
            if (page.size() < pageSize) {
                cursors.put(status, JobCursor.START);
            } else {
                Job last = page.get(page.size() - 1);
                cursors.put(status, new JobCursor(last.executeAt(), last.id()));
            }
            List<Job> owned = page.stream()
                    .filter(j -> coordinator.owns(JobIds.shardOf(j.id(), shards)))
                    .toList();
            if (owned.isEmpty()) {
                continue;
            }
            Map<String, JobStatus> inRedis =
                    store.statuses(owned.stream().map(Job::id).toList());
            List<Job> missing = new ArrayList<>();
            List<Transition> catchUp = new ArrayList<>();
            long now = clock.millis();
            // a delete pending in Redis is not final yet: settlePendingDeletes decides it by the journal
            Set<String> pendingDeletes = store.pendingDeletesAmong(inRedis.entrySet().stream()
                    .filter(e -> e.getValue() == JobStatus.DELETED)
                    .map(Map.Entry::getKey)
                    .toList());
            for (Job job : owned) {
                JobStatus actual = inRedis.get(job.id());
                if (actual == null) {
                    missing.add(job);
                } else if (actual.isFinal() && !pendingDeletes.contains(job.id())) {
                    catchUp.add(Transition.of(
                            job.id(),
                            JobEvent.valueOf(actual.name()),
                            job.status(),
                            actual,
                            now,
                            "reconciled from Redis"));
                }
            }
            journal.recordTransitions(catchUp);
            long n = restorer.restore(missing, "reconciler: missing from Redis");
            if (n > 0) {
                log.warn("reconciler put back {} overdue {} jobs that Redis had lost", n, status);
            }
            restored += n;
        }
        return restored;
    }

    /**
     * Settles deletes pending in Redis for longer than the grace period and the commit timeout (the service
     * stopped, or the journal's answer was unknown, between the steps of a delete): see {@link
     * DeleteProtocol#settleAbandoned}.
     *
     * @return deletes settled
     */
    long settlePendingDeletes() {
        long settled = 0;
        // A delete in progress holds its pending state while its commit runs, at most the commit timeout; only one
        // whose latest begin is older than that and the grace was left behind (a crash, an unknown outcome).
        // Settling a live one would race its own confirmation.
        long begunBefore = clock.millis() - graceMs - journal.commitTimeout().toMillis();
        for (int s = 0; s < shards; s++) {
            if (coordinator.owns(s)) {
                settled += deletes.settleAbandoned(s, begunBefore, pageSize);
            }
        }
        return settled;
    }

    /**
     * Two pages of {@code DELETED} rows, whose jobs Redis holds live are deleted there again: the soonest (from a grace
     * before now, those Redis could hand over first), every pass; then one page of the walk through the later ones,
     * which goes on where the last pass stopped. A walk alone would leave the soonest jobs unchecked for a whole cycle
     * (after a {@code clearAll} of 500,000 future jobs, about 40 minutes).
     */
    private void enforceJournalDeletes() {
        List<Job> soonest =
                journal.page(JobStatus.DELETED, new JobCursor(clock.millis() - graceMs, ""), Long.MAX_VALUE, pageSize);
        enforceOwned(soonest);
        if (soonest.size() < pageSize) {
            deletedCursor = null;
            return;
        }
        JobCursor afterSoonest = cursorAfter(soonest);
        JobCursor from = deletedCursor != null && isAfter(deletedCursor, afterSoonest) ? deletedCursor : afterSoonest;
        List<Job> page = journal.page(JobStatus.DELETED, from, Long.MAX_VALUE, pageSize);
        enforceOwned(page);
        deletedCursor = page.size() < pageSize ? null : cursorAfter(page);
    }

    private void enforceOwned(List<Job> page) {
        deletes.enforceJournalDeletes(page.stream()
                .filter(j -> coordinator.owns(JobIds.shardOf(j.id(), shards)))
                .toList());
    }

    private static JobCursor cursorAfter(List<Job> page) {
        Job last = page.get(page.size() - 1);
        return new JobCursor(last.executeAt(), last.id());
    }

    private static boolean isAfter(JobCursor a, JobCursor b) {
        return a.dueAt() > b.dueAt() || (a.dueAt() == b.dueAt() && a.id().compareTo(b.id()) > 0);
    }
}
