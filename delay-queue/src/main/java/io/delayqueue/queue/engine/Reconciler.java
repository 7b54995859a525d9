package io.delayqueue.queue.engine;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobIds;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.coordination.Coordinator;
import io.delayqueue.queue.journal.JobCursor;
import io.delayqueue.queue.journal.JobEvent;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.journal.Transition;
import io.delayqueue.queue.store.JobStore;
import java.time.Clock;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Heals the loss of Redis by itself: every pass reads one bounded page per non-final status of jobs that
 * the journal says are overdue by more than the grace period, over the {@code (status, due_at)} index,
 * and re-enqueues those Redis no longer holds (journaled as {@code RESTORED}). A job Redis holds in a final
 * state that the journal has not caught up with (lost after a crash of the async writer) is written back
 * to the journal instead. Each instance reconciles only the shards it owns.
 *
 * <p>Pages resume where the last pass stopped and wrap around, so a large backlog of, say, slow pull
 * consumers is walked through over several passes instead of in one.
 */
final class Reconciler {
    private static final Logger log = LoggerFactory.getLogger(Reconciler.class);
    private static final List<JobStatus> WATCHED = List.of(JobStatus.DELAY, JobStatus.READY, JobStatus.RESERVED);

    private final Journal journal;
    private final JobStore store;
    private final Coordinator coordinator;
    private final JournalRestorer restorer;
    private final Clock clock;
    private final long graceMs;
    private final int pageSize;
    private final int shards;
    /** A job of a shard is due again (a delete undone): wakes its scanner. */
    private final BiConsumer<Integer, Long> onScheduled;
    /** A job only the journal holds had its delete (a tombstone) undone: admits it again (see the tier loader). */
    private final Consumer<Job> readmit;
    /** Hears the deletes a pass confirms. */
    private final EngineListener listener;

    private final Map<JobStatus, JobCursor> cursors = new EnumMap<>(JobStatus.class);

    Reconciler(
            Journal journal,
            JobStore store,
            Coordinator coordinator,
            JournalRestorer restorer,
            Clock clock,
            long graceMs,
            int pageSize,
            int shards,
            BiConsumer<Integer, Long> onScheduled,
            EngineListener listener,
            Consumer<Job> readmit) {
        this.journal = journal;
        this.store = store;
        this.coordinator = coordinator;
        this.restorer = restorer;
        this.clock = clock;
        this.graceMs = graceMs;
        this.pageSize = pageSize;
        this.shards = shards;
        this.onScheduled = onScheduled;
        this.listener = listener;
        this.readmit = readmit;
        WATCHED.forEach(s -> cursors.put(s, JobCursor.START));
    }

    /** One pass; returns how many jobs it put back into Redis. */
    synchronized long reconcileOnce() {
        settlePendingDeletes();
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
     * stopped, or the journal's
     * answer was unknown, between the steps of a delete): confirmed where the journal holds the job {@code
     * DELETED}, undone where it holds it live or not at all, so that both stores agree.
     *
     * @return deletes settled
     */
    long settlePendingDeletes() {
        long settled = 0;
        long now = clock.millis();
        for (int s = 0; s < shards; s++) {
            if (!coordinator.owns(s)) {
                continue;
            }
            List<String> confirm = new ArrayList<>();
            List<String> undo = new ArrayList<>();
            Map<String, Job> journaled = new HashMap<>();
            // A delete in progress holds its pending state while its commit runs, at most the commit timeout;
            // only one older than that and the grace was left behind (a crash, an unknown outcome). Settling a
            // live one would race its own confirmation.
            long begunBefore = now - graceMs - journal.commitTimeout().toMillis();
            for (String id : store.pendingDeletes(s, begunBefore, pageSize)) {
                Optional<Job> found = journal.find(id);
                found.ifPresent(j -> journaled.put(id, j));
                boolean deletedInJournal =
                        found.map(j -> j.status() == JobStatus.DELETED).orElse(false);
                (deletedInJournal ? confirm : undo).add(id);
            }
            List<String> confirmed = store.confirmDeletes(s, confirm, now);
            confirmed.forEach(listener::deleted);
            settled += confirmed.size();
            int shard = s;
            Map<String, Long> undone = store.undoDeletes(s, undo);
            undone.forEach((id, dueAt) -> {
                if (dueAt != null) {
                    onScheduled.accept(shard, dueAt);
                } else if (journaled.containsKey(id)) {
                    readmit.accept(journaled.get(id));
                }
            });
            settled += undone.size();
            if (!undone.isEmpty()) {
                log.warn(
                        "{} deletes that the journal never committed were undone in Redis: {}",
                        undone.size(),
                        undone.keySet());
            }
        }
        return settled;
    }
}
