package io.delayqueue.queue.engine;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.Job;
import io.delayqueue.common.PushRequest;
import io.delayqueue.queue.coordination.Coordinator;
import io.delayqueue.queue.coordination.WakeUpChannel;
import io.delayqueue.queue.dispatch.Dispatcher;
import io.delayqueue.queue.engine.delete.DeleteProtocol;
import io.delayqueue.queue.engine.delete.Maintenance;
import io.delayqueue.queue.engine.handover.DeadLetters;
import io.delayqueue.queue.engine.handover.DispatchLanes;
import io.delayqueue.queue.engine.handover.DispatchPipeline;
import io.delayqueue.queue.engine.handover.DueJobMover;
import io.delayqueue.queue.engine.handover.FinishOutcome;
import io.delayqueue.queue.engine.handover.PullPath;
import io.delayqueue.queue.engine.handover.PullSettings;
import io.delayqueue.queue.engine.handover.PullWaiters;
import io.delayqueue.queue.engine.handover.RunNow;
import io.delayqueue.queue.engine.push.PushPath;
import io.delayqueue.queue.engine.push.PushResult;
import io.delayqueue.queue.engine.restore.JournalRestorer;
import io.delayqueue.queue.engine.restore.RestoreReport;
import io.delayqueue.queue.engine.retention.PurgeReport;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.store.JobStore;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The delay queue: accepts jobs, runs one {@link io.delayqueue.queue.engine.handover.ShardScanner} per owned shard
 * that hands due jobs over at their due time, serves pull consumers, and settles every outcome through the {@link
 * JobStore}.
 *
 * <p>Lifecycle as in Curator's recipes: {@code LATENT -> STARTED -> CLOSED}, guarded by a compare-and-set.
 * Pushing, pulling and deleting work in any state but {@code CLOSED}; only a started engine scans. Tests
 * drive a latent engine by hand with {@link #runDueJobs()} and a manual {@link Clock}.
 *
 * <p>A facade: the work is done by collaborators in one subpackage per protocol (public only for this package's
 * wiring): {@link PushPath} (combined, journal-first pushes), {@link DueJobMover} (scanners, owner epochs, hand-over),
 * {@link DispatchPipeline} (sends and their acknowledgements), {@link PullWaiters} (pull consumers), {@link PullPath}
 * (reservations and finishes), {@link DeadLetters}, {@link Maintenance} (deletes, clearAll), {@link JournalRestorer}
 * (restores), {@link StatsCollector} (stats) and {@link JournalTimers} (the reconciler and journal retention). {@link
 * EngineParts} constructs them and starts and stops them in order. This class keeps the public API and its contracts,
 * the argument checks and the lifecycle's state. Thread-safe: the API is called on the callers' threads; the engine's
 * own threads are those {@link EngineParts} starts.
 */
public final class DelayQueueEngine implements AutoCloseable {
    private enum State {
        LATENT,
        STARTED,
        CLOSED
    }

    private final EngineParts parts;
    private final EngineConfig config;
    private final JobStore store;
    private final Journal journal;

    private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);

    public DelayQueueEngine(
            EngineConfig config,
            JobStore store,
            List<? extends Dispatcher> dispatchers,
            Coordinator coordinator,
            Journal journal,
            Clock clock) {
        this(config, store, dispatchers, coordinator, journal, clock, WakeUpChannel.NONE);
    }

    /**
     * @param wakeUps carries wake-ups to and from the other instances of the queue (pushes landing in shards
     *     scanned elsewhere, jobs made ready for consumers waiting elsewhere); {@link WakeUpChannel#NONE}
     *     for a standalone instance
     */
    public DelayQueueEngine(
            EngineConfig config,
            JobStore store,
            List<? extends Dispatcher> dispatchers,
            Coordinator coordinator,
            Journal journal,
            Clock clock,
            WakeUpChannel wakeUps) {
        this.parts = new EngineParts(config, store, dispatchers, coordinator, journal, clock, wakeUps);
        this.config = config;
        this.store = store;
        this.journal = journal;
    }

    public EngineConfig config() {
        return config;
    }

    /** Sends in flight per dispatcher name, now (dispatchers with none are left out). */
    public Map<String, Integer> inFlightByDispatcher() {
        return parts.pipeline.lanes().inFlightByDispatcher();
    }

    /** The in-flight limits below the global one, for tests. */
    DispatchLanes dispatchLanes() {
        return parts.pipeline.lanes();
    }

    /** Jobs put back unsent since start because they found no room, for tests. */
    long putBacks() {
        return parts.pipeline.deferred();
    }

    /** The dead letters: list them per topic, requeue them. */
    public DeadLetters deadLetters() {
        ensureOpen();
        return parts.deadLetters;
    }

    /** Who hears what happens to jobs (metrics), from now on. */
    public void setListener(EngineListener listener) {
        parts.setListener(listener);
    }

    /** Starts the coordinator and one scanner thread per shard. */
    public void start() {
        if (!state.compareAndSet(State.LATENT, State.STARTED)) {
            throw new IllegalStateException("engine can only be started once");
        }
        parts.start(this::isRunning);
    }

    /**
     * One pass of journal retention by hand (a started engine runs one every {@link EngineConfig#purgeInterval()}
     * when {@link EngineConfig#journalRetention()} is set): final jobs last updated more than the retention ago are
     * deleted from the journal with their history, batch by batch, when this instance owns shard 0.
     */
    public PurgeReport purgeJournalNow() {
        return parts.journalTimers.purgeJournalNow(() -> state.get() != State.CLOSED);
    }

    /**
     * One pass of dead-letter retention by hand (a started engine runs one every {@link
     * io.delayqueue.queue.journal.JournalSettings#purgeInterval()} when {@code delay.dead.retention} is set): dead
     * letters of the shards this instance owns whose last delivery was due more than the retention ago are deleted.
     *
     * @return dead letters deleted
     */
    public long purgeDeadLettersNow() {
        return parts.journalTimers.purgeDeadLettersNow(() -> state.get() != State.CLOSED);
    }

    /**
     * One tier-loader pass by hand over the owned shards: far jobs now within the horizon are loaded from the
     * journal (a started engine does this itself). For tests with a manual clock.
     *
     * @return jobs loaded
     */
    public int loadTierNow() {
        return parts.tierLoader == null ? 0 : parts.tierLoader.loadOwnedShards();
    }

    /** Whether far jobs are kept in the journal only: a horizon, and a sync journal. */
    public boolean tiered() {
        return parts.tierLoader != null;
    }

    /** One reconciler pass by hand (a started engine runs them every reconcile interval). */
    public long reconcileNow() {
        return parts.journalTimers.reconcileNow();
    }

    /**
     * One pass by hand of putting jobs answered 202 into Redis (they are put there on a thread of their own as soon as
     * Redis answers); returns the ids it settled.
     */
    int readmitNow() {
        return parts.pushPath.readmissions().readmitOnce();
    }

    public boolean isRunning() {
        return state.get() == State.STARTED;
    }

    // ---- push ----

    /** Pushes one job; validation errors name the field. */
    public PushResult push(PushRequest request) {
        return timed(() -> {
                    ensureOpen();
                    return parts.pushPath.pushAll(List.of(request), "");
                })
                .get(0);
    }

    /** Pushes up to {@code maxBatchSize} jobs; a bad job rejects the whole batch, naming {@code [i].field}. */
    public List<PushResult> pushBatch(List<PushRequest> requests) {
        if (requests == null || requests.isEmpty()) {
            throw new DelayQueueException.InvalidField("jobs", "must hold at least one job");
        }
        if (requests.size() > config.limits().maxBatchSize()) {
            throw new DelayQueueException.InvalidField(
                    "jobs",
                    "holds " + requests.size() + " jobs, over the limit of "
                            + config.limits().maxBatchSize());
        }
        return timed(() -> {
            ensureOpen();
            return parts.pushPath.pushAll(requests, null);
        });
    }

    /** Runs one caller's push and tells the listener how long its answer took. */
    private List<PushResult> timed(java.util.function.Supplier<List<PushResult>> push) {
        long started = System.nanoTime();
        boolean succeeded = false;
        try {
            List<PushResult> results = push.get();
            succeeded = true;
            return results;
        } finally {
            parts.listener().pushAnswered(System.nanoTime() - started, succeeded);
        }
    }

    // ---- pull ----

    /**
     * Reserves the next ready job of a pull topic for its TTR, waiting up to {@code timeoutMs} for one.
     * Completes with empty when none came in time.
     */
    public CompletableFuture<Optional<Job>> reserve(String topic, long timeoutMs) {
        return reserve(topic, 1, timeoutMs).thenApply(jobs -> jobs.stream().findFirst());
    }

    /**
     * Reserves up to {@code count} (at most {@link PullSettings#MAX_COUNT}) ready jobs of a pull topic, each for
     * its TTR, waiting up to {@code timeoutMs} for one: completes with those ready now, else with those found once
     * some became ready, else empty at the timeout. Each ready job is reserved by one call only. A future complete
     * when returned was answered without waiting.
     */
    public CompletableFuture<List<Job>> reserve(String topic, int count, long timeoutMs) {
        ensureOpen();
        parts.pullPath.checkReserve(topic, count, timeoutMs);
        return parts.pullWaiters.await(topic, count, timeoutMs);
    }

    /** Acknowledges a reserved job in whichever attempt it is. Finishing a finished job again is fine. */
    public void finish(String id) {
        finish(id, null);
    }

    /**
     * Acknowledges a reserved job. With {@code attempts} (the job's {@code attempts} as the consumer reserved
     * it), only while the job is still in that attempt: once that reservation expired and the job went on (it
     * is ready again or reserved by another consumer), the finish is ignored, counted, and answered as a
     * conflict, and the later attempt's own finish is the one that counts. Finishing a finished job again is
     * fine.
     *
     * @param attempts the attempt the consumer holds, or {@code null} for whichever the job is in
     */
    public void finish(String id, Integer attempts) {
        ensureOpen();
        requireId(id);
        if (attempts != null && attempts < 0) {
            throw new DelayQueueException.InvalidField("attempts", "must be at least 0");
        }
        parts.pullPath.finish(id, attempts);
    }

    /**
     * Acknowledges reserved jobs of any shards, up to {@link PullSettings#MAX_COUNT}, each as {@link #finish(String,
     * Integer)} does ({@link io.delayqueue.queue.store.Attempt#ANY} for whichever attempt): one outcome per job, in
     * order; a stale attempt is refused for its job alone. A shard whose Redis call failed answers {@code UNKNOWN}
     * for its jobs, the others are settled; when every shard failed, this throws as a single finish does.
     */
    public List<FinishOutcome> finishAll(List<io.delayqueue.queue.store.Attempt> attempts) {
        ensureOpen();
        return parts.pullPath.finishAll(attempts);
    }

    // ---- delete, look-up ----

    /**
     * Cancels a job that has not been handed over. Once this returns, the job is never delivered and its
     * {@code DELETED} is committed in the journal. A job being delivered ({@code RESERVED}) or already final
     * cannot be deleted; deleting twice is fine.
     *
     * <p>Redis first, then the journal, then Redis again: the job is made {@code DELETED} in Redis, pending (so
     * nothing delivers it while the journal commits), then {@code DELETED} is committed, then the delete is
     * confirmed in Redis. When the journal refuses, the delete is undone in Redis and the job is live in both
     * stores again (503); when the journal's answer is unknown, the job stays held in Redis until a retried
     * delete or the reconciler settles it by what the journal holds (504). A job only the journal holds (Redis
     * lost it) is deleted through a tombstone in Redis, so no restore brings it back. Overlapping deletes of one job
     * each hold it: a refused one lets go of its own hold only. Where Redis has replicas, the answer waits until one
     * took the delete (504 with the id when none did in time). The whole protocol: {@link DeleteProtocol}.
     */
    public void delete(String id) {
        ensureOpen();
        requireId(id);
        parts.deletes.delete(id);
    }

    /**
     * Makes a {@code DELAY} job due at once (an operator's "run now"): its status and attempts stay, its due time is
     * now, journaled as {@code DUE_NOW}. A far job of the journal tier has its due time committed in the journal, then
     * is loaded into Redis. The whole protocol: {@link RunNow}.
     *
     * @throws DelayQueueException.JobNotFound when no store knows it
     * @throws DelayQueueException.StateConflict when it is not {@code DELAY} (409 naming its status)
     */
    public RunNow.Result runNow(String id) {
        ensureOpen();
        requireId(id);
        return parts.runNow.run(id);
    }

    /**
     * The job as Redis has it, else as the journal last saw it (a far job in the journal tier, or a finished job
     * past its retention).
     */
    public Job get(String id) {
        return locate(id).job();
    }

    /** The job and where it was found. */
    private record Located(Job job, String tier) {}

    private Located locate(String id) {
        requireId(id);
        Optional<Job> inRedis = store.find(id);
        if (inRedis.isPresent()) {
            return new Located(inRedis.get(), JobDetails.REDIS);
        }
        return journal.find(id)
                .map(j -> new Located(j, JobDetails.JOURNAL))
                .orElseThrow(() -> new DelayQueueException.JobNotFound(id));
    }

    /** The job, the tier it was found in, and its journaled transitions, oldest first (empty without a journal). */
    public JobDetails details(String id) {
        Located located = locate(id);
        return new JobDetails(located.job(), located.tier(), journal.history(id), lastError(id));
    }

    /** The job's last error as the journal has it; null without one, or when the journal cannot say. */
    private String lastError(String id) {
        try {
            return journal.lastErrors(List.of(id)).get(id);
        } catch (RuntimeException e) {
            return null;
        }
    }

    // ---- restore ----

    /**
     * Puts every non-final journaled job that Redis lacks back into Redis, page by page, without wiping
     * anything; running it twice changes nothing. {@code expire=false} skips jobs whose due time passed.
     */
    public RestoreReport restore(boolean expire) {
        ensureOpen();
        return parts.restorer.restoreUpToHorizon(expire);
    }

    /** Restores one job from the journal if Redis lacks it. */
    public RestoreReport restoreJob(String id) {
        ensureOpen();
        requireId(id);
        return parts.restorer.restoreJob(id);
    }

    /**
     * Deletes every job not handed over yet ({@code DELAY}, {@code READY}), in Redis and in the journal alike:
     * each batch is deleted pending in Redis, committed in the journal, then confirmed (see {@link
     * #delete(String)}); jobs only the journal holds get tombstones. Jobs being delivered ({@code RESERVED}) are
     * left to finish. When the journal fails, the batch in hand is undone (or held, when the journal's answer is
     * unknown) and the error says how many were deleted before it; calling again goes on.
     *
     * @return jobs deleted
     */
    public long clearAll() {
        ensureOpen();
        return parts.maintenance.clearAll();
    }

    public EngineStats stats() {
        return parts.stats.collect();
    }

    /** What the web console reads beside {@link #stats()}: the job browser, the topics and the cluster. */
    public ConsoleQueries console() {
        return parts.console;
    }

    // ---- scanning ----

    /**
     * Hands over every job due now in the owned shards, waits for their sends and writes the
     * acknowledgements. For tests with a manual clock and for tools; a started engine does this itself.
     *
     * @return jobs handed over (dispatched or made ready)
     */
    public int runDueJobs() {
        return parts.mover.runDueJobs();
    }

    private void ensureOpen() {
        if (state.get() == State.CLOSED) {
            throw new DelayQueueException.Unavailable("the delay queue is shutting down", null);
        }
    }

    private static void requireId(String id) {
        if (id == null || id.isBlank()) {
            throw new DelayQueueException.InvalidField("jobId", "is required");
        }
    }

    /**
     * Stops scanning, hands the shards over, answers waiting consumers, waits (up to {@link
     * EngineConfig#shutdownWait()}) for the sends in flight to be confirmed and writes their acknowledgements,
     * so that a graceful restart delivers none of them again. The journal, closed after the engine, commits them.
     */
    @Override
    public void close() {
        State previous = state.getAndSet(State.CLOSED);
        if (previous == State.CLOSED) {
            return;
        }
        parts.close();
    }
}
