package io.delayqueue.queue.engine.delete;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.Job;
import io.delayqueue.common.JobIds;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.engine.DelayQueueEngine;
import io.delayqueue.queue.engine.EngineListener;
import io.delayqueue.queue.engine.handover.DispatchPipeline;
import io.delayqueue.queue.engine.restore.Reconciler;
import io.delayqueue.queue.journal.JobEvent;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.journal.Transition;
import io.delayqueue.queue.store.DeleteStore;
import io.delayqueue.queue.store.Outcome;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one owner of the delete protocol: begin, commit, confirm, undo, settle and redo of every delete (one job, a
 * {@code clearAll} batch, and the reconciler's settling), kept in step between Redis and the journal. The scripts
 * (delete.lua, confirm_delete.lua, undo_delete.lua, clear.lua) are its Redis half; {@link Maintenance} and {@link
 * Reconciler} call it and hold no delete logic of their own.
 *
 * <p>A delete is begun in Redis (the job becomes {@code DELETED} at once, pending, so nothing hands it over), then
 * {@code DELETED} is committed in the journal, then confirmed in Redis. Several deletes of one job may overlap: each
 * begin holds the pending delete once more, a refused commit lets go of its own hold only, and the job is put back
 * when the last hold goes. Where Redis has replicas, a delete answers 200 only once a replica took it ({@code WAIT},
 * {@link DeleteStore#awaitReplicas}).
 *
 * <p>States and transitions (Redis: the job's status there, and {@code pending(n)}: a delete held by n deletes;
 * journal: the job's row):
 *
 * <pre>
 * Redis           journal         event                       next Redis / journal      answer
 * DELAY|READY     live            begin                       pending(1) / live         (commit)
 * pending(n)      live            begin                       pending(n+1) / live       (commit)
 * (absent)        DELAY|READY     begin                       tombstone pending(1)      (commit)
 * DEAD            DEAD            begin (delete_dead.lua)     pending(1), out of the    (commit)
 *                                                             dead set / live
 * (absent)        DEAD            begin                       tombstone pending(1)      (commit)
 * DELETED         DELETED         begin                       unchanged                 200 (after the replica wait)
 * RESERVED|final  any             begin                       unchanged                 409
 * pending(n)      live            commit refused, n &gt; 1      pending(n-1) / live       503, another delete decides
 * pending(1)      live            commit refused              as before the begin       503, nothing changed
 * pending(n)      live            commit unknown              pending(n) / ?            504 with the id, held
 * pending(n)      DELETED         confirm                     DELETED / DELETED         200 after the replica wait
 * pending(n)      DELETED         no replica took it in time  DELETED / DELETED         504 with the id
 * DELAY|READY     DELETED         redo (commit found no hold) DELETED / DELETED         200
 * RESERVED|final  DELETED         redo                        unchanged                 409 (handed over)
 * pending, old    DELETED         settle (reconciler)         DELETED / DELETED         -
 * pending, old    live or absent  settle (reconciler)         as before the begin       - (every hold ends)
 * DELAY|READY     DELETED         reconcile (fail-over lost   DELETED / DELETED         -
 *                                 the delete in Redis)
 * </pre>
 *
 * "old": the latest begin of the delete is older than the reconcile grace and the commit timeout, so no commit of it
 * can still be running. A delete answers 200 only when the job can no longer be handed over.
 *
 * <p>Thread-safe: called on the callers' threads and the reconciler's; holds no state between calls (the pending
 * deletes and their holds live in Redis).
 */
public final class DeleteProtocol {
    private static final Logger log = LoggerFactory.getLogger(DeleteProtocol.class);

    private final int shards;
    private final DeleteStore store;
    private final Journal journal;
    private final Clock clock;
    /** Admits again journal-only jobs whose tombstone an undo removed (the tier loader may have passed them). */
    private final Consumer<List<Job>> readmit;

    private final DispatchPipeline.ScheduleListener scheduled;
    private final Supplier<EngineListener> listener;

    public DeleteProtocol(
            int shards,
            DeleteStore store,
            Journal journal,
            Clock clock,
            Consumer<List<Job>> readmit,
            DispatchPipeline.ScheduleListener scheduled,
            Supplier<EngineListener> listener) {
        this.shards = shards;
        this.store = store;
        this.journal = journal;
        this.clock = clock;
        this.readmit = readmit;
        this.scheduled = scheduled;
        this.listener = listener;
    }

    /** {@link DelayQueueEngine#delete(String)}: the whole protocol for one job. */
    public void delete(String id) {
        long now = clock.millis();
        Outcome outcome = store.beginDelete(id, now, null);
        Map<String, Job> journalOnly = Map.of();
        if (outcome.result() == Outcome.Result.NOT_FOUND && journal.mode() != JournalMode.OFF) {
            Optional<Job> journaled = journal.find(id);
            if (journaled.isPresent()) {
                JobStatus status = journaled.get().status();
                if (status != JobStatus.DELAY && status != JobStatus.READY && status != JobStatus.DEAD) {
                    throw conflict(id, status);
                }
                journalOnly = Map.of(id, journaled.get());
                outcome = store.beginDelete(id, now, journaled.get());
            }
        }
        int shard = JobIds.shardOf(id, shards);
        switch (outcome.result()) {
            case APPLIED -> {
                Map<String, JobStatus> handedOver = commit(shard, List.of(id), journalOnly, now, "delete");
                if (!handedOver.isEmpty()) {
                    throw new DelayQueueException.StateConflict(
                            id,
                            handedOver.get(id),
                            "its DELETED was committed, but its delete had been undone in Redis meanwhile (left"
                                    + " pending past the commit timeout) and the job handed over; it may be delivered");
                }
            }
            case NOT_FOUND -> throw new DelayQueueException.JobNotFound(id);
            case CONFLICT -> {
                if (outcome.status() == JobStatus.DEAD) {
                    deleteDeadJob(id, shard);
                    return;
                }
                if (outcome.status() != JobStatus.DELETED) {
                    throw conflict(id, outcome.status());
                }
                // deleted already, perhaps by a delete answered 504 for want of a replica: wait for one now
                awaitReplicas(shard, List.of(id));
            }
        }
    }

    /** The delete of one dead job found in Redis: {@link #deleteDead}, its outcome told as {@link #delete}'s. */
    private void deleteDeadJob(String id, int shard) {
        Outcome outcome = deleteDead(null, shard, List.of(id), DEAD_DELETED).get(0);
        if (outcome.result() == Outcome.Result.NOT_FOUND) {
            throw new DelayQueueException.JobNotFound(id);
        }
        if (outcome.result() == Outcome.Result.CONFLICT) {
            // requeued, or deleted by another call, between the two reads
            if (outcome.status() != JobStatus.DELETED) {
                throw conflict(id, outcome.status());
            }
            awaitReplicas(shard, List.of(id));
        }
    }

    /** The journal's detail of a dead job deleted by an operator. */
    public static final String DEAD_DELETED = "dead letter deleted";

    /**
     * Deletes dead jobs of one shard, with the protocol of {@link #delete}: each is begun in Redis ({@code DELETED}
     * pending, out of its dead set, so no requeue brings it back), {@code DELETED} is committed in the journal (so no
     * restore does), then the deletes are confirmed. Throws as {@link #commit} does when the journal refuses (nothing
     * deleted) or its answer is unknown.
     *
     * @param topic the topic the jobs must be dead jobs of; {@code null}: any
     * @param detail the journal's detail of the transition
     * @return outcomes in the order of {@code ids} (see {@link DeleteStore#beginDeadDeletes})
     */
    public List<Outcome> deleteDead(String topic, int shard, List<String> ids, String detail) {
        long now = clock.millis();
        List<Outcome> begun = store.beginDeadDeletes(topic, shard, ids, now);
        List<String> held = new ArrayList<>(ids.size());
        for (int i = 0; i < ids.size(); i++) {
            if (begun.get(i).applied()) {
                held.add(ids.get(i));
            }
        }
        commit(shard, held, Map.of(), now, detail);
        return begun;
    }

    private static DelayQueueException conflict(String id, JobStatus status) {
        return new DelayQueueException.StateConflict(
                id,
                status,
                status == JobStatus.RESERVED
                        ? "it is being delivered and can no longer be deleted"
                        : "it can no longer be deleted");
    }

    /**
     * Begins the delete of a job the journal holds (see {@link DeleteStore#beginDelete}, with the job as its tombstone).
     *
     * @return whether it is pending now and held by the caller, who must {@link #commit} or {@link #release} it
     */
    boolean beginJournaled(Job job, long now) {
        return store.beginDelete(job.id(), now, job).applied();
    }

    /**
     * Commits {@code DELETED} for deletes of one shard the caller holds pending in Redis, then confirms them there
     * and waits for a replica; when the journal refuses, lets go of the caller's holds (the jobs no other delete
     * holds are put back) and throws 503; when its answer is unknown, leaves them held (never delivered) and throws
     * 504; when no replica took them in time, throws 504. A confirmation Redis misses is made by the reconciler.
     *
     * @param journaled the jobs among {@code ids} that only the journal held (begun as tombstones), by id
     * @return the jobs committed that had been handed over meanwhile (see {@link #redo}), by id; usually empty
     */
    Map<String, JobStatus> commit(int shard, List<String> ids, Map<String, Job> journaled, long now, String detail) {
        if (ids.isEmpty()) {
            return Map.of();
        }
        List<Transition> deleted = new ArrayList<>(ids.size());
        for (String id : ids) {
            deleted.add(Transition.of(id, JobEvent.DELETED, null, JobStatus.DELETED, now, detail));
        }
        try {
            journal.recordTransitionsDurably(deleted);
        } catch (DelayQueueException.OutcomeUnknown unknown) {
            throw unknown(ids, "the journal did not answer in time and may still commit it; the job", unknown);
        } catch (RuntimeException refused) {
            Map<String, Long> undone;
            try {
                undone = release(shard, ids, journaled);
            } catch (RuntimeException undoFailed) {
                refused.addSuppressed(undoFailed);
                throw unknown(
                        ids,
                        "the journal refused it (" + refused.getMessage()
                                + ") and Redis could not be put back as it was; the job",
                        refused);
            }
            String what =
                    ids.size() == 1 ? "job " + ids.get(0) + " was not deleted" : ids.size() + " jobs were not deleted";
            throw new DelayQueueException.Unavailable(
                    what + ": the journal refused it (" + refused.getMessage() + "); "
                            + (undone.size() == ids.size()
                                    ? "nothing changed"
                                    : "another delete of " + (ids.size() == 1 ? "it" : "some of them")
                                            + " is under way and decides it"),
                    refused);
        }
        Map<String, JobStatus> handedOver = Map.of();
        try {
            List<String> confirmed = store.confirmDeletes(shard, ids, now);
            confirmed.forEach(listener.get()::deleted);
            if (confirmed.size() < ids.size()) {
                handedOver = redo(shard, ids, journaled, now);
            }
        } catch (RuntimeException e) {
            // committed: the job is DELETED in both stores, only its purge waits for the reconciler's confirmation
            log.warn(
                    "{} deletes committed but not confirmed in Redis (the reconciler will): {}",
                    ids.size(),
                    e.toString());
        }
        awaitReplicas(shard, ids);
        return handedOver;
    }

    /**
     * A delete answers 200 only once a Redis replica took it, where the deployment has replicas: otherwise a
     * fail-over to a replica that lacks it could hand the job over. Throws 504 with the ids when none did in time.
     */
    private void awaitReplicas(int shard, List<String> ids) {
        boolean replicated;
        try {
            replicated = store.awaitReplicas(shard);
        } catch (RuntimeException e) {
            throw unknown(ids, "Redis did not answer the replica wait; the job", e);
        }
        if (!replicated) {
            String what = ids.size() == 1 ? "the delete of job " + ids.get(0) : "the delete of " + ids.size() + " jobs";
            DelayQueueException e = new DelayQueueException.OutcomeUnknown(
                    what + " is committed in the journal, but no Redis replica took it in time: a Redis fail-over now"
                            + " could hand " + (ids.size() == 1 ? "the job" : "them") + " over before the reconciler"
                            + " deletes " + (ids.size() == 1 ? "it" : "them") + " again; retry the delete with the id",
                    null);
            throw ids.size() == 1 ? e.withData(ids.get(0)) : e;
        }
    }

    private static DelayQueueException unknown(List<String> ids, String reason, Throwable cause) {
        String subject = ids.size() == 1
                ? "the delete of job " + ids.get(0) + " may or may not have been committed"
                : "the delete of " + ids.size() + " jobs may or may not have been committed";
        DelayQueueException e = new DelayQueueException.OutcomeUnknown(
                subject + ": " + reason + (ids.size() == 1 ? " is" : "s are")
                        + " held (not delivered) until a retried delete or the reconciler settles it",
                cause);
        return ids.size() == 1 ? e.withData(ids.get(0)) : e;
    }

    /**
     * The journal committed these deletes, but some were no longer pending in Redis: another delete of the same job
     * confirmed it first, or a reconciler pass took the delete for abandoned and undid it (its latest begin was
     * older than the grace and the commit timeout). The journal is the truth: each still live in Redis is deleted
     * there again, and confirmed at once; one handed over meanwhile is returned.
     */
    private Map<String, JobStatus> redo(int shard, List<String> ids, Map<String, Job> journaled, long now) {
        List<String> again = new ArrayList<>();
        Map<String, JobStatus> handedOver = new LinkedHashMap<>();
        for (String id : ids) {
            Outcome o = store.beginDelete(id, now, journaled.get(id));
            if (o.result() == Outcome.Result.CONFLICT && o.status() == JobStatus.DEAD) {
                o = store.beginDeadDeletes(null, shard, List.of(id), now).get(0);
            }
            if (o.applied()) {
                again.add(id);
            } else if (o.result() == Outcome.Result.CONFLICT && o.status() != JobStatus.DELETED) {
                handedOver.put(id, o.status());
            }
        }
        if (!again.isEmpty()) {
            store.confirmDeletes(shard, again, now).forEach(listener.get()::deleted);
            log.warn(
                    "{} deletes committed after a reconciler pass had undone them were made again: {}",
                    again.size(),
                    again);
        }
        if (!handedOver.isEmpty()) {
            log.warn("jobs DELETED in the journal but handed over in Redis meanwhile: {}", handedOver);
        }
        return handedOver;
    }

    /**
     * Lets go of the caller's holds of deletes it began and will not commit (or whose commit was refused): each no
     * other delete holds is put back (its scanner woken; a journal-only job whose tombstone went is admitted again).
     *
     * @return the ids put back, each with its due time ({@code null} for a tombstone)
     */
    Map<String, Long> release(int shard, List<String> ids, Map<String, Job> journaled) {
        Map<String, Long> undone = store.undoDeletes(shard, ids);
        afterUndo(shard, undone, journaled);
        return undone;
    }

    private void afterUndo(int shard, Map<String, Long> undone, Map<String, Job> journaled) {
        List<Job> tombstonesGone = new ArrayList<>();
        undone.forEach((id, dueAt) -> {
            if (dueAt != null) {
                scheduled.onScheduled(shard, dueAt);
            } else if (journaled.containsKey(id)) {
                tombstonesGone.add(journaled.get(id));
            }
        });
        if (!tombstonesGone.isEmpty()) {
            readmit.accept(tombstonesGone);
        }
    }

    /**
     * Settles deletes of one shard whose latest begin was before {@code begunBefore} (the service stopped, or the
     * journal's answer was unknown, between the steps of a delete): confirmed where the journal holds the job {@code
     * DELETED}, undone (every hold) where it holds it live or not at all, so that both stores agree. A delete begun
     * again since the read is left to its own commit.
     *
     * @return deletes settled
     */
    public long settleAbandoned(int shard, long begunBefore, int limit) {
        long now = clock.millis();
        List<String> confirm = new ArrayList<>();
        List<String> undo = new ArrayList<>();
        Map<String, Job> journaled = new HashMap<>();
        for (String id : store.pendingDeletes(shard, begunBefore, limit)) {
            Optional<Job> found = journal.find(id);
            found.ifPresent(j -> journaled.put(id, j));
            boolean deletedInJournal =
                    found.map(j -> j.status() == JobStatus.DELETED).orElse(false);
            (deletedInJournal ? confirm : undo).add(id);
        }
        List<String> confirmed = store.confirmDeletes(shard, confirm, now);
        confirmed.forEach(listener.get()::deleted);
        Map<String, Long> undone = store.undoAbandonedDeletes(shard, undo, begunBefore);
        afterUndo(shard, undone, journaled);
        if (!undone.isEmpty()) {
            log.warn(
                    "{} deletes that the journal never committed were undone in Redis: {}",
                    undone.size(),
                    undone.keySet());
        }
        return confirmed.size() + undone.size();
    }

    /**
     * Makes Redis agree with the journal where the journal holds a job {@code DELETED} and Redis holds it live and
     * not handed over ({@code DELAY}, {@code READY}, or a dead letter, {@code DEAD}): the delete was answered, and
     * Redis lost it (a fail-over to a replica the delete had not reached). Deleted in Redis again and confirmed at
     * once; the journal is not written. A job Redis already handed over is left to finish (and logged).
     *
     * @param deletedInJournal jobs the journal holds {@code DELETED}
     * @return jobs deleted in Redis again
     */
    public int enforceJournalDeletes(List<Job> deletedInJournal) {
        if (deletedInJournal.isEmpty()) {
            return 0;
        }
        Map<String, JobStatus> inRedis =
                store.statuses(deletedInJournal.stream().map(Job::id).toList());
        long now = clock.millis();
        Map<Integer, List<String>> begunByShard = new HashMap<>();
        List<String> handedOver = new ArrayList<>();
        inRedis.forEach((id, status) -> {
            if (status == JobStatus.DELAY || status == JobStatus.READY || status == JobStatus.DEAD) {
                int shard = JobIds.shardOf(id, shards);
                Outcome begun = status == JobStatus.DEAD
                        ? store.beginDeadDeletes(null, shard, List.of(id), now).get(0)
                        : store.beginDelete(id, now, null);
                if (begun.applied()) {
                    begunByShard.computeIfAbsent(shard, s -> new ArrayList<>()).add(id);
                }
            } else if (status == JobStatus.RESERVED) {
                handedOver.add(id);
            }
        });
        int redone = 0;
        for (var entry : begunByShard.entrySet()) {
            // not heard as deletes again: the delete that the journal committed was heard when it was answered
            redone +=
                    store.confirmDeletes(entry.getKey(), entry.getValue(), now).size();
            log.warn(
                    "jobs DELETED in the journal were live in Redis (a fail-over lost their delete): deleted again {}",
                    entry.getValue());
        }
        if (!handedOver.isEmpty()) {
            log.warn("jobs DELETED in the journal are being delivered (a fail-over lost their delete): {}", handedOver);
        }
        return redone;
    }
}
