package io.delayqueue.queue.engine;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobIds;
import io.delayqueue.queue.coordination.Coordinator;
import io.delayqueue.queue.coordination.WakeUpChannel;
import io.delayqueue.queue.dispatch.Dispatcher;
import io.delayqueue.queue.engine.delete.DeleteProtocol;
import io.delayqueue.queue.engine.delete.Maintenance;
import io.delayqueue.queue.engine.failover.FailoverProtocol;
import io.delayqueue.queue.engine.handover.DeadLetters;
import io.delayqueue.queue.engine.handover.DispatchPipeline;
import io.delayqueue.queue.engine.handover.DueJobMover;
import io.delayqueue.queue.engine.handover.LatenessRecorder;
import io.delayqueue.queue.engine.handover.PullPath;
import io.delayqueue.queue.engine.handover.PullWaiters;
import io.delayqueue.queue.engine.handover.RunNow;
import io.delayqueue.queue.engine.handover.TopicRoutes;
import io.delayqueue.queue.engine.push.JobFactory;
import io.delayqueue.queue.engine.push.PushPath;
import io.delayqueue.queue.engine.restore.JournalRestorer;
import io.delayqueue.queue.engine.restore.Reconciler;
import io.delayqueue.queue.engine.retention.DeadLetterPurger;
import io.delayqueue.queue.engine.retention.JournalPurger;
import io.delayqueue.queue.engine.tier.TierLoader;
import io.delayqueue.queue.engine.tier.TierProtocol;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.store.JobStore;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Assembles the {@link DelayQueueEngine} from its parts and runs their lifecycle: checks the store and the
 * dispatchers against the configuration, constructs the collaborators in the order their dependencies need,
 * holds the listener they all report to, and starts and stops the coordinator, the wake-up channel, the
 * scanners, the tier loader, the reconciler's and journal retention's timers and the dispatch pipeline in the
 * order the engine's contracts need (see {@link #start} and {@link #close}).
 *
 * <p>Threading: constructed, started and closed on the caller's thread (the facade calls {@link #start} and
 * {@link #close} once each, guarded by its state); the threads it starts are the scanners' (one per shard, {@link
 * DueJobMover}), the tier loader's and its backfill ({@code delay-tier-loader}, {@code delay-tier-backfill}), and
 * the journal timers' ({@link JournalTimers}). The listener may be replaced on any thread at any time; every part
 * reads the one set now.
 */
final class EngineParts {
    /** The facade's logger: the engine's start and stop are logged under its name. */
    private static final Logger log = LoggerFactory.getLogger(DelayQueueEngine.class);

    final EngineConfig config;
    final JobStore store;
    final Coordinator coordinator;
    final WakeUpChannel wakeUps;
    final Journal journal;
    final TopicRoutes routes;
    final DispatchPipeline pipeline;
    final PullWaiters pullWaiters;
    final DeadLetters deadLetters;
    /** An operator's "run now". */
    final RunNow runNow;

    final LatenessRecorder lateness = new LatenessRecorder(LatenessRecorder.DEFAULT_WINDOW);
    final PushPath pushPath;
    final PullPath pullPath;
    final DueJobMover mover;
    final Maintenance maintenance;
    /** Every delete's protocol: one job, clearAll's batches, the reconciler's settling. */
    final DeleteProtocol deletes;

    final JournalRestorer restorer;
    /** Makes a new Redis master agree with the journal before its shards are scanned. */
    final FailoverProtocol failover;

    final StatsCollector stats;
    final ConsoleQueries console;
    final JournalTimers journalTimers;
    /** Loads far jobs from the journal ahead of time; {@code null} when every job is kept in Redis. */
    final TierLoader tierLoader;

    private final Clock clock;
    private volatile EngineListener listener = EngineListener.NONE;

    EngineParts(
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
        this.clock = clock;
        this.store = store;
        this.coordinator = coordinator;
        this.wakeUps = wakeUps;
        this.journal = journal;
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
        List<Dispatcher> callers = new ArrayList<>();
        for (Dispatcher d : dispatchers) {
            if (d.needsUrl()) {
                urlDispatchers.add(d.name());
                callers.add(d);
            }
        }
        // a url is checked by every dispatcher that calls urls, whatever its topic's route: routes change
        JobFactory jobFactory = new JobFactory(config, store::claimIdNode, urlDispatchers, url -> callers.stream()
                .map(d -> d.urlRefusal(url))
                .filter(Objects::nonNull)
                .findFirst()
                .orElse(null));
        this.pipeline = new DispatchPipeline(
                store,
                routes,
                byName,
                config,
                journal,
                clock,
                this::onScheduled,
                new CurrentListener(),
                lateness,
                this::capacityFreed);
        this.pullPath = new PullPath(config, store, journal, clock, pipeline, routes);
        this.pullWaiters =
                new PullWaiters(pullPath::tryReserve, config.pull().recheck().toMillis());
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
                () -> listener,
                this::agreeNewMaster);
        // far jobs are journaled only: that needs a push answered once its row is committed (the admit after the
        // commit is what closes the race with the loader), so only the sync journal tiers
        TierProtocol tiers = config.tier().horizon().isZero() || journal.mode() != JournalMode.SYNC
                ? null
                : new TierProtocol(
                        store, clock, config.tier().horizon().toMillis(), config.shards(), this::onScheduled);
        this.tierLoader = tiers == null
                ? null
                : new TierLoader(
                        journal,
                        tiers,
                        coordinator,
                        clock,
                        config.journal().pageSize(),
                        config.shards(),
                        mover.fences(),
                        this::onScheduled);
        // a restored job was due before it was put back: its hand-over is counted as restored, not as late
        this.restorer = new JournalRestorer(
                journal,
                store,
                clock,
                config.journal().pageSize(),
                job -> {
                    lateness.restoredBefore(clock.millis());
                    onScheduled(job);
                },
                tierLoader);
        this.failover = new FailoverProtocol(config, journal, store, coordinator, restorer, routes, tierLoader, clock);
        this.pushPath =
                new PushPath(config, store, journal, clock, jobFactory, tiers, () -> listener, this::onScheduled);
        Consumer<List<Job>> readmit = tiers == null ? jobs -> {} : tiers::readmit;
        this.deletes =
                new DeleteProtocol(config.shards(), store, journal, clock, readmit, this::onScheduled, () -> listener);
        Reconciler reconciler = new Reconciler(
                journal,
                store,
                coordinator,
                restorer,
                clock,
                config.journal().reconcileGrace().toMillis(),
                config.journal().pageSize(),
                config.shards(),
                deletes);
        this.deadLetters = new DeadLetters(config, store, journal, clock, this::onScheduled, deletes);
        this.runNow = new RunNow(config.shards(), store, journal, tiers, restorer, clock, this::onScheduled);
        DeadLetterPurger deadPurger = new DeadLetterPurger(
                store, deadLetters, coordinator, clock, config.dead().retention());
        this.journalTimers = new JournalTimers(config, journal, reconciler, purger, deadPurger);
        this.maintenance = new Maintenance(config, store, journal, clock, deletes);
        this.stats = new StatsCollector(
                config, store, journal, coordinator, clock, tierLoader, pipeline, pullWaiters, lateness);
        this.console = new ConsoleQueries(
                config,
                store,
                journal,
                coordinator,
                clock,
                tierLoader,
                shard -> mover.fences() instanceof ShardFences f ? f.currentEpoch(shard) : null);
    }

    /** The fail-over protocol's step for a scanner that found its shard on a new Redis master. */
    private void agreeNewMaster(int shard) {
        failover.agree(shard);
    }

    /** The listener set now. */
    EngineListener listener() {
        return listener;
    }

    void setListener(EngineListener listener) {
        this.listener = listener == null ? EngineListener.NONE : listener;
    }

    /** Hands each event to the listener set now (the pipeline is made before one is set). */
    private final class CurrentListener implements EngineListener {
        @Override
        public void handedOver(String topic, long latenessMs) {
            listener.handedOver(topic, latenessMs);
        }

        @Override
        public void restoredHandedOver(String topic) {
            listener.restoredHandedOver(topic);
        }

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

    /**
     * Starts the wake-up channel, the coordinator, one scanner thread per shard, the tier loader and the journal
     * timers, in that order.
     *
     * @param running whether the engine still runs: a purge pass stops between batches once it does not
     */
    void start(BooleanSupplier running) {
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
        // jobs due while no instance ran are handed over after the start: not late because of the queue
        lateness.restoredBefore(clock.millis());
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
        journalTimers.start(running);
    }

    /** A job landed in the store (restored). */
    private void onScheduled(Job job) {
        onScheduled(JobIds.shardOf(job.id(), config.shards()), job.executeAt());
    }

    /** A job of {@code shard} is due at {@code dueAt}: wakes the scanner of the shard (see {@link DueJobMover}). */
    private void onScheduled(int shard, long dueAt) {
        mover.onScheduled(shard, dueAt);
    }

    /** In-flight capacity was freed after a scanner found none: the scanners look again. */
    private void capacityFreed() {
        mover.wakeAllScanners();
    }

    private void ownershipChanged() {
        wakeUps.ownershipChanged();
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

        @Override
        public boolean owns(int shard) {
            return coordinator.owns(shard);
        }
    }

    /**
     * {@link DelayQueueEngine#close()} in its order: stops scanning and the timers, hands the shards over, answers
     * waiting consumers, waits (up to {@link EngineConfig#shutdownWait()}) for the sends in flight to be confirmed and
     * writes their acknowledgements, then closes the wake-up channel. Runs for a latent engine too (one that pushed
     * or served consumers without being started).
     */
    void close() {
        mover.stopScanners();
        journalTimers.stop();
        if (tierLoader != null) {
            tierLoader.stop();
        }
        // the scanners stopped: the other instances may take the shards while the sends in flight finish (they
        // leave those jobs alone until their reservations expire)
        coordinator.close();
        pullWaiters.close();
        pipeline.close(config.dispatch().shutdownWait());
        pushPath.close();
        // after the sends: a retry or put-back they schedule wakes the shard's new owner
        wakeUps.close();
        log.info("delay-queue engine stopped");
    }
}
