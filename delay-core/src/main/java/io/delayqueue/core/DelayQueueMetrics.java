package io.delayqueue.core;

import io.delayqueue.queue.coordination.Coordinator;
import io.delayqueue.queue.engine.DelayQueueEngine;
import io.delayqueue.queue.engine.EngineListener;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.journal.JournalListener;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.store.StoreListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
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

    /** The histograms' upper bounds: past them a value lands in {@code +Inf}, its {@code _max} still exact. */
    static final Duration MAX_PUSH = Duration.ofSeconds(30);

    static final Duration MAX_COMMIT = Duration.ofSeconds(30);
    static final Duration MAX_SCRIPT = Duration.ofSeconds(10);
    static final double MAX_ROWS_PER_COMMIT = 100_000;

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
    private final Map<String, Timer> lateness = new ConcurrentHashMap<>();
    /** Per script name and outcome: a fixed set of a dozen scripts, two outcomes. */
    private final Map<String, Timer> scripts = new ConcurrentHashMap<>();

    private volatile Timer pushSucceeded;
    private volatile Timer pushFailed;
    private volatile Timer journalCommit;
    private volatile DistributionSummary journalCommitRows;
    private volatile MeterRegistry registry;
    private volatile Counter purgedJobRows;
    private volatile Counter purgedLogRows;

    /** @param dispatchers the names of the dispatchers sends go to (each gets an in-flight gauge, 0 when idle) */
    public DelayQueueMetrics(
            DelayQueueEngine engine, Coordinator coordinator, Journal journal, Set<String> dispatchers, int maxTopics) {
        this.journal = journal;
        this.topics = new TopicLabels(maxTopics);
        this.gauges = new DelayQueueGauges(engine, coordinator, journal, dispatchers, topics);
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        this.registry = registry;
        pushSucceeded = pushTimer(registry, "success");
        pushFailed = pushTimer(registry, "failure");
        purgedJobRows = purgedRows(registry, "delay_queue_job");
        purgedLogRows = purgedRows(registry, "delay_queue_job_log");
        if (journal.mode() != JournalMode.OFF) {
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
        gauges.bindTo(registry);
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

    private Counter counter(Map<String, Counter> byTopic, String name, String description, String topic) {
        MeterRegistry r = registry;
        if (r == null) {
            return null;
        }
        return byTopic.computeIfAbsent(topics.label(topic), t -> Counter.builder(name)
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
            lateness.computeIfAbsent(topics.label(topic), t -> Timer.builder("delay.handover.lateness")
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
    public void restoredHandedOver(String topic) {
        increment(counter(handedOver, "delay.jobs.handed.over", "jobs handed over at their due time", topic));
        increment(counter(
                restored,
                "delay.jobs.restored",
                "jobs handed over that were due before this instance started or before a restore put them back"
                        + " into Redis (not counted in delay.handover.lateness)",
                topic));
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
