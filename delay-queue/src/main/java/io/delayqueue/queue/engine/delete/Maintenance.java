package io.delayqueue.queue.engine.delete;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.Job;
import io.delayqueue.common.JobIds;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.engine.DelayQueueEngine;
import io.delayqueue.queue.engine.EngineConfig;
import io.delayqueue.queue.journal.JobCursor;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.store.DeleteStore;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link DelayQueueEngine#clearAll()}: every job not handed over yet deleted, Redis shard by shard, then the jobs only
 * the journal holds, each batch through the {@link DeleteProtocol} (begun pending, committed, confirmed; undone when
 * the journal refuses; held when its answer is unknown).
 *
 * <p>Thread-safe: called on the callers' threads; holds no state between calls (the pending deletes live in Redis).
 */
public final class Maintenance {
    private static final Logger log = LoggerFactory.getLogger(Maintenance.class);

    private final EngineConfig config;
    private final DeleteStore store;
    private final Journal journal;
    private final Clock clock;
    private final DeleteProtocol deletes;

    public Maintenance(EngineConfig config, DeleteStore store, Journal journal, Clock clock, DeleteProtocol deletes) {
        this.config = config;
        this.store = store;
        this.journal = journal;
        this.clock = clock;
        this.deletes = deletes;
    }

    /** {@link DelayQueueEngine#clearAll()}: Redis shard by shard, then the jobs only the journal holds. */
    public long clearAll() {
        long now = clock.millis();
        long deleted = 0;
        int limit = config.journal().pageSize();
        try {
            for (int s = 0; s < config.shards(); s++) {
                int offset = 0;
                while (true) {
                    DeleteStore.ClearBatch batch = store.clear(s, offset, limit, now);
                    // those handed over meanwhile (a redo found them RESERVED) were not deleted
                    deleted += batch.deleted().size()
                            - deletes.commit(s, batch.deleted(), Map.of(), now, "clearAll")
                                    .size();
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
                    if (deletes.beginJournaled(job, now)) {
                        begunByShard
                                .computeIfAbsent(JobIds.shardOf(job.id(), config.shards()), k -> new ArrayList<>())
                                .add(job.id());
                    }
                }
                List<Map.Entry<Integer, List<String>>> batches = new ArrayList<>(begunByShard.entrySet());
                for (int b = 0; b < batches.size(); b++) {
                    var entry = batches.get(b);
                    try {
                        deleted += entry.getValue().size()
                                - deletes.commit(entry.getKey(), entry.getValue(), pageById, now, "clearAll")
                                        .size();
                    } catch (DelayQueueException.Unavailable refused) {
                        // undone (the tombstones gone admitted again). The batches of this page not committed yet
                        // will not be: undo them too, rather than hold them for the reconciler
                        undoBegun(batches.subList(b + 1, batches.size()), pageById, refused);
                        throw refused;
                    }
                }
                if (page.size() < limit) {
                    break;
                }
            }
        }
        return deleted;
    }

    /** Lets go of deletes begun and never committed; what Redis cannot undo now the reconciler settles later. */
    private void undoBegun(
            List<Map.Entry<Integer, List<String>>> batches, Map<String, Job> jobsById, RuntimeException cause) {
        for (var entry : batches) {
            try {
                deletes.release(entry.getKey(), entry.getValue(), jobsById);
            } catch (RuntimeException undoFailed) {
                cause.addSuppressed(undoFailed);
            }
        }
    }
}
