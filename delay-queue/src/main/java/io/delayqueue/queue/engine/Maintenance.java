package io.delayqueue.queue.engine;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.Job;
import io.delayqueue.common.JobIds;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.journal.JobCursor;
import io.delayqueue.queue.journal.JobEvent;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.journal.Transition;
import io.delayqueue.queue.store.JobStore;
import io.delayqueue.queue.store.Outcome;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's deletes, one job ({@link #delete}) or all of them ({@link #clearAll}), kept in step between Redis and
 * the journal: each delete is begun pending in Redis, committed in the journal, then confirmed in Redis; when the
 * journal refuses, it is undone in Redis (and a job only the journal holds is readmitted); when its answer is
 * unknown, the job stays held until a retried delete or the {@link Reconciler} settles it.
 *
 * <p>Thread-safe: called on the callers' threads; holds no state between calls (the pending deletes live in Redis).
 */
final class Maintenance {
    private static final Logger log = LoggerFactory.getLogger(Maintenance.class);

    private final EngineConfig config;
    private final JobStore store;
    private final Journal journal;
    private final Clock clock;
    private final PushPath pushPath;
    private final DispatchPipeline.ScheduleListener scheduled;
    private final Supplier<EngineListener> listener;

    Maintenance(
            EngineConfig config,
            JobStore store,
            Journal journal,
            Clock clock,
            PushPath pushPath,
            DispatchPipeline.ScheduleListener scheduled,
            Supplier<EngineListener> listener) {
        this.config = config;
        this.store = store;
        this.journal = journal;
        this.clock = clock;
        this.pushPath = pushPath;
        this.scheduled = scheduled;
        this.listener = listener;
    }

    /** {@link DelayQueueEngine#delete(String)}: pending in Redis, committed in the journal, confirmed in Redis. */
    void delete(String id) {
        long now = clock.millis();
        Outcome outcome = store.beginDelete(id, now, null);
        Job journalOnly = null;
        if (outcome.result() == Outcome.Result.NOT_FOUND && journal.mode() != JournalMode.OFF) {
            Optional<Job> journaled = journal.find(id);
            if (journaled.isPresent()) {
                JobStatus status = journaled.get().status();
                if (status != JobStatus.DELAY && status != JobStatus.READY) {
                    throw deleteConflict(id, status);
                }
                journalOnly = journaled.get();
                outcome = store.beginDelete(id, now, journalOnly);
            }
        }
        switch (outcome.result()) {
            case APPLIED -> {
                try {
                    commitDeletes(JobIds.shardOf(id, config.shards()), List.of(id), now, "delete");
                } catch (DelayQueueException.Unavailable refused) {
                    // undone: the job is live again, and without its tombstone the tier loader may have passed it
                    if (journalOnly != null) {
                        pushPath.readmit(journalOnly);
                    }
                    throw refused;
                }
            }
            case NOT_FOUND -> throw new DelayQueueException.JobNotFound(id);
            case CONFLICT -> {
                if (outcome.status() != JobStatus.DELETED) {
                    throw deleteConflict(id, outcome.status());
                }
            }
        }
    }

    private static DelayQueueException deleteConflict(String id, JobStatus status) {
        return new DelayQueueException.StateConflict(
                id,
                status,
                status == JobStatus.RESERVED
                        ? "it is being delivered and can no longer be deleted"
                        : "it can no longer be deleted");
    }

    /**
     * Commits {@code DELETED} for deletes of one shard pending in Redis, then confirms them there; when the
     * journal refuses, undoes them in Redis and throws 503; when its answer is unknown, leaves them pending
     * (held, never delivered) and throws 504. A confirmation Redis misses is made by the reconciler.
     */
    private void commitDeletes(int shard, List<String> ids, long now, String detail) {
        if (ids.isEmpty()) {
            return;
        }
        List<Transition> deleted = new ArrayList<>(ids.size());
        for (String id : ids) {
            deleted.add(Transition.of(id, JobEvent.DELETED, null, JobStatus.DELETED, now, detail));
        }
        try {
            journal.recordTransitionsDurably(deleted);
        } catch (DelayQueueException.OutcomeUnknown unknown) {
            throw new DelayQueueException.OutcomeUnknown(
                    unknownDelete(ids) + ": the journal did not answer in time and may still commit it; the job"
                            + (ids.size() == 1 ? " is" : "s are")
                            + " held (not delivered) until a retried delete or the reconciler settles it",
                    unknown);
        } catch (RuntimeException refused) {
            try {
                store.undoDeletes(shard, ids).forEach((id, dueAt) -> {
                    if (dueAt != null) {
                        scheduled.onScheduled(shard, dueAt);
                    }
                });
            } catch (RuntimeException undoFailed) {
                refused.addSuppressed(undoFailed);
                throw new DelayQueueException.OutcomeUnknown(
                        unknownDelete(ids) + ": the journal refused it (" + refused.getMessage()
                                + ") and Redis could not be put back as it was; the job"
                                + (ids.size() == 1 ? " is" : "s are")
                                + " held (not delivered) until a retried delete or the reconciler settles it",
                        refused);
            }
            throw new DelayQueueException.Unavailable(
                    (ids.size() == 1 ? "job " + ids.get(0) + " was not deleted" : ids.size() + " jobs were not deleted")
                            + ": the journal refused it (" + refused.getMessage() + "); nothing changed",
                    refused);
        }
        try {
            List<String> confirmed = store.confirmDeletes(shard, ids, now);
            confirmed.forEach(listener.get()::deleted);
            if (confirmed.size() < ids.size()) {
                redoDeletes(shard, ids, now);
            }
        } catch (RuntimeException e) {
            // committed: the job is DELETED in both stores, only its purge waits for the reconciler's confirmation
            log.warn(
                    "{} deletes committed but not confirmed in Redis (the reconciler will): {}",
                    ids.size(),
                    e.toString());
        }
    }

    /**
     * The journal committed these deletes, but some were no longer pending in Redis: a reconciler pass took
     * one for abandoned and undid it (its commit ran past the grace and the commit timeout). The journal is the
     * truth: each still live in Redis is deleted there again, and confirmed at once.
     */
    private void redoDeletes(int shard, List<String> ids, long now) {
        List<String> again = new ArrayList<>();
        for (String id : ids) {
            Outcome o = store.beginDelete(id, now, null);
            if (o.applied()) {
                again.add(id);
            } else if (o.status() != JobStatus.DELETED && o.result() != Outcome.Result.NOT_FOUND) {
                log.warn(
                        "job {} is DELETED in the journal but {} in Redis: it was handed over meanwhile",
                        id,
                        o.status());
            }
        }
        if (!again.isEmpty()) {
            store.confirmDeletes(shard, again, now).forEach(listener.get()::deleted);
            log.warn(
                    "{} deletes committed after a reconciler pass had undone them were made again: {}",
                    again.size(),
                    again);
        }
    }

    private static String unknownDelete(List<String> ids) {
        return ids.size() == 1
                ? "the delete of job " + ids.get(0) + " may or may not have been committed"
                : "the delete of " + ids.size() + " jobs may or may not have been committed";
    }

    /** {@link DelayQueueEngine#clearAll()}: Redis shard by shard, then the jobs only the journal holds. */
    long clearAll() {
        long now = clock.millis();
        long deleted = 0;
        int limit = config.restorePageSize();
        try {
            for (int s = 0; s < config.shards(); s++) {
                int offset = 0;
                while (true) {
                    JobStore.ClearBatch batch = store.clear(s, offset, limit, now);
                    commitDeletes(s, batch.deleted(), now, "clearAll");
                    deleted += batch.deleted().size();
                    offset += batch.reservedKept();
                    if (batch.scanned() < limit && batch.deleted().size() < limit) {
                        break;
                    }
                }
            }
            if (journal.mode() != JournalMode.OFF) {
                deleted += clearJournalOnly(now, limit);
            }
        } catch (DelayQueueException e) {
            String done = "clearAll stopped after deleting " + deleted + " jobs: ";
            throw e instanceof DelayQueueException.OutcomeUnknown
                    ? new DelayQueueException.OutcomeUnknown(done + e.getMessage(), e)
                    : new DelayQueueException(e.httpStatus(), done + e.getMessage(), e);
        }
        log.warn("clearAll deleted {} jobs", deleted);
        return deleted;
    }

    /** Deletes, through tombstones, the not-yet-delivered jobs that only the journal holds. */
    private long clearJournalOnly(long now, int limit) {
        long deleted = 0;
        for (JobStatus status : List.of(JobStatus.DELAY, JobStatus.READY)) {
            JobCursor cursor = JobCursor.START;
            while (true) {
                List<Job> page = journal.page(status, cursor, Long.MAX_VALUE, limit);
                if (page.isEmpty()) {
                    break;
                }
                Job last = page.get(page.size() - 1);
                cursor = new JobCursor(last.executeAt(), last.id());
                Map<Integer, List<String>> begunByShard = new TreeMap<>();
                Map<String, Job> pageById = new HashMap<>();
                for (Job job : page) {
                    pageById.put(job.id(), job);
                    // every row, not only those Redis lacks: a far job the tier loader brought in after this
                    // clearAll went over Redis is deleted here (begun as any delete); one Redis lacks gets a
                    // tombstone, which keeps the loader from bringing it in later
                    if (store.beginDelete(job.id(), now, job).applied()) {
                        begunByShard
                                .computeIfAbsent(JobIds.shardOf(job.id(), config.shards()), k -> new ArrayList<>())
                                .add(job.id());
                    }
                }
                List<Map.Entry<Integer, List<String>>> batches = new ArrayList<>(begunByShard.entrySet());
                for (int b = 0; b < batches.size(); b++) {
                    var entry = batches.get(b);
                    try {
                        commitDeletes(entry.getKey(), entry.getValue(), now, "clearAll");
                    } catch (DelayQueueException.Unavailable refused) {
                        // undone: those jobs are live again, and the tier loader may have passed the ones whose
                        // tombstones kept it out (those Redis holds are left as they are). The batches of this page
                        // not committed yet will not be: undo them too, rather than hold them for the reconciler
                        pushPath.readmitAll(
                                entry.getValue().stream().map(pageById::get).toList());
                        undoBegun(batches.subList(b + 1, batches.size()), pageById, refused);
                        throw refused;
                    }
                    deleted += entry.getValue().size();
                }
                if (page.size() < limit) {
                    break;
                }
            }
        }
        return deleted;
    }

    /** Undoes deletes begun and never committed; what Redis cannot undo now the reconciler settles later. */
    private void undoBegun(
            List<Map.Entry<Integer, List<String>>> batches, Map<String, Job> jobsById, RuntimeException cause) {
        for (var entry : batches) {
            int shard = entry.getKey();
            try {
                store.undoDeletes(shard, entry.getValue()).forEach((id, dueAt) -> {
                    if (dueAt != null) {
                        scheduled.onScheduled(shard, dueAt);
                    }
                });
                pushPath.readmitAll(entry.getValue().stream().map(jobsById::get).toList());
            } catch (RuntimeException undoFailed) {
                cause.addSuppressed(undoFailed);
            }
        }
    }
}
