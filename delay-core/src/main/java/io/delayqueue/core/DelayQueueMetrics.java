package io.delayqueue.core;

import io.delayqueue.queue.coordination.Coordinator;
import io.delayqueue.queue.engine.DelayQueueEngine;
import io.delayqueue.queue.engine.EngineListener;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.journal.JournalListener;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.store.JobStore;
import io.delayqueue.queue.store.StoreListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.distribution.TimeWindowMax;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The service's metrics for Micrometer ({@code /actuator/prometheus}): what happens to jobs per topic and how long
 * pushes take (as the engine tells its {@link EngineListener}), the journal's commits (its {@link
 * JournalListener}) and the store's script round trips (its {@link StoreListener}), counted here as they happen;
 * and the queue's contents, backlog and lag and the HA role, read by {@link DelayQueueGauges}. The engine, journal
 * and store know nothing of Micrometer: this adapts their listener ports to it.
 *
 * <p>Topic labels are bounded: the first {@code maxTopics} topics seen get their own label, any later one is
 * counted under {@value #OTHER_TOPICS}, so a client inventing topics cannot grow the registry without end (see
 * {@link TopicLabels}).
 *
 * <p>Threading: the listener methods are called from the engine's, the journal's and the store's threads at
 * once; meters are created on first use in concurrent maps. Until {@link #bindTo} has run, events are not
 * counted.
 */
public final class DelayQueueMetrics
        implements MeterBinder, EngineListener, JournalListener, StoreListener, AutoCloseable {
    /** The label of every topic past the first {@code maxTopics}. */
    public static final String OTHER_TOPICS = "_other";

    /**
     * The scripts whose round-trip histogram exists from the start: every service pushes and moves due jobs. The
     * others' appear with their first run (a histogram per script and outcome is ~13 lines of every scrape).
     */
    static final Set<String> EVERY_SERVICE_RUNS = Set.of("push", "move_due");

    private final Journal journal;
    private final TopicLabels topics;
    private final DelayQueueGauges gauges;
    private final Map<String, Counter> pushed = new ConcurrentHashMap<>();
    private final Map<String, Counter> handedOver = new ConcurrentHashMap<>();
    private final Map<String, Counter> restored = new ConcurrentHashMap<>();
    private final Map<String, Counter> sendFailed = new ConcurrentHashMap<>();
    private final Map<String, Counter> retried = new ConcurrentHashMap<>();
    private final Map<String, Counter> dead = new ConcurrentHashMap<>();
    private final Map<String, Counter> ttrExpired = new ConcurrentHashMap<>();
    private final Map<String, Counter> deleted = new ConcurrentHashMap<>();
    /** Per topic: the largest lateness of the last minutes (a histogram per topic would be most of a scrape). */
    private final Map<String, TimeWindowMax> latenessByTopic = new ConcurrentHashMap<>();
    /** Per script name and outcome: a fixed set of a dozen scripts, two outcomes. */
    private final Map<String, Timer> scripts = new ConcurrentHashMap<>();

    private final Map<String, Counter> scriptFailures = new ConcurrentHashMap<>();
    /** The store's scripts, whose failure counters exist from the start. */
    private final Set<String> scriptNames;

    private volatile Timer lateness;
    private volatile Timer pushSucceeded;
    private volatile Timer pushFailed;
    private volatile Timer journalCommit;
    private volatile DistributionSummary journalCommitRows;
    private static final String PUSHED = "jobs accepted by a push";
    private static final String HANDED_OVER = "jobs handed over at their due time";
    private static final String RESTORED = "jobs handed over that were due before this instance started or before"
            + " a restore put them back into Redis (not counted in delay.handover.lateness)";
    private static final String SEND_FAILED = "sends a dispatcher did not confirm";
    private static final String RETRIED = "jobs scheduled again on their retry ladder";
    private static final String DEAD = "jobs that ran out of attempts";
    private static final String DELETED = "jobs deleted (DELETED committed) by a delete or clearAll";
    private static final String TTR_EXPIRED =
            "reservations that expired: a pull consumer's TTR, or a dispatch never confirmed";

    private volatile MeterRegistry registry;
    private volatile Counter purgedJobRows;
    private volatile Counter purgedLogRows;

    /**
     * @param dispatchers the names of the dispatchers sends go to (each gets an in-flight gauge, 0 when idle)
     * @param scriptNames the store's scripts ({@code push}, {@code move_due}, ...): each one's failure counter exists
     *     at 0 from the start
     */
    public DelayQueueMetrics(
            DelayQueueEngine engine,
            Coordinator coordinator,
            Journal journal,
            Set<String> dispatchers,
            int maxTopics,
            Set<String> scriptNames) {
        this.journal = journal;
        this.topics = new TopicLabels(maxTopics);
        this.gauges = new DelayQueueGauges(engine, coordinator, journal, dispatchers, topics);
        this.scriptNames = Set.copyOf(scriptNames);
        this.routedTopics = Set.copyOf(engine.config().dispatch().topics().keySet());
    }

    /** The topics named in the routes: their counters exist at 0 from the start, as {@value #OTHER_TOPICS}' do. */
    private final Set<String> routedTopics;

    /** Hears {@code engine}, {@code journal} and {@code store} from now on (they know it by their listener ports). */
    DelayQueueMetrics listenTo(DelayQueueEngine engine, Journal journal, JobStore store) {
        engine.setListener(this);
        journal.setListener(this);
        store.setListener(this);
        return this;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        this.registry = registry;
        pushSucceeded = pushTimer(registry, "success");
        pushFailed = pushTimer(registry, "failure");
        purgedJobRows = purgedRows(registry, "delay_queue_job");
        purgedLogRows = purgedRows(registry, "delay_queue_job_log");
        lateness = Timer.builder("delay.handover.lateness")
                .description("time from a job's due time to its hand-over, all topics")
                .serviceLevelObjectives(HistogramBuckets.LATENESS_BUCKETS)
                .register(registry);
        if (journal.mode() != JournalMode.OFF) {
            journalCommit = Timer.builder("delay.journal.commit")
                    .description("time to write and commit one group, from its transaction's start to the end of"
                            + " its commit")
                    .serviceLevelObjectives(HistogramBuckets.LATENCY_BUCKETS)
                    .register(registry);
            journalCommitRows = DistributionSummary.builder("delay.journal.commit.rows")
                    .description("rows one commit wrote (job rows and log rows)")
                    .serviceLevelObjectives(HistogramBuckets.ROWS_BUCKETS)
                    .register(registry);
        }
        // every counter a dashboard reads exists at 0 before its first event: for the topics of the routes, and for
        // _other (so that a sum over topics is 0, not absent, on a fresh service)
        Set<String> known = new java.util.TreeSet<>(routedTopics);
        for (String topic : known) {
            topicCounters(topic);
        }
        topicCounters(null);
        for (String script : scriptNames) {
            scriptFailureCounter(registry, script);
            if (EVERY_SERVICE_RUNS.contains(script)) {
                scriptTimer(registry, script, "success");
            }
        }
        // Spring's request timer of answered pushes, so that the push latency panels have their series from the
        // start (the same name and tags as Spring's: Spring records into these)
        for (String uri : List.of("/push", "/push/batch")) {
            PushRequestTiming.postTimer(registry, uri, 200);
        }
        gauges.bindTo(registry);
    }

    /** Registers every per-topic counter of {@code topic} (null: {@value #OTHER_TOPICS}) at 0. */
    private void topicCounters(String topic) {
        String label = topic == null ? OTHER_TOPICS : topics.label(topic);
        counter(pushed, "delay.jobs.pushed", PUSHED, label, true);
        counter(handedOver, "delay.jobs.handed.over", HANDED_OVER, label, true);
        counter(restored, "delay.jobs.restored", RESTORED, label, true);
        counter(sendFailed, "delay.sends.failed", SEND_FAILED, label, true);
        counter(retried, "delay.jobs.retried", RETRIED, label, true);
        counter(dead, "delay.jobs.dead", DEAD, label, true);
        counter(deleted, "delay.jobs.deleted", DELETED, label, true);
        counter(ttrExpired, "delay.jobs.ttr.expired", TTR_EXPIRED, label, true);
        latenessOf(registry, label);
    }

    /** {@code label}'s largest lateness of the last two minutes, one gauge (a line of the scrape) per topic. */
    private TimeWindowMax latenessOf(MeterRegistry registry, String label) {
        return latenessByTopic.computeIfAbsent(label, t -> {
            TimeWindowMax max = new TimeWindowMax(registry.config().clock(), DistributionStatisticConfig.DEFAULT);
            Gauge.builder("delay.handover.lateness.max.by.topic", max, m -> m.poll(TimeUnit.SECONDS))
                    .description("the largest time from a job's due time to its hand-over, per topic, over the"
                            + " last two minutes")
                    .baseUnit("seconds")
                    .tag("topic", t)
                    .register(registry);
            return max;
        });
    }

    private Timer scriptTimer(MeterRegistry registry, String script, String outcome) {
        return scripts.computeIfAbsent(script + '|' + outcome, k -> Timer.builder("delay.redis.script")
                .description("round trip of one Lua script run (or one pipeline of runs) in Redis")
                .tag("script", script)
                .tag("outcome", outcome)
                .serviceLevelObjectives(HistogramBuckets.SCRIPT_BUCKETS)
                .register(registry));
    }

    private Counter scriptFailureCounter(MeterRegistry registry, String script) {
        return scriptFailures.computeIfAbsent(script, s -> Counter.builder("delay.redis.script.failures")
                .description("Lua script runs (or pipelines of runs) in Redis that failed")
                .tag("script", s)
                .register(registry));
    }

    private static Counter purgedRows(MeterRegistry registry, String table) {
        return Counter.builder("delay.journal.purged.rows")
                .description("journal rows deleted by retention (delay.journal.retention), per table")
                .tag("table", table)
                .register(registry);
    }

    @Override
    public void close() {
        gauges.close();
    }

    /** {@code topic}'s counter; {@code labelled}: {@code topic} is a label already. */
    private Counter counter(Map<String, Counter> byTopic, String name, String description, String topic) {
        return counter(byTopic, name, description, topic, false);
    }

    private Counter counter(
            Map<String, Counter> byTopic, String name, String description, String topic, boolean labelled) {
        MeterRegistry r = registry;
        if (r == null) {
            return null;
        }
        return byTopic.computeIfAbsent(labelled ? topic : topics.label(topic), t -> Counter.builder(name)
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
        increment(counter(pushed, "delay.jobs.pushed", PUSHED, topic));
    }

    @Override
    public void handedOver(String topic, long latenessMs) {
        increment(counter(handedOver, "delay.jobs.handed.over", HANDED_OVER, topic));
        MeterRegistry r = registry;
        Timer all = lateness;
        if (r != null && all != null) {
            long ms = Math.max(0, latenessMs);
            all.record(ms, TimeUnit.MILLISECONDS);
            latenessOf(r, topics.label(topic)).record((double) ms, TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public void restoredHandedOver(String topic) {
        increment(counter(handedOver, "delay.jobs.handed.over", HANDED_OVER, topic));
        increment(counter(restored, "delay.jobs.restored", RESTORED, topic));
    }

    @Override
    public void sendFailed(String topic) {
        increment(counter(sendFailed, "delay.sends.failed", SEND_FAILED, topic));
    }

    @Override
    public void retried(String topic) {
        increment(counter(retried, "delay.jobs.retried", RETRIED, topic));
    }

    @Override
    public void dead(String topic) {
        increment(counter(dead, "delay.jobs.dead", DEAD, topic));
    }

    @Override
    public void deleted(String topic) {
        increment(counter(deleted, "delay.jobs.deleted", DELETED, topic));
    }

    private static Timer pushTimer(MeterRegistry registry, String outcome) {
        return Timer.builder("delay.push")
                .description("time to answer a push (one job or a batch): the journal's commit and Redis included")
                .tag("outcome", outcome)
                .serviceLevelObjectives(HistogramBuckets.LATENCY_BUCKETS)
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
        increment(counter(ttrExpired, "delay.jobs.ttr.expired", TTR_EXPIRED, topic));
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
        scriptTimer(r, operation, outcome).record(nanos, TimeUnit.NANOSECONDS);
        if (failed) {
            scriptFailureCounter(r, operation).increment();
        }
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
