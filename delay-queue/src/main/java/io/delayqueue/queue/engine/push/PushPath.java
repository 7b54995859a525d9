package io.delayqueue.queue.engine.push;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.Job;
import io.delayqueue.common.PushRequest;
import io.delayqueue.queue.engine.EngineConfig;
import io.delayqueue.queue.engine.EngineListener;
import io.delayqueue.queue.engine.handover.DispatchPipeline;
import io.delayqueue.queue.engine.restore.JournalRestorer;
import io.delayqueue.queue.engine.tier.TierProtocol;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.journal.PushJournal;
import io.delayqueue.queue.store.JobStore;
import io.delayqueue.queue.store.StoreReads;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's push path: concurrent pushes are combined into rounds ({@link Combiner}), each round is journaled
 * first (one commit, one group per caller) and then stored in Redis; far jobs (due beyond the tier horizon) are
 * admitted instead of stored ({@link TierProtocol}).
 *
 * <p>Thread-safe: called on the pushing callers' threads; a round runs on the thread of one of its callers.
 */
public final class PushPath {
    private static final Logger log = LoggerFactory.getLogger(PushPath.class);

    private final EngineConfig config;
    private final PushJournal journal;
    private final Clock clock;
    private final JobFactory jobFactory;
    /** Reads the job a re-pushed id names when only Redis knew it (no journal, or an async one). */
    private final StoreReads reads;
    /** {@code null} when every job is kept in Redis. */
    /** Where each round's jobs go: near ones into Redis, far ones admitted. */
    private final JobPlacement placement;

    private final Supplier<EngineListener> listener;
    /** Concurrent pushes share journal commits and script calls. */
    private final Combiner<Job, Pushed> pushes =
            new Combiner<>(this::journalAndStore, LimitSettings.DEFAULT_MAX_BATCH_SIZE, 3);
    /** Jobs answered 202, put into Redis as soon as it answers again. */
    private final Readmissions readmissions;

    public PushPath(
            EngineConfig config,
            JobStore store,
            PushJournal journal,
            Clock clock,
            JobFactory jobFactory,
            TierProtocol tiers,
            Supplier<EngineListener> listener,
            DispatchPipeline.ScheduleListener scheduled) {
        this.config = config;
        this.journal = journal;
        this.clock = clock;
        this.jobFactory = jobFactory;
        this.reads = store;
        this.placement = new JobPlacement(store, tiers, config.shards(), scheduled);
        this.listener = listener;
        this.readmissions = new Readmissions(store, journal, this::storeLate);
    }

    /**
     * Pushes one caller's jobs, combined with concurrent callers'. The ids are fixed before anything is written,
     * and every answer carries them: {@link PushResult} when the jobs are durable (in Redis, or journaled and
     * waiting for Redis); {@link DelayQueueException.Unavailable} (503) when nothing was written; {@link
     * DelayQueueException.OutcomeUnknown} (504) when a commit was under way at the deadline; a 4xx when the
     * journal refuses a row. Each caller gets its own outcome: its rows are its own journal entry, and a shard
     * that fails in Redis answers only for its own jobs.
     *
     * <p>Bounded: a caller waits at most the commit timeout (from the moment it arrives, including its wait for a
     * round) for the journal, plus the Redis call of its round, which {@code delay.redis.timeout} bounds.
     *
     * @param singleField the field prefix of a single push's validation errors, {@code null} for a batch's
     */
    public List<PushResult> pushAll(List<PushRequest> requests, String singleField) {
        long now = clock.millis();
        long deadline = System.nanoTime() + journal.commitTimeout().toNanos();
        List<Job> jobs = jobFactory.createAll(requests, now, singleField);
        boolean single = singleField != null;
        List<Pushed> pushed;
        try {
            pushed = pushes.run(jobs, deadline);
        } catch (Combiner.DeadlinePassed e) {
            throw new DelayQueueException.Unavailable(
                            "not written: the service is too busy or the journal too slow to take the push within "
                                    + journal.commitTimeout().toMillis() + " ms; retry with the same id",
                            null)
                    .withData(idsOf(jobs, single));
        } catch (DelayQueueException e) {
            // the round failed as a whole (unexpectedly): the exception is shared, so each caller gets its own
            throw new DelayQueueException(e.httpStatus(), e.getMessage(), e).withData(idsOf(jobs, single));
        }
        List<PushResult> results = new ArrayList<>(pushed.size());
        for (Pushed p : pushed) {
            if (p.failure() instanceof DelayQueueException.InvalidField refused) {
                // the database refused a row (400): nothing was written; the answer names the field, and the job
                // of a single push (a batch's row is not known: its group was refused whole)
                throw single ? refused.naming(jobs.get(0).id()) : refused;
            }
            if (p.failure() != null) {
                throw p.failure().withData(idsOf(jobs, single));
            }
            results.add(p.result());
        }
        refuseOtherJobs(requests, jobs, results, singleField, now);
        return results;
    }

    /**
     * A 409 when a pushed client id already names another job ({@link SameJob}): the job the id names is kept as
     * it is, and so are the other jobs of a batch (pushed as the 200 would have said; the message counts them).
     */
    private static void refuseOtherJobs(
            List<PushRequest> requests, List<Job> jobs, List<PushResult> results, String singleField, long now) {
        List<String> conflicts = new ArrayList<>();
        String firstField = null;
        for (int i = 0; i < results.size(); i++) {
            PushResult result = results.get(i);
            if (result.created() || result.existing() == null) {
                continue;
            }
            String field = SameJob.firstDifference(requests.get(i), jobs.get(i), result.existing(), now);
            if (field != null) {
                String named = singleField != null ? singleField + field : "[" + i + "]." + field;
                firstField = firstField == null ? named : firstField;
                conflicts.add(
                        named + ": id '" + result.id() + "' already names another job (its " + field + " differs)");
            }
        }
        if (conflicts.isEmpty()) {
            return;
        }
        if (singleField != null) {
            throw new DelayQueueException.IdConflict(
                            firstField,
                            conflicts.get(0) + "; that job was kept as it is: push another job under a new id")
                    .withData(results.get(0).id());
        }
        long created = results.stream().filter(PushResult::created).count();
        long journaledOnly = results.stream().filter(r -> !r.scheduled()).count();
        throw new DelayQueueException.IdConflict(
                        firstField,
                        String.join("; ", conflicts) + ". Those jobs were kept as they are; the batch's other jobs"
                                + " were pushed (" + created + " created, "
                                + (results.size() - created - conflicts.size())
                                + " already existed"
                                + (journaledOnly > 0
                                        ? ", " + journaledOnly + " journaled for Redis to take once it is back"
                                        : "")
                                + "): pushing the batch again with the same ids is safe")
                .withData(results.stream().map(PushResult::id).toList());
    }

    /** What a failed push's answer carries: the job's id, or a batch's ids in order. */
    private static Object idsOf(List<Job> jobs, boolean single) {
        return single ? jobs.get(0).id() : jobs.stream().map(Job::id).toList();
    }

    /** The outcome of one job of a round: a result, or the failure its caller is answered with. */
    private record Pushed(PushResult result, DelayQueueException failure) {}

    /**
     * Journals and stores the jobs of one round (one group per caller); one outcome per job, in order. A caller's
     * failure is a new exception of its own (the caller sets its ids on it).
     */
    private List<Pushed> journalAndStore(List<List<Job>> groups, long deadlineNanos) {
        // journal first: a job is never in Redis without its row. The round is one journal entry (one commit),
        // in which each caller's jobs are a group with an answer of its own.
        List<PushJournal.PendingCreate> pending = journal.startCreatedGroups(groups);
        boolean[] released = new boolean[groups.size()];
        try {
            return journalAndStore(groups, deadlineNanos, pending, released);
        } finally {
            // an unexpected failure: an async journal writes the round's jobs rather than lose any
            for (int g = 0; g < groups.size(); g++) {
                if (!released[g]) {
                    pending.get(g).release(Set.of());
                }
            }
        }
    }

    private List<Pushed> journalAndStore(
            List<List<Job>> groups, long deadlineNanos, List<PushJournal.PendingCreate> pending, boolean[] released) {
        List<Set<String>> existing = new ArrayList<>(Collections.nCopies(groups.size(), Set.of()));
        DelayQueueException[] failures = new DelayQueueException[groups.size()];
        for (int g = 0; g < groups.size(); g++) {
            try {
                existing.set(g, pending.get(g).await(deadlineNanos));
            } catch (DelayQueueException e) {
                failures[g] = e;
            }
        }
        // What goes to Redis: each journaled id once. One id twice in a round (two callers, or one batch, pushing
        // the same client id): the first push creates the job, the others find it.
        Map<String, Job> toStore = new LinkedHashMap<>();
        Set<String> newIds = new HashSet<>();
        Set<String> known = new LinkedHashSet<>(); // journaled before this round: re-pushed client ids
        for (int g = 0; g < groups.size(); g++) {
            if (failures[g] != null) {
                continue;
            }
            for (Job job : groups.get(g)) {
                String id = job.id();
                if (toStore.containsKey(id) || known.contains(id)) {
                    continue;
                }
                if (!existing.get(g).contains(id)) {
                    toStore.put(id, job);
                    newIds.add(id);
                } else {
                    known.add(id);
                }
            }
        }
        // Journaled before: keep the journaled job. If a push of it failed half-way before (row committed, Redis
        // down), this puts it into Redis now; if Redis has it, nothing changes. One read for the whole round,
        // and only within its deadline: a retry storm of known ids must not hold the round's other callers.
        Map<String, Job> existingJobs = new HashMap<>(); // the jobs re-pushed ids name, as far as known
        Set<String> unsure = readKnown(known, toStore, existingJobs, deadlineNanos);
        // far jobs (due beyond the horizon) stay in the journal; each is admitted to Redis only if its shard's
        // loader may have read past its row already (see TierProtocol)
        Map<String, Boolean> storedById = placement.place(toStore.values());
        readFromRedis(newIds, storedById, existingJobs);
        // only a committed row is durable without Redis: an async journal's row is in this process's memory
        boolean durableWithoutRedis = journal.mode() == JournalMode.SYNC;
        boolean async = journal.mode() == JournalMode.ASYNC;
        Set<String> answered202 = new LinkedHashSet<>();
        for (String id : newIds) {
            if (durableWithoutRedis || storedById.containsKey(id)) {
                listener.get().pushed(toStore.get(id).topic());
            }
        }
        List<Pushed> results = new ArrayList<>();
        Set<String> reported = new HashSet<>();
        for (int g = 0; g < groups.size(); g++) {
            List<Job> group = groups.get(g);
            if (failures[g] != null) {
                DelayQueueException failure = failures[g];
                for (int k = 0; k < group.size(); k++) {
                    results.add(new Pushed(null, k == 0 ? failure : null));
                }
                released[g] = true; // refused: nothing of it was handed to the journal
                continue;
            }
            DelayQueueException notStored = null;
            Set<String> notStoredIds = new HashSet<>();
            List<Pushed> mine = new ArrayList<>(group.size());
            for (Job job : group) {
                String id = job.id();
                Boolean stored = storedById.get(id);
                boolean first = reported.add(id);
                if (stored == null && toStore.containsKey(id) || unsure.contains(id)) {
                    // Redis did not take it (its shard failed): durable in the journal (sync), put into Redis once
                    // it answers again; without a journal, or in an async journal's memory only, the caller is told
                    // nothing was kept
                    notStoredIds.add(id);
                    if (!durableWithoutRedis && notStored == null) {
                        notStored = new DelayQueueException.Unavailable(
                                async
                                        ? "not written: Redis cannot take the job, and the async journal would hold"
                                                + " it only in this process's memory, so it was not kept (jobs of a"
                                                + " batch that Redis took are); retry with the same id"
                                        : "not written: Redis cannot take the job and there is no journal",
                                null);
                    }
                    mine.add(new Pushed(new PushResult(id, first && newIds.contains(id), false), null));
                } else {
                    boolean created = first && Boolean.TRUE.equals(stored) && newIds.contains(id);
                    Job named = null; // the job the id already names
                    if (!created) {
                        named = existingJobs.get(id);
                        if (named == null && Boolean.TRUE.equals(stored) && newIds.contains(id)) {
                            named = toStore.get(id); // created by this round's first push of the id
                        }
                    }
                    mine.add(new Pushed(new PushResult(id, created, true, named), null));
                }
            }
            released[g] = true;
            if (async && !pending.get(g).release(notStoredIds)) {
                notStored = new DelayQueueException.OutcomeUnknown(
                        "Redis cannot take the job, and the async journal had begun writing it before the push"
                                + " could withdraw it: it may be kept (and scheduled once Redis is back) or not;"
                                + " retry with the same id",
                        null);
            }
            if (durableWithoutRedis) {
                answered202.addAll(notStoredIds);
            }
            if (notStored != null) {
                for (int k = 0; k < group.size(); k++) {
                    results.add(new Pushed(null, k == 0 ? notStored : null));
                }
            } else {
                results.addAll(mine);
            }
        }
        readmissions.add(answered202);
        return results;
    }

    /**
     * Stores journaled jobs that a push could not put into Redis, as the push would have (near jobs pushed, far
     * ones admitted); returns the ids whose shard failed.
     */
    private Set<String> storeLate(List<Job> jobs) {
        Map<String, Boolean> byId = placement.place(jobs);
        Set<String> failed = new HashSet<>();
        for (Job job : jobs) {
            if (!byId.containsKey(job.id())) {
                failed.add(job.id());
            }
        }
        return failed;
    }

    /**
     * Reads from Redis the jobs of new ids that Redis already held (the journal did not know them: it is off, or
     * async), into {@code existingJobs}: one read per shard, made only when the round re-pushed such ids. When it
     * fails they are left out: their pushes are answered as retries, not compared.
     */
    private void readFromRedis(Set<String> newIds, Map<String, Boolean> storedById, Map<String, Job> existingJobs) {
        List<String> heldByRedis = new ArrayList<>();
        for (String id : newIds) {
            if (Boolean.FALSE.equals(storedById.get(id)) && !existingJobs.containsKey(id)) {
                heldByRedis.add(id);
            }
        }
        if (heldByRedis.isEmpty()) {
            return;
        }
        try {
            existingJobs.putAll(reads.findAll(heldByRedis));
        } catch (RuntimeException e) {
            log.debug("could not read {} re-pushed jobs from Redis: {}", heldByRedis.size(), e.getMessage());
        }
    }

    /** Jobs answered 202 that wait for Redis. */
    public Readmissions readmissions() {
        return readmissions;
    }

    /** Stops putting jobs answered 202 into Redis (the reconciler sees to those left). */
    public void close() {
        readmissions.close();
    }

    /**
     * Reads the journaled jobs of re-pushed ids in one call and adds the live ones to {@code toStore}. Returns the
     * ids it could not read (the journal failed, or the round's deadline had passed): durable all the same, and
     * the reconciler sees to any that Redis lacks. The jobs read go into {@code existingJobs}, final ones too.
     */
    private Set<String> readKnown(
            Set<String> known, Map<String, Job> toStore, Map<String, Job> existingJobs, long deadlineNanos) {
        if (known.isEmpty()) {
            return Set.of();
        }
        if (System.nanoTime() - deadlineNanos >= 0) {
            return known;
        }
        Map<String, Job> journaled;
        try {
            journaled = journal.findAll(known);
        } catch (DelayQueueException e) {
            log.debug("could not read {} re-pushed jobs from the journal: {}", known.size(), e.getMessage());
            return known;
        }
        for (String id : known) {
            Job j = journaled.get(id);
            if (j != null) {
                existingJobs.put(id, j);
            }
            if (j != null && !j.status().isFinal()) {
                toStore.put(id, JournalRestorer.restorable(j));
            }
        }
        return Set.of();
    }
}
