package io.delayqueue.queue.engine;

import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.engine.handover.LatenessRecorder;
import io.delayqueue.queue.engine.tier.TierStats;
import io.delayqueue.queue.store.ShardStats;
import java.util.List;
import java.util.Map;

/**
 * A snapshot for {@code /stats}.
 *
 * @param byStatus jobs in the store per status, over every shard
 * @param readyByTopic ready-list lengths per topic, over every shard
 * @param tiers pending jobs in Redis and in the journal tier
 * @param lateness how late jobs were handed over in the last minute
 * @param restored jobs handed over since start that were due before this instance started or before a restore put
 *     them back into Redis: not counted in {@code lateness}
 * @param dispatched sends confirmed since start
 * @param dispatchFailures sends failed since start
 * @param staleOutcomes outcomes (finishes, failed sends, put-backs) ignored since start because the attempt they
 *     belonged to was over: its reservation had expired and the job had been handed over again
 * @param pullWaiting consumers waiting in {@code GET /get/{topic}} right now
 * @param journal the journal's backlog right now
 */
public record EngineStats(
        String role,
        Map<JobStatus, Long> byStatus,
        Map<String, Long> readyByTopic,
        List<ShardStats> shards,
        TierStats tiers,
        LatenessRecorder.Snapshot lateness,
        long restored,
        long dispatched,
        long dispatchFailures,
        long staleOutcomes,
        int pullWaiting,
        Journal journal) {

    /**
     * The journal's backlog.
     *
     * @param mode {@code SYNC}, {@code ASYNC} or {@code OFF}
     * @param queuedRows rows handed to the journal and not committed yet
     * @param lagMs the age of the oldest entry handed to the journal and not committed yet (0 when none waits)
     */
    public record Journal(String mode, long queuedRows, long lagMs) {}
}
