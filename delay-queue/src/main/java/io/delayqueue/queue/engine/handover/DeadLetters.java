package io.delayqueue.queue.engine.handover;

import io.delayqueue.common.DelayQueueException.InvalidField;
import io.delayqueue.common.Job;
import io.delayqueue.common.JobIds;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.engine.EngineConfig;
import io.delayqueue.queue.engine.delete.DeleteProtocol;
import io.delayqueue.queue.engine.push.JobFactory;
import io.delayqueue.queue.journal.JobEvent;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.journal.JournalLookups;
import io.delayqueue.queue.journal.Transition;
import io.delayqueue.queue.store.DeadLetterStore;
import io.delayqueue.queue.store.Outcome;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dead letters of each topic: jobs that used up their attempts ({@code DEAD}). They stay in the store
 * until requeued, which makes them {@code DELAY} again, due at once, with their attempts counted from zero, or
 * deleted (by an operator, or by {@code delay.dead.retention}), which follows the delete protocol ({@link
 * DeleteProtocol#deleteDead}: {@code DELETED} committed in the journal before it is answered, so no restore or
 * requeue brings one back). Every requeue or delete is one store script per shard and batch, O(log N) per job.
 */
public final class DeadLetters {
    /** Most dead jobs one listing returns. */
    public static final int MAX_LIST_LIMIT = 1000;
    /** Most ids one requeue or delete by id may name. */
    public static final int MAX_REQUEUE_IDS = 1000;

    private static final Logger log = LoggerFactory.getLogger(DeadLetters.class);

    private static final int REQUEUE_BATCH = 500;

    private final EngineConfig config;
    private final DeadLetterStore store;
    private final Journal journal;
    private final Clock clock;
    private final DispatchPipeline.ScheduleListener scheduled;
    private final DeleteProtocol deletes;

    public DeadLetters(
            EngineConfig config,
            DeadLetterStore store,
            Journal journal,
            Clock clock,
            DispatchPipeline.ScheduleListener scheduled,
            DeleteProtocol deletes) {
        this.config = config;
        this.store = store;
        this.journal = journal;
        this.clock = clock;
        this.scheduled = scheduled;
        this.deletes = deletes;
    }

    /**
     * A page of dead letters.
     *
     * @param total dead jobs of the topic over every shard
     * @param jobs the oldest of them (by their last due time), at most the limit asked for
     * @param lastErrors why each listed job that the journal knows of died, by id: its last failed attempt's
     *     error (see {@link JournalLookups#lastErrors}); empty without a journal
     */
    public record Page(String topic, long total, List<Job> jobs, Map<String, String> lastErrors) {}

    /**
     * What a requeue did.
     *
     * @param requeued how many jobs are {@code DELAY} again
     * @param notRequeued ids that named no dead job of the topic, with what they are instead ({@code
     *     NOT_FOUND} for an unknown id)
     */
    public record Requeue(int requeued, Map<String, String> notRequeued) {}

    /**
     * What a delete of dead jobs did.
     *
     * @param deleted how many dead jobs are {@code DELETED} now (committed in the journal)
     * @param notDeleted ids that named no dead job of the topic, with what they are instead ({@code NOT_FOUND} for an
     *     unknown id)
     */
    public record Deletion(int deleted, Map<String, String> notDeleted) {}

    /** How many dead jobs the topic has, over every shard. */
    public long count(String topic) {
        requireTopic(topic);
        long total = 0;
        for (int shard = 0; shard < config.shards(); shard++) {
            total += store.countDead(topic, shard);
        }
        return total;
    }

    /** How many dead jobs each of {@code topics} has, over every shard, read at once (the metrics' gauges). */
    public Map<String, Long> counts(Collection<String> topics) {
        topics.forEach(DeadLetters::requireTopic);
        return store.countDead(topics);
    }

    /** The oldest {@code limit} dead jobs of {@code topic}, and how many it has. */
    public Page list(String topic, int limit) {
        requireTopic(topic);
        if (limit < 1 || limit > MAX_LIST_LIMIT) {
            throw new InvalidField("limit", "must be between 1 and " + MAX_LIST_LIMIT);
        }
        long total = count(topic);
        List<Job> oldest = new ArrayList<>();
        for (int shard = 0; shard < config.shards(); shard++) {
            oldest.addAll(store.listDead(topic, shard, limit));
        }
        oldest.sort(Comparator.comparingLong(Job::executeAt).thenComparing(Job::id));
        List<Job> page = List.copyOf(oldest.subList(0, Math.min(limit, oldest.size())));
        // one read for the page; the list itself is Redis's (what a requeue acts on), the reasons the journal's
        return new Page(topic, total, page, lastErrors(page));
    }

    /** The journal's last errors of {@code jobs}; none when it cannot be read, so the list stays Redis's alone. */
    private Map<String, String> lastErrors(List<Job> jobs) {
        if (jobs.isEmpty()) {
            return Map.of();
        }
        try {
            return Map.copyOf(journal.lastErrors(jobs.stream().map(Job::id).toList()));
        } catch (RuntimeException e) {
            log.warn("the dead letters' last errors could not be read from the journal: {}", e.toString());
            return Map.of();
        }
    }

    /**
     * Requeues every dead job of {@code topic}, shard by shard in bounded batches. Jobs that die while this
     * runs may or may not be included; the call looks at no more entries per shard than the shard held when
     * it began, so it ends even while new jobs keep dying.
     */
    public Requeue requeueAll(String topic) {
        requireTopic(topic);
        int requeued = 0;
        for (int shard = 0; shard < config.shards(); shard++) {
            long budget = store.countDead(topic, shard);
            while (budget > 0) {
                int limit = (int) Math.min(REQUEUE_BATCH, budget);
                long now = clock.millis();
                DeadLetterStore.Requeued batch = store.requeueOldestDead(topic, shard, limit, now);
                budget -= limit;
                requeued += batch.ids().size();
                recordRequeued(shard, batch.ids(), now);
                if (!batch.more()) {
                    break;
                }
            }
        }
        return new Requeue(requeued, Map.of());
    }

    /** Requeues the named dead jobs of {@code topic}; ids that are not dead jobs of the topic are reported. */
    public Requeue requeue(String topic, List<String> ids) {
        requireTopic(topic);
        Map<Integer, List<String>> byShard = byShard(ids, "requeue");
        int requeued = 0;
        Map<String, String> notRequeued = new LinkedHashMap<>();
        for (var entry : byShard.entrySet()) {
            int shard = entry.getKey();
            List<String> shardIds = entry.getValue();
            long now = clock.millis();
            List<Outcome> outcomes = store.requeueDead(topic, shard, shardIds, now);
            List<String> done = new ArrayList<>();
            for (int i = 0; i < shardIds.size(); i++) {
                Outcome outcome = outcomes.get(i);
                if (outcome.applied()) {
                    done.add(shardIds.get(i));
                } else {
                    notRequeued.put(shardIds.get(i), whatInstead(outcome));
                }
            }
            requeued += done.size();
            recordRequeued(shard, done, now);
        }
        return new Requeue(requeued, notRequeued);
    }

    /**
     * Deletes the named dead jobs of {@code topic}, shard by shard: answered once their {@code DELETED} is committed in
     * the journal (see {@link DeleteProtocol#deleteDead}); ids that are not dead jobs of the topic are reported. A
     * journal that refuses, or does not answer, fails the call (503, 504) for the shard it was deleting and the
     * shards after it; the shards before it are deleted.
     */
    public Deletion delete(String topic, List<String> ids) {
        requireTopic(topic);
        int deleted = 0;
        Map<String, String> notDeleted = new LinkedHashMap<>();
        for (var entry : byShard(ids, "delete").entrySet()) {
            List<String> shardIds = entry.getValue();
            List<Outcome> outcomes = deletes.deleteDead(topic, entry.getKey(), shardIds, DeleteProtocol.DEAD_DELETED);
            for (int i = 0; i < shardIds.size(); i++) {
                if (outcomes.get(i).applied()) {
                    deleted++;
                } else {
                    notDeleted.put(shardIds.get(i), whatInstead(outcomes.get(i)));
                }
            }
        }
        return new Deletion(deleted, notDeleted);
    }

    /**
     * Deletes every dead job of {@code topic}, shard by shard in bounded batches, as {@link #delete(String, List)}
     * does; like {@link #requeueAll}, it looks at no more entries per shard than the shard held when it began.
     */
    public Deletion deleteAll(String topic) {
        requireTopic(topic);
        int deleted = 0;
        for (int shard = 0; shard < config.shards(); shard++) {
            deleted += deleteBefore(
                    topic, shard, Long.MAX_VALUE, store.countDead(topic, shard), DeleteProtocol.DEAD_DELETED);
        }
        return new Deletion(deleted, Map.of());
    }

    /**
     * Deletes the dead jobs of {@code topic} in one shard whose last due time is before {@code before}, oldest first,
     * batch by batch, looking at {@code budget} entries at most.
     *
     * @return dead jobs deleted
     */
    public int deleteBefore(String topic, int shard, long before, long budget, String detail) {
        int deleted = 0;
        while (budget > 0) {
            int limit = (int) Math.min(REQUEUE_BATCH, budget);
            List<String> ids = store.deadBefore(topic, shard, before, limit);
            budget -= limit;
            if (ids.isEmpty()) {
                break;
            }
            for (Outcome outcome : deletes.deleteDead(topic, shard, ids, detail)) {
                if (outcome.applied()) {
                    deleted++;
                }
            }
            if (ids.size() < limit) {
                break;
            }
        }
        return deleted;
    }

    /** Distinct ids by shard, shards in order; refuses a missing, blank or too long list naming {@code ids}. */
    private Map<Integer, List<String>> byShard(List<String> ids, String verb) {
        if (ids == null || ids.isEmpty()) {
            throw new InvalidField("ids", "must name at least one job (or leave ids out to " + verb + " all)");
        }
        if (ids.size() > MAX_REQUEUE_IDS) {
            throw new InvalidField("ids", "names " + ids.size() + " jobs, over the limit of " + MAX_REQUEUE_IDS);
        }
        Map<Integer, List<String>> byShard = new TreeMap<>();
        for (String id : new LinkedHashSet<>(ids)) {
            if (id == null || id.isBlank()) {
                throw new InvalidField("ids", "must not hold a blank id");
            }
            byShard.computeIfAbsent(JobIds.shardOf(id, config.shards()), s -> new ArrayList<>())
                    .add(id);
        }
        return byShard;
    }

    private static String whatInstead(Outcome outcome) {
        return outcome.result() == Outcome.Result.NOT_FOUND
                ? "NOT_FOUND"
                : outcome.status() == JobStatus.DEAD
                        ? "DEAD in another topic"
                        : outcome.status().name();
    }

    private void recordRequeued(int shard, List<String> ids, long now) {
        if (ids.isEmpty()) {
            return;
        }
        List<Transition> transitions = new ArrayList<>(ids.size());
        for (String id : ids) {
            transitions.add(new Transition(
                    id,
                    JobEvent.REQUEUED,
                    JobStatus.DEAD,
                    JobStatus.DELAY,
                    now,
                    0,
                    now,
                    "requeued from the dead letters"));
        }
        journal.recordTransitions(transitions);
        scheduled.onScheduled(shard, now);
    }

    private static void requireTopic(String topic) {
        if (topic == null || !JobFactory.TOPIC.matcher(topic).matches()) {
            throw new InvalidField("topic", "must match [A-Za-z0-9._-]{1,64}");
        }
    }
}
