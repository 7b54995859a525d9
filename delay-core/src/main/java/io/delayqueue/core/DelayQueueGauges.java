package io.delayqueue.core;

import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.coordination.Coordinator;
import io.delayqueue.queue.engine.DelayQueueEngine;
import io.delayqueue.queue.engine.EngineStats;
import io.delayqueue.queue.engine.handover.DispatchSettings;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.journal.mybatis.MyBatisJournal;
import io.delayqueue.queue.store.ShardStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The meters of {@link DelayQueueMetrics} that are read rather than counted as things happen: the queue's
 * contents (from {@link DelayQueueEngine#stats()}, read at most once per {@link #STATS_TTL} however many gauges
 * a scrape reads), the sends in flight, the HA role and owned shards, and the journal's backlog, lag and
 * totals.
 *
 * <p>Threading: {@link #bindTo} once; after it, a scrape reads the gauges on its own thread, and the
 * {@code delay-metrics} thread re-reads the gauges of the queue's contents every {@link #REFRESH} until
 * {@link #close()}.
 */
final class DelayQueueGauges implements AutoCloseable {
    static final Duration STATS_TTL = Duration.ofSeconds(1);
    /** How often the gauges of the queue's contents are read from the engine. */
    static final Duration REFRESH = Duration.ofSeconds(5);

    private static final Logger log = LoggerFactory.getLogger(DelayQueueGauges.class);

    private final DelayQueueEngine engine;
    private final Coordinator coordinator;
    private final Journal journal;
    private final Set<String> dispatchers;
    private final TopicLabels topics;
    private final AtomicReference<Stats> stats = new AtomicReference<>();
    private MultiGauge jobsByStatus;
    private MultiGauge bucketSizes;
    private MultiGauge readyByTopic;
    private MultiGauge inFlight;
    private MultiGauge deadByTopic;
    private MultiGauge pendingByTier;
    private final ScheduledExecutorService refresher = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "delay-metrics");
        t.setDaemon(true);
        return t;
    });

    private record Stats(long readAtNanos, EngineStats engine) {}

    /** @param dispatchers the names of the dispatchers sends go to (each gets an in-flight gauge, 0 when idle) */
    DelayQueueGauges(
            DelayQueueEngine engine,
            Coordinator coordinator,
            Journal journal,
            Set<String> dispatchers,
            TopicLabels topics) {
        this.engine = engine;
        this.coordinator = coordinator;
        this.journal = journal;
        this.dispatchers = Set.copyOf(dispatchers);
        this.topics = topics;
    }

    void bindTo(MeterRegistry registry) {
        jobsByStatus = MultiGauge.builder("delay.jobs")
                .description("jobs in Redis per status (final ones until their retention ends)")
                .register(registry);
        bucketSizes = MultiGauge.builder("delay.bucket.size")
                .description("entries of a shard's delay bucket (DELAY jobs and RESERVED deadlines)")
                .register(registry);
        readyByTopic = MultiGauge.builder("delay.ready.jobs")
                .description("jobs in a pull topic's ready lists")
                .register(registry);
        pendingByTier = MultiGauge.builder("delay.pending.jobs")
                .description("DELAY jobs per tier: in Redis, and in the journal only (due beyond the tier horizon; a"
                        + " count taken in the background at most once a minute)")
                .register(registry);
        deadByTopic = MultiGauge.builder("delay.dead.jobs")
                .description("dead letters per topic (the topics that have a label of their own)")
                .register(registry);
        inFlight = MultiGauge.builder("delay.dispatch.in.flight")
                .description("sends handed to a dispatcher and not confirmed yet")
                .register(registry);
        Gauge.builder("delay.ha.owned.shards", this, g -> g.ownedShards())
                .description("shards this instance scans now")
                .register(registry);
        // what the owned shards of all instances must add up to: a shard short is one that no instance scans
        Gauge.builder("delay.shards", engine.config(), c -> c.shards())
                .description("shards of the queue (delay.shards): the owned shards of its instances add up to it")
                .register(registry);
        for (String role : List.of("standalone", "leader", "follower", "member", "disconnected", "stopped")) {
            Gauge.builder("delay.ha.role", coordinator, c -> c.role().equals(role) ? 1 : 0)
                    .description("1 for the role this instance has now")
                    .tag("role", role)
                    .register(registry);
        }
        FunctionCounter.builder("delay.dispatched", this, g -> g.stats().dispatched())
                .description("sends confirmed by their dispatcher")
                .register(registry);
        FunctionCounter.builder("delay.dispatch.failures", this, g -> g.stats().dispatchFailures())
                .description("sends that failed")
                .register(registry);
        Gauge.builder("delay.pull.waiting", this, g -> g.stats().pullWaiting())
                .description("consumers waiting in GET /get/{topic}")
                .register(registry);
        if (journal instanceof MyBatisJournal j) {
            FunctionCounter.builder("delay.journal.commits", j, MyBatisJournal::commits)
                    .description("journal transactions committed")
                    .register(registry);
            FunctionCounter.builder("delay.journal.rows", j, MyBatisJournal::rowsWritten)
                    .description("journal rows written (rows per commit: rate of this over rate of commits)")
                    .register(registry);
            FunctionCounter.builder("delay.journal.transient.failures", j, MyBatisJournal::transientFailures)
                    .description("journal commits that failed and were written again")
                    .register(registry);
            FunctionCounter.builder("delay.journal.refused.entries", j, MyBatisJournal::refusedEntries)
                    .description("journal entries the database refused for what they hold (their callers got a 4xx)")
                    .register(registry);
            FunctionCounter.builder("delay.journal.dropped.rows", j, MyBatisJournal::droppedRows)
                    .description("rows of transitions not journaled because the journal's backlog was full (Redis"
                            + " kept their state; the reconciler writes final states back)")
                    .register(registry);
        }
        if (journal.mode() != JournalMode.OFF) {
            Gauge.builder("delay.journal.queued.rows", journal, Journal::queuedRows)
                    .description("rows waiting for the journal (bounded by delay.journal.queue-capacity)")
                    .register(registry);
            TimeGauge.builder("delay.journal.lag", journal, TimeUnit.MILLISECONDS, Journal::lagMillis)
                    .description("age of the oldest entry handed to the journal and not committed yet; 0 when none")
                    .register(registry);
            // the lag's bound as configured, so that an alert compares the lag with it whatever it is set to
            TimeGauge.builder("delay.journal.lag.bound", engine.config().journal(), TimeUnit.MILLISECONDS, j -> j.lag()
                            .toMillis())
                    .description("delay.journal.lag: the longest a transition other than a push or delete waits"
                            + " before it is written while the database keeps up")
                    .register(registry);
        }
        refresh();
        refresher.scheduleWithFixedDelay(this::refresh, REFRESH.toMillis(), REFRESH.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        refresher.shutdownNow();
    }

    /** Reads the engine's figures into the gauges of the queue's contents. */
    void refresh() {
        // a scheduled task that throws is never run again: a Redis outage must not freeze the gauges for good
        try {
            refreshGauges(stats());
        } catch (RuntimeException e) {
            log.debug("metrics could not read the engine's figures: {}", e.toString());
        }
    }

    private void refreshGauges(EngineStats s) {
        List<MultiGauge.Row<?>> status = new ArrayList<>();
        for (JobStatus st : JobStatus.values()) {
            status.add(
                    MultiGauge.Row.of(Tags.of("status", st.name()), s.byStatus().getOrDefault(st, 0L)));
        }
        jobsByStatus.register(status, true);
        List<MultiGauge.Row<?>> buckets = new ArrayList<>();
        for (ShardStats shard : s.shards()) {
            buckets.add(MultiGauge.Row.of(Tags.of("shard", Integer.toString(shard.shard())), shard.bucketSize()));
        }
        bucketSizes.register(buckets, true);
        List<MultiGauge.Row<?>> ready = new ArrayList<>();
        Map<String, Long> byLabel = new java.util.HashMap<>();
        // every configured pull topic, empty or not, so that a dashboard sees it at 0
        engine.config().dispatch().topics().forEach((topic, dispatcher) -> {
            if (dispatcher.equals(DispatchSettings.PULL)) {
                byLabel.merge(topics.label(topic), 0L, Long::sum);
            }
        });
        // _other too, at 0 until a topic without a label of its own has ready jobs: the series exists from the start
        byLabel.put(DelayQueueMetrics.OTHER_TOPICS, 0L);
        s.readyByTopic().forEach((topic, n) -> byLabel.merge(topics.label(topic), n, Long::sum));
        byLabel.forEach((topic, n) -> ready.add(MultiGauge.Row.of(Tags.of("topic", topic), n)));
        readyByTopic.register(ready, true);
        List<MultiGauge.Row<?>> sends = new ArrayList<>();
        Map<String, Integer> byDispatcher = new java.util.TreeMap<>();
        dispatchers.forEach(d -> byDispatcher.put(d, 0));
        byDispatcher.putAll(engine.inFlightByDispatcher());
        byDispatcher.forEach((dispatcher, n) -> sends.add(MultiGauge.Row.of(Tags.of("dispatcher", dispatcher), n)));
        inFlight.register(sends, true);
        List<MultiGauge.Row<?>> dead = new ArrayList<>();
        Map<String, Long> labelledDead = engine.deadLetters().counts(topics.labelled());
        labelledDead.forEach((topic, n) -> dead.add(MultiGauge.Row.of(Tags.of("topic", topic), n)));
        // the topics without a label of their own: every DEAD job less the labelled topics' (two reads a moment
        // apart, so never below 0); a series from the start
        long unlabelled = s.byStatus().getOrDefault(JobStatus.DEAD, 0L)
                - labelledDead.values().stream().mapToLong(Long::longValue).sum();
        dead.add(MultiGauge.Row.of(Tags.of("topic", DelayQueueMetrics.OTHER_TOPICS), Math.max(0, unlabelled)));
        deadByTopic.register(dead, true);
        List<MultiGauge.Row<?>> tiers = new ArrayList<>();
        tiers.add(MultiGauge.Row.of(Tags.of("tier", "redis"), s.tiers().redisPending()));
        if (s.tiers().journalPending() != null) {
            tiers.add(MultiGauge.Row.of(Tags.of("tier", "journal"), s.tiers().journalPending()));
        }
        pendingByTier.register(tiers, true);
    }

    private EngineStats stats() {
        Stats cached = stats.get();
        long now = System.nanoTime();
        if (cached == null || now - cached.readAtNanos() > STATS_TTL.toNanos()) {
            cached = new Stats(now, engine.stats());
            stats.set(cached);
        }
        return cached.engine();
    }

    private int ownedShards() {
        int owned = 0;
        for (int s = 0; s < engine.config().shards(); s++) {
            if (coordinator.owns(s)) {
                owned++;
            }
        }
        return owned;
    }
}
