package io.delayqueue.queue.store;

import io.delayqueue.common.Job;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Dead letters: listing, counting and requeueing them. A role of {@link JobStore}. */
public interface DeadLetterStore {
    /** Number of shards; a job's shard is {@link io.delayqueue.common.JobIds#shardOf}. */
    int shards();

    /** The oldest (by last due time) {@code limit} dead jobs of {@code topic} in one shard. */
    List<Job> listDead(String topic, int shard, int limit);

    /**
     * Up to {@code limit} ids of dead jobs of {@code topic} in one shard whose last due time is before {@code before},
     * oldest first (dead letters past their retention).
     */
    List<String> deadBefore(String topic, int shard, long before, int limit);

    /** The topics that have jobs (not final) in one shard: each topic with dead jobs there is among them. */
    List<String> topics(int shard);

    /** How many dead jobs {@code topic} has in one shard. */
    long countDead(String topic, int shard);

    /**
     * How many dead jobs each of {@code topics} has over every shard. The default asks {@link #countDead(String,
     * int)} shard by shard; a store over the network reads them all in one round trip.
     */
    default Map<String, Long> countDead(Collection<String> topics) {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (String topic : topics) {
            long total = 0;
            for (int shard = 0; shard < shards(); shard++) {
                total += countDead(topic, shard);
            }
            counts.put(topic, total);
        }
        return counts;
    }

    /**
     * Requeues dead jobs of {@code topic} by id: each goes back to {@code DELAY}, due at {@code now}, with its
     * attempts counted from zero. A job that is not a dead job of the topic is left alone ({@link
     * Outcome.Result#CONFLICT} with its status, or {@link Outcome.Result#NOT_FOUND}). Outcomes in the order of
     * {@code ids}.
     */
    List<Outcome> requeueDead(String topic, int shard, List<String> ids, long now);

    /**
     * Requeues the oldest {@code limit} dead jobs of {@code topic} in one shard, as {@link #requeueDead(String,
     * int, List, long)} does.
     */
    Requeued requeueOldestDead(String topic, int shard, int limit, long now);

    /**
     * What {@link #requeueOldestDead} did.
     *
     * @param ids the jobs requeued, oldest first
     * @param more whether the dead set may hold more (the call looked at as many entries as it was allowed)
     */
    record Requeued(List<String> ids, boolean more) {}
}
