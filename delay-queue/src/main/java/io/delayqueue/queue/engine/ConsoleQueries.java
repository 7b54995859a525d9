package io.delayqueue.queue.engine;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.coordination.CoordinationView;
import io.delayqueue.queue.coordination.Coordinator;
import io.delayqueue.queue.engine.handover.DeadLetters;
import io.delayqueue.queue.engine.tier.TierLoader;
import io.delayqueue.queue.journal.JobCursor;
import io.delayqueue.queue.journal.JobQuery;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.journal.TopicCount;
import io.delayqueue.queue.store.StoreReads;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntFunction;

/**
 * What the web console reads beside {@code /stats}: pages of jobs from the journal (the job browser), the counts per
 * topic, and the cluster (instances, roles, shards with their owner epochs). Reads only; owns no state.
 *
 * <p>Threading: every method runs on the caller's thread, at any time.
 */
public final class ConsoleQueries {
    /** How long a count per topic is served again before the journal is asked anew (it is a grouped count). */
    static final long TOPICS_MAX_AGE_MS = 5_000;

    /** Largest page of the job browser. */
    public static final int MAX_PAGE = 200;

    /** Where a job is kept: in Redis, or in the journal only. */
    public static final String REDIS = JobDetails.REDIS;

    public static final String JOURNAL = JobDetails.JOURNAL;

    private final EngineConfig config;
    private final StoreReads store;
    private final Journal journal;
    private final Coordinator coordinator;
    private final Clock clock;
    /** {@code null} when every job is kept in Redis. */
    private final TierLoader tierLoader;
    /** The owner epoch of a shard this instance owns, else {@code null}. */
    private final IntFunction<Long> epochs;
    /** The last count per topic, shared by every console open on this instance. */
    private volatile TopicCounts lastTopics;

    /** A count per topic and when it was taken. */
    private record TopicCounts(long countedAt, List<TopicRow> rows) {}

    ConsoleQueries(
            EngineConfig config,
            StoreReads store,
            Journal journal,
            Coordinator coordinator,
            Clock clock,
            TierLoader tierLoader,
            IntFunction<Long> epochs) {
        this.config = config;
        this.store = store;
        this.journal = journal;
        this.coordinator = coordinator;
        this.clock = clock;
        this.tierLoader = tierLoader;
        this.epochs = epochs;
    }

    /**
     * A job of the browser.
     *
     * @param tier {@value JobDetails#REDIS}, or {@value JobDetails#JOURNAL} for a far job of the journal tier and
     *     for a final one (kept in the journal only)
     * @param lastError why its latest delivery failed (or why it died), {@code null} when none did
     */
    public record BrowsedJob(Job job, String tier, String lastError) {}

    /**
     * One page of the browser.
     *
     * @param next the cursor of the next page ({@code after}), {@code null} when this page is the last
     */
    public record JobPage(List<BrowsedJob> jobs, String next) {}

    /**
     * One page of jobs in {@code status} (of {@code topic}, or of every topic when {@code null}), as the journal has
     * them, after {@code after} (a cursor of a previous page, {@code null} for the first).
     *
     * @throws DelayQueueException 409 without a journal
     */
    public JobPage browse(JobStatus status, String topic, JobQuery.Order order, JobCursor after, int limit) {
        if (journal.mode() == JournalMode.OFF) {
            throw new DelayQueueException(
                    409, "the job browser reads the journal, and there is none (delay.journal.mode=off)");
        }
        List<Job> jobs = journal.browse(new JobQuery(status, topic, order, after, limit + 1));
        boolean more = jobs.size() > limit;
        List<Job> page = more ? jobs.subList(0, limit) : jobs;
        Map<String, String> errors =
                journal.lastErrors(page.stream().map(Job::id).toList());
        long horizon = tierLoader == null ? Long.MAX_VALUE : tierLoader.farAfter();
        List<BrowsedJob> browsed = new ArrayList<>(page.size());
        for (Job job : page) {
            boolean journalOnly = job.status().isFinal() && job.status() != JobStatus.DEAD
                    || job.status() == JobStatus.DELAY && job.executeAt() > horizon;
            browsed.add(new BrowsedJob(job, journalOnly ? JOURNAL : REDIS, errors.get(job.id())));
        }
        String next = null;
        if (more) {
            Job last = page.get(page.size() - 1);
            next = (order == JobQuery.Order.NEWEST ? last.createTime() : last.executeAt()) + ":" + last.id();
        }
        return new JobPage(browsed, next);
    }

    /**
     * A topic's jobs that are not final.
     *
     * @param delayed {@code DELAY} jobs, in Redis and in the journal tier
     * @param ready {@code READY} jobs, waiting for a pull consumer
     * @param reserved {@code RESERVED} jobs, handed over and not finished yet
     * @param dead {@code DEAD} jobs, waiting for an operator's requeue
     */
    public record TopicRow(String topic, long delayed, long ready, long reserved, long dead) {}

    /**
     * Every topic with jobs that are not final, by name, as the journal counts them; without a journal, the ready
     * lists and dead letters Redis holds. The count (a grouped count over the jobs not final) is taken at most once
     * every {@value #TOPICS_MAX_AGE_MS} ms, however many consoles ask: within that, the last one is answered.
     */
    public List<TopicRow> topics(DeadLetters deadLetters) {
        TopicCounts last = lastTopics;
        if (last != null && clock.millis() - last.countedAt() < TOPICS_MAX_AGE_MS) {
            return last.rows();
        }
        synchronized (this) {
            last = lastTopics;
            if (last != null && clock.millis() - last.countedAt() < TOPICS_MAX_AGE_MS) {
                return last.rows();
            }
            List<TopicRow> rows = countTopics(deadLetters);
            lastTopics = new TopicCounts(clock.millis(), rows);
            return rows;
        }
    }

    private List<TopicRow> countTopics(DeadLetters deadLetters) {
        Map<String, long[]> counts = new TreeMap<>();
        if (journal.mode() == JournalMode.OFF) {
            for (int s = 0; s < config.shards(); s++) {
                store.stats(s)
                        .readyByTopic()
                        .forEach((topic, n) -> counts.computeIfAbsent(topic, t -> new long[4])[1] += n);
            }
            deadLetters.counts(counts.keySet()).forEach((topic, n) -> counts.get(topic)[3] = n);
        } else {
            for (TopicCount c : journal.countByTopic()) {
                long[] row = counts.computeIfAbsent(c.topic(), t -> new long[4]);
                switch (c.status()) {
                    case DELAY -> row[0] += c.jobs();
                    case READY -> row[1] += c.jobs();
                    case RESERVED -> row[2] += c.jobs();
                    case DEAD -> row[3] += c.jobs();
                    default -> {}
                }
            }
        }
        List<TopicRow> rows = new ArrayList<>(counts.size());
        counts.forEach((topic, n) -> rows.add(new TopicRow(topic, n[0], n[1], n[2], n[3])));
        return List.copyOf(rows);
    }

    /**
     * One shard.
     *
     * @param owner the instance assigned it, {@code null} when none is
     * @param ownedHere whether this instance scans it now
     * @param epoch the owner epoch this instance moves its jobs with; {@code null} when it does not own it or needs
     *     no fencing (standalone)
     * @param pending its jobs in Redis waiting for their due time
     */
    public record ShardView(int shard, String owner, boolean ownedHere, Long epoch, long pending) {}

    /** The coordination and the shards, for the console's cluster panel. */
    public record ClusterView(CoordinationView coordination, List<ShardView> shards) {}

    public ClusterView cluster() {
        CoordinationView view = coordinator.view();
        List<ShardView> shards = new ArrayList<>(config.shards());
        for (int s = 0; s < config.shards(); s++) {
            String owner = null;
            for (CoordinationView.Instance instance : view.instances()) {
                if (instance.shards() == null
                        ? !"follower".equals(instance.role())
                        : instance.shards().contains(s)) {
                    owner = instance.id();
                    break;
                }
            }
            shards.add(new ShardView(
                    s,
                    owner,
                    coordinator.owns(s),
                    epochs.apply(s),
                    store.stats(s).bucketSize()));
        }
        return new ClusterView(view, shards);
    }
}
