package io.delayqueue.core;

import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.coordination.Coordinator;
import io.delayqueue.queue.engine.DelayQueueEngine;
import io.delayqueue.queue.engine.DispatchSettings;
import io.delayqueue.queue.engine.EngineListener;
import io.delayqueue.queue.engine.EngineStats;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.journal.JournalListener;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.journal.mybatis.MyBatisJournal;
import io.delayqueue.queue.store.ShardStats;
import io.delayqueue.queue.store.StoreListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service's metrics for Micrometer ({@code /actuator/prometheus}): what happens to jobs per topic and how long
 * pushes take (as the engine tells its {@link EngineListener}), the queue's contents (from {@link
 * DelayQueueEngine#stats()}, read at most once per {@link #STATS_TTL} however many gauges a scrape reads), the
 * journal's commits (its {@link JournalListener}), backlog and lag, the store's script round trips (its {@link
 * StoreListener}), and the HA role. The engine, journal and store know nothing of Micrometer: this adapts their
 * listener ports to it.
 *
 * <p>Topic labels are bounded: the first {@code maxTopics} topics seen get their own label, any later one is
 * counted under {@value #OTHER_TOPICS}, so a client inventing topics cannot grow the registry without end.
 */
public final class DelayQueueMetrics
        implements MeterBinder, EngineListener, JournalListener, StoreListener, AutoCloseable {
    /** The label of every topic past the first {@code maxTopics}. */
    public static final String OTHER_TOPICS = "_other";

    static final Duration STATS_TTL = Duration.ofSeconds(1);
    /** The histograms' upper bounds: past them a value lands in {@code +Inf}, its {@code _max} still exact. */
    static final Duration MAX_PUSH = Duration.ofSeconds(30);

    static final Duration MAX_COMMIT = Duration.ofSeconds(30);
    static final Duration MAX_SCRIPT = Duration.ofSeconds(10);
    static final double MAX_ROWS_PER_COMMIT = 100_000;
    /** How often the gauges of the queue's contents are read from the engine. */
    static final Duration REFRESH = Duration.ofSeconds(5);

    private static final Logger log = LoggerFactory.getLogger(DelayQueueMetrics.class);

    private final DelayQueueEngine engine;
    private final Coordinator coordinator;
    private final Journal journal;
    private final int maxTopics;
    private final Set<String> dispatchers;
    private final Set<String> topics = ConcurrentHashMap.newKeySet();
    private final Map<String, Counter> pushed = new ConcurrentHashMap<>();
    private final Map<String, Counter> handedOver = new ConcurrentHashMap<>();
    private final Map<String, Counter> sendFailed = new ConcurrentHashMap<>();
    private final Map<String, Counter> retried = new ConcurrentHashMap<>();
    private final Map<String, Counter> dead = new ConcurrentHashMap<>();
    private final Map<String, Counter> ttrExpired = new ConcurrentHashMap<>();
    private final Map<String, Counter> deleted = new ConcurrentHashMap<>();
    private final Map<String, Timer> lateness = new ConcurrentHashMap<>();
    /** Per script name and outcome: a fixed set of a dozen scripts, two outcomes. */
    private final Map<String, Timer> scripts = new ConcurrentHashMap<>();

    private volatile Timer pushSucceeded;
    private volatile Timer pushFailed;
    private volatile Timer journalCommit;
    private volatile DistributionSummary journalCommitRows;
    private final AtomicReference<Stats> stats = new AtomicReference<>();
    private volatile MeterRegistry registry;
    private volatile Counter purgedJobRows;
    private volatile Counter purgedLogRows;
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
    public DelayQueueMetrics(
            DelayQueueEngine engine, Coordinator coordinator, Journal journal, Set<String> dispatchers, int maxTopics) {
        this.engine = engine;
        this.dispatchers = Set.copyOf(dispatchers);
        this.coordinator = coordinator;
        this.journal = journal;
        this.maxTopics = maxTopics;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        this.registry = registry;
        pushSucceeded = pushTimer(registry, "success");
        pushFailed = pushTimer(registry, "failure");
        purgedJobRows = purgedRows(registry, "delay_queue_job");
        purgedLogRows = purgedRows(registry, "delay_queue_job_log");
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
        Gauge.builder("delay.ha.owned.shards", this, m -> m.ownedShards())
                .description("shards this instance scans now")
                .register(registry);
        for (String role : List.of("standalone", "leader", "follower", "member", "disconnected", "stopped")) {
            Gauge.builder("delay.ha.role", coordinator, c -> c.role().equals(role) ? 1 : 0)
                    .description("1 for the role this instance has now")
                    .tag("role", role)
                    .register(registry);
        }
        FunctionCounter.builder("delay.dispatched", this, m -> m.stats().dispatched())
                .description("sends confirmed by their dispatcher")
                .register(registry);
        FunctionCounter.builder("delay.dispatch.failures", this, m -> m.stats().dispatchFailures())
                .description("sends that failed")
                .register(registry);
        Gauge.builder("delay.pull.waiting", this, m -> m.stats().pullWaiting())
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
        }
        if (journal.mode() != JournalMode.OFF) {
            Gauge.builder("delay.journal.queued.rows", journal, Journal::queuedRows)
                    .description("rows waiting for the journal (bounded by delay.journal.queue-capacity)")
                    .register(registry);
            TimeGauge.builder("delay.journal.lag", journal, TimeUnit.MILLISECONDS, Journal::lagMillis)
                    .description("age of the oldest entry handed to the journal and not committed yet; 0 when none")
                    .register(registry);
            journalCommit = Timer.builder("delay.journal.commit")
                    .description("time to write and commit one group, from its transaction's start to the end of"
                            + " its commit")
                    .publishPercentileHistogram()
                    .minimumExpectedValue(Duration.ofMillis(1))
                    .maximumExpectedValue(MAX_COMMIT)
                    .register(registry);
            journalCommitRows = DistributionSummary.builder("delay.journal.commit.rows")
                    .description("rows one commit wrote (job rows and log rows)")
                    .publishPercentileHistogram()
                    .minimumExpectedValue(1.0)
                    .maximumExpectedValue(MAX_ROWS_PER_COMMIT)
                    .register(registry);
        }
        refresh();
        refresher.scheduleWithFixedDelay(this::refresh, REFRESH.toMillis(), REFRESH.toMillis(), TimeUnit.MILLISECONDS);
    }

    private static Counter purgedRows(MeterRegistry registry, String table) {
        return Counter.builder("delay.journal.purged.rows")
                .description("journal rows deleted by retention (delay.journal.retention), per table")
                .tag("table", table)
                .register(registry);
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
                byLabel.merge(label(topic), 0L, Long::sum);
            }
        });
        s.readyByTopic().forEach((topic, n) -> byLabel.merge(label(topic), n, Long::sum));
        byLabel.forEach((topic, n) -> ready.add(MultiGauge.Row.of(Tags.of("topic", topic), n)));
        readyByTopic.register(ready, true);
        List<MultiGauge.Row<?>> sends = new ArrayList<>();
        Map<String, Integer> byDispatcher = new java.util.TreeMap<>();
        dispatchers.forEach(d -> byDispatcher.put(d, 0));
        byDispatcher.putAll(engine.inFlightByDispatcher());
        byDispatcher.forEach((dispatcher, n) -> sends.add(MultiGauge.Row.of(Tags.of("dispatcher", dispatcher), n)));
        inFlight.register(sends, true);
        List<MultiGauge.Row<?>> dead = new ArrayList<>();
        for (String topic : new java.util.TreeSet<>(topics)) {
            dead.add(MultiGauge.Row.of(
                    Tags.of("topic", topic), engine.deadLetters().count(topic)));
        }
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

    /** The topic's label: itself for the first {@code maxTopics} topics seen, {@link #OTHER_TOPICS} after. */
    String label(String topic) {
        if (topics.contains(topic)) {
            return topic;
        }
        if (topics.size() < maxTopics && topics.add(topic)) {
            return topic;
        }
        return topics.contains(topic) ? topic : OTHER_TOPICS;
    }

    private Counter counter(Map<String, Counter> byTopic, String name, String description, String topic) {
        MeterRegistry r = registry;
        if (r == null) {
            return null;
        }
        return byTopic.computeIfAbsent(label(topic), t -> Counter.builder(name)
                .description(description)
                .tag("topic", t)
                .register(r));
    }

    private static void increment(Counter counter) {
        if (counter != null) {
            counter.increment();
        }
    }

    @Override
    public void pushed(String topic) {
        increment(counter(pushed, "delay.jobs.pushed", "jobs accepted by a push", topic));
    }

    @Override
    public void handedOver(String topic, long latenessMs) {
        increment(counter(handedOver, "delay.jobs.handed.over", "jobs handed over at their due time", topic));
        MeterRegistry r = registry;
        if (r != null) {
            lateness.computeIfAbsent(label(topic), t -> Timer.builder("delay.handover.lateness")
                            .description("time from a job's due time to its hand-over")
                            .tag("topic", t)
                            .publishPercentileHistogram()
                            .minimumExpectedValue(Duration.ofMillis(1))
                            .maximumExpectedValue(Duration.ofMinutes(10))
                            .register(r))
                    .record(Math.max(0, latenessMs), TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public void sendFailed(String topic) {
        increment(counter(sendFailed, "delay.sends.failed", "sends a dispatcher did not confirm", topic));
    }

    @Override
    public void retried(String topic) {
        increment(counter(retried, "delay.jobs.retried", "jobs scheduled again on their retry ladder", topic));
    }

    @Override
    public void dead(String topic) {
        increment(counter(dead, "delay.jobs.dead", "jobs that ran out of attempts", topic));
    }

    @Override
    public void deleted(String topic) {
        increment(counter(
                deleted, "delay.jobs.deleted", "jobs deleted (DELETED committed) by a delete or clearAll", topic));
    }

    private static Timer pushTimer(MeterRegistry registry, String outcome) {
        return Timer.builder("delay.push")
                .description("time to answer a push (one job or a batch): the journal's commit and Redis included")
                .tag("outcome", outcome)
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(MAX_PUSH)
                .register(registry);
    }

    @Override
    public void pushAnswered(long latencyNanos, boolean succeeded) {
        Timer t = succeeded ? pushSucceeded : pushFailed;
        if (t != null) {
            t.record(latencyNanos, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void ttrExpired(String topic) {
        increment(counter(
                ttrExpired,
                "delay.jobs.ttr.expired",
                "reservations that expired: a pull consumer's TTR, or a dispatch never confirmed",
                topic));
    }

    /** A journal commit (its {@link JournalListener}). */
    @Override
    public void committed(long nanos, int rows) {
        Timer t = journalCommit;
        DistributionSummary r = journalCommitRows;
        if (t != null && r != null) {
            t.record(nanos, TimeUnit.NANOSECONDS);
            r.record(rows);
        }
    }

    /** A round trip of a store script (its {@link StoreListener}). */
    @Override
    public void roundTrip(String operation, long nanos, boolean failed) {
        MeterRegistry r = registry;
        if (r == null) {
            return;
        }
        String outcome = failed ? "failure" : "success";
        scripts.computeIfAbsent(operation + '|' + outcome, k -> Timer.builder("delay.redis.script")
                        .description("round trip of one Lua script run (or one pipeline of runs) in Redis")
                        .tag("script", operation)
                        .tag("outcome", outcome)
                        .publishPercentileHistogram()
                        .minimumExpectedValue(Duration.ofNanos(100_000))
                        .maximumExpectedValue(MAX_SCRIPT)
                        .register(r))
                .record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void journalPurged(int jobRows, int logRows) {
        Counter jobs = purgedJobRows;
        Counter history = purgedLogRows;
        if (jobs != null && history != null) {
            jobs.increment(jobRows);
            history.increment(logRows);
        }
    }
}
