package io.delayqueue.queue.engine;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.Job;
import io.delayqueue.common.JobIds;
import io.delayqueue.common.PushRequest;
import io.delayqueue.queue.coordination.Coordinator;
import io.delayqueue.queue.coordination.WakeUpChannel;
import io.delayqueue.queue.dispatch.Dispatcher;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.store.JobStore;
import java.time.Clock;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The delay queue: accepts jobs, runs one {@link ShardScanner} per owned shard that hands due jobs over at
 * their due time, serves pull consumers, and settles every outcome through the {@link JobStore}.
 *
 * <p>Lifecycle as in Curator's recipes: {@code LATENT -> STARTED -> CLOSED}, guarded by a compare-and-set.
 * Pushing, pulling and deleting work in any state but {@code CLOSED}; only a started engine scans. Tests
 * drive a latent engine by hand with {@link #runDueJobs()} and a manual {@link Clock}.
 *
 * <p>A facade: the work is done by package-private collaborators: {@link PushPath} (combined, journal-first
 * pushes), {@link DueJobMover} (scanners, owner epochs, hand-over), {@link DispatchPipeline} (sends and their
 * acknowledgements), {@link PullWaiters} (pull consumers), {@link DeadLetters} and {@link Maintenance} (deletes,
 * restores, clearAll, reconciler and purge timers, stats), {@link PullPath} (reservations and finishes). This class keeps the public API and its contracts,
 * the argument checks, the wiring of the collaborators and the lifecycle (the order of start and close). It is
 * longer than the house guide of about 350 lines because of those contracts and that wiring (moving the wiring to
 * a builder of its own is left for later).
 */
public final class DelayQueueEngine implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(DelayQueueEngine.class);

    private enum State {
        LATENT,
        STARTED,
        CLOSED
    }

    private final EngineConfig config;
    private final JobStore store;
    private final Coordinator coordinator;
    private final WakeUpChannel wakeUps;
    private final Journal journal;
    private final Clock clock;
    private final TopicRoutes routes;
    private final JobFactory jobFactory;
    private final DispatchPipeline pipeline;
    private final PullWaiters pullWaiters;
    private final DeadLetters deadLetters;
    private final LatenessRecorder lateness = new LatenessRecorder(LatenessRecorder.DEFAULT_WINDOW);
    private volatile EngineListener listener = EngineListener.NONE;
    private final PushPath pushPath;
    private final PullPath pullPath;
    private final DueJobMover mover;
    private final Maintenance maintenance;
    /** Loads far jobs from the journal ahead of time; {@code null} when every job is kept in Redis. */
    private final TierLoader tierLoader;

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
        if (store.shards() != config.shards()) {
            throw new IllegalArgumentException(
                    "store has " + store.shards() + " shards, configuration " + config.shards());
        }
        this.config = config;
        this.store = store;
        this.coordinator = coordinator;
        this.wakeUps = wakeUps;
        this.journal = journal;
        this.clock = clock;
        this.routes = new TopicRoutes(
                config.dispatch().defaultDispatcher(), config.dispatch().topics());
        Map<String, Dispatcher> byName = new HashMap<>();
        for (Dispatcher d : dispatchers) {
            if (byName.put(d.name(), d) != null) {
                throw new IllegalArgumentException("two dispatchers are named " + d.name());
            }
        }
        for (String name : routes.pushDispatchers()) {
            if (!byName.containsKey(name)) {
                throw new IllegalArgumentException("topics are routed to dispatcher '" + name
                        + "', which does not exist (known: " + new TreeMap<>(byName).keySet()
                        + ", pull; rocketmq needs delay.rocketmq.namesrv, activemq needs delay.activemq.url)");
            }
        }
        Set<String> urlDispatchers = new HashSet<>();
        for (Dispatcher d : dispatchers) {
            if (d.needsUrl()) {
                urlDispatchers.add(d.name());
            }
        }
        this.jobFactory = new JobFactory(config, store::claimIdNode, urlDispatchers);
        this.pipeline = new DispatchPipeline(
                store, routes, byName, config, journal, clock, this::onScheduled, new CurrentListener());
        this.deadLetters = new DeadLetters(config, store, journal, clock, this::onScheduled);
        this.pullPath = new PullPath(config, store, journal, clock, pipeline);
        this.pullWaiters =
                new PullWaiters(pullPath::tryReserve, config.pull().recheck().toMillis());
        JournalRestorer restorer =
                new JournalRestorer(journal, store, clock, config.journal().pageSize(), this::onScheduled);
        JournalPurger purger = new JournalPurger(
                journal,
                coordinator,
                clock,
                config.journal().retention(),
                config.journal().purgeBatchSize(),
                config.journal().purgePause(),
                Thread::sleep,
                System::nanoTime,
                new CurrentListener());
        this.mover = new DueJobMover(
                config,
                store,
                coordinator,
                wakeUps,
                journal,
                clock,
                routes,
                pipeline,
                pullWaiters,
                lateness,
                () -> listener);
        // far jobs are journaled only: that needs a push answered once its row is committed (the admit after the
        // commit is what closes the race with the loader), so only the sync journal tiers
        this.tierLoader = config.tier().horizon().isZero() || journal.mode() != JournalMode.SYNC
                ? null
                : new TierLoader(
                        journal,
                        store,
                        coordinator,
                        clock,
                        config.tier().horizon().toMillis(),
                        config.journal().pageSize(),
                        config.shards(),
                        mover,
                        this::onScheduled);
        this.pushPath =
                new PushPath(config, store, journal, clock, jobFactory, tierLoader, () -> listener, this::onScheduled);
        Reconciler reconciler = new Reconciler(
                journal,
                store,
                coordinator,
                restorer,
                clock,
                config.journal().reconcileGrace().toMillis(),
                config.journal().pageSize(),
                config.shards(),
                this::onScheduled,
                new CurrentListener(),
                pushPath::readmit);
        this.maintenance = new Maintenance(
                config,
                store,
                journal,
                coordinator,
                clock,
                restorer,
                reconciler,
                purger,
                tierLoader,
                pushPath,
                pipeline,
                pullWaiters,
                lateness,
                this::onScheduled,
                () -> listener);
    }

    public EngineConfig config() {
        return config;
    }

    /** Sends in flight per dispatcher name, now (dispatchers with none are left out). */
    public Map<String, Integer> inFlightByDispatcher() {
        return pipeline.lanes().inFlightByDispatcher();
    }

    /** The in-flight limits below the global one, for tests. */
    DispatchLanes dispatchLanes() {
        return pipeline.lanes();
    }

    /** The dead letters: list them per topic, requeue them. */
    public DeadLetters deadLetters() {
        ensureOpen();
        return deadLetters;
    }

    /** Hands each event to the listener set now (the pipeline is made before one is set). */
    private final class CurrentListener implements EngineListener {
        @Override
        public void sendFailed(String topic) {
            listener.sendFailed(topic);
        }

        @Override
        public void retried(String topic) {
            listener.retried(topic);
        }

        @Override
        public void dead(String topic) {
            listener.dead(topic);
        }

        @Override
        public void deleted(String topic) {
            listener.deleted(topic);
        }

        @Override
        public void journalPurged(int jobRows, int logRows) {
            listener.journalPurged(jobRows, logRows);
        }
    }

    /** Who hears what happens to jobs (metrics), from now on. */
    public void setListener(EngineListener listener) {
        this.listener = listener == null ? EngineListener.NONE : listener;
    }

    /** Starts the coordinator and one scanner thread per shard. */
    public void start() {
        if (!state.compareAndSet(State.LATENT, State.STARTED)) {
            throw new IllegalStateException("engine can only be started once");
        }
        log.info(
                "delay-queue engine starting: {} shards, default dispatcher {}, routes {}, journal {} (final jobs"
                        + " kept {}), role {}; in flight at most {} in all, {} per dispatcher, {} per topic",
                config.shards(),
                config.dispatch().defaultDispatcher(),
                config.dispatch().topics(),
                journal.mode(),
                config.journal().retention().isZero()
                        ? "forever"
                        : config.journal().retention(),
                coordinator.role(),
                config.dispatch().maxInFlight(),
                pipeline.lanes().perDispatcher(),
                pipeline.lanes().perTopic());
        wakeUps.start(new RemoteWakeUps());
        coordinator.start(this::ownershipChanged);
        mover.startScanners();
        if (tierLoader != null) {
            log.info(
                    "tiers: jobs due beyond {} ms live in the journal and are loaded every {} ms",
                    tierLoader.horizonMs(),
                    tierLoader.sleepMs());
            Thread loader = new Thread(tierLoader, "delay-tier-loader");
            loader.setDaemon(true);
            loader.start();
            Thread backfill = new Thread(tierLoader::assignMissingShards, "delay-tier-backfill");
            backfill.setDaemon(true);
            backfill.start();
        }
        maintenance.startTimers(this::isRunning);
    }

    /**
     * One pass of journal retention by hand (a started engine runs one every {@link EngineConfig#purgeInterval()}
     * when {@link EngineConfig#journalRetention()} is set): final jobs last updated more than the retention ago are
     * deleted from the journal with their history, batch by batch, when this instance owns shard 0.
     */
    public PurgeReport purgeJournalNow() {
        return maintenance.purgeJournalNow(() -> state.get() != State.CLOSED);
    }

    /**
     * One tier-loader pass by hand over the owned shards: far jobs now within the horizon are loaded from the
     * journal (a started engine does this itself). For tests with a manual clock.
     *
     * @return jobs loaded
     */
    public int loadTierNow() {
        return tierLoader == null ? 0 : tierLoader.loadOwnedShards();
    }

    /** Whether far jobs are kept in the journal only: a horizon, and a sync journal. */
    public boolean tiered() {
        return tierLoader != null;
    }

    /** One reconciler pass by hand (a started engine runs them every reconcile interval). */
    public long reconcileNow() {
        return maintenance.reconcileNow();
    }

    public boolean isRunning() {
        return state.get() == State.STARTED;
    }

    // ---- push ----

    /** Pushes one job; validation errors name the field. */
    public PushResult push(PushRequest request) {
        return timed(() -> {
                    ensureOpen();
                    return pushPath.pushAll(List.of(request), "");
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
            return pushPath.pushAll(requests, null);
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
            listener.pushAnswered(System.nanoTime() - started, succeeded);
        }
    }

    /** A job landed in the store (restored). */
    private void onScheduled(Job job) {
        onScheduled(JobIds.shardOf(job.id(), config.shards()), job.executeAt());
    }

    // ---- pull ----

    /**
     * Reserves the next ready job of a pull topic for its TTR, waiting up to {@code timeoutMs} for one.
     * Completes with empty when none came in time.
     */
    public CompletableFuture<Optional<Job>> reserve(String topic, long timeoutMs) {
        ensureOpen();
        if (topic == null || !JobFactory.TOPIC.matcher(topic).matches()) {
            throw new DelayQueueException.InvalidField("topic", "must match [A-Za-z0-9._-]{1,64}");
        }
        if (!routes.isPull(topic)) {
            throw new DelayQueueException.InvalidField(
                    "topic",
                    topic + " is not a pull topic (it is dispatched to '" + routes.dispatcherOf(topic)
                            + "'); set delay.dispatch.topics." + topic + "=pull");
        }
        long max = config.pull().maxTimeout().toMillis();
        if (timeoutMs < 0 || timeoutMs > max) {
            throw new DelayQueueException.InvalidField("timeout", "must be between 0 and " + max + " ms");
        }
        return pullWaiters.await(topic, timeoutMs);
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
        pullPath.finish(id, attempts);
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
     * lost it) is deleted through a tombstone in Redis, so no restore brings it back.
     */
    public void delete(String id) {
        ensureOpen();
        requireId(id);
        maintenance.delete(id);
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
        return new JobDetails(located.job(), located.tier(), journal.history(id));
    }

    // ---- restore ----

    /**
     * Puts every non-final journaled job that Redis lacks back into Redis, page by page, without wiping
     * anything; running it twice changes nothing. {@code expire=false} skips jobs whose due time passed.
     */
    public RestoreReport restore(boolean expire) {
        ensureOpen();
        return maintenance.restore(expire);
    }

    /** Restores one job from the journal if Redis lacks it. */
    public RestoreReport restoreJob(String id) {
        ensureOpen();
        requireId(id);
        return maintenance.restoreJob(id);
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
        return maintenance.clearAll();
    }

    public EngineStats stats() {
        return maintenance.stats();
    }

    // ---- scanning ----

    /**
     * Hands over every job due now in the owned shards, waits for their sends and writes the
     * acknowledgements. For tests with a manual clock and for tools; a started engine does this itself.
     *
     * @return jobs handed over (dispatched or made ready)
     */
    public int runDueJobs() {
        return mover.runDueJobs();
    }

    /** A job of {@code shard} is due at {@code dueAt}: wakes the scanner of the shard (see {@link DueJobMover}). */
    private void onScheduled(int shard, long dueAt) {
        mover.onScheduled(shard, dueAt);
    }

    private void ownershipChanged() {
        mover.wakeAllScanners();
        if (tierLoader != null) {
            tierLoader.wakeNow();
        }
    }

    /** What the other instances tell this one. */
    private final class RemoteWakeUps implements WakeUpChannel.Listener {
        @Override
        public void scheduled(int shard, long dueAt) {
            mover.scheduledElsewhere(shard, dueAt);
        }

        @Override
        public void ready(String topic) {
            pullWaiters.signal(topic);
        }

        @Override
        public void resynchronize() {
            mover.wakeAllScanners();
        }
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
        mover.stopScanners();
        maintenance.stopTimers();
        if (tierLoader != null) {
            tierLoader.stop();
        }
        // the scanners stopped: the other instances may take the shards while the sends in flight finish (they
        // leave those jobs alone until their reservations expire)
        coordinator.close();
        pullWaiters.close();
        pipeline.close(config.dispatch().shutdownWait());
        // after the sends: a retry or put-back they schedule wakes the shard's new owner
        wakeUps.close();
        log.info("delay-queue engine stopped");
    }
}
