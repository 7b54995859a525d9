package io.delayqueue.queue.engine.push;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.Job;
import io.delayqueue.common.JobIds;
import io.delayqueue.queue.engine.handover.DispatchPipeline;
import io.delayqueue.queue.engine.tier.TierProtocol;
import io.delayqueue.queue.store.PushStore;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts journaled jobs where a push puts them: near ones (due within the tier horizon) into Redis, one pipelined
 * call per shard; far ones admitted through the {@link TierProtocol}, into Redis only if their shard's loader may
 * have read past their rows already. Used by the push path for each round's jobs and by the re-admission of jobs
 * answered 202 ({@link Readmissions}).
 *
 * <p>Thread-safe: stateless beyond its parts.
 */
final class JobPlacement {
    /** The push path's logger, as before this was split from it: operators may filter on its name. */
    private static final Logger log = LoggerFactory.getLogger(PushPath.class);

    private final PushStore store;
    /** {@code null} when tiers are off: every job is near. */
    private final TierProtocol tiers;

    private final int shards;
    private final DispatchPipeline.ScheduleListener scheduled;

    JobPlacement(PushStore store, TierProtocol tiers, int shards, DispatchPipeline.ScheduleListener scheduled) {
        this.store = store;
        this.tiers = tiers;
        this.shards = shards;
        this.scheduled = scheduled;
    }

    /**
     * Places {@code jobs}; by id, whether each was created ({@code false}: Redis had it, or a far job was left to
     * the loader or found present), absent where its shard failed.
     */
    Map<String, Boolean> place(Collection<Job> jobs) {
        long farAfter = tiers == null ? Long.MAX_VALUE : tiers.farAfter();
        List<Job> near = new ArrayList<>(jobs.size());
        List<Job> far = new ArrayList<>();
        for (Job job : jobs) {
            (job.executeAt() > farAfter ? far : near).add(job);
        }
        Map<String, Boolean> byId = storeAll(near);
        if (!far.isEmpty()) {
            byId.putAll(tiers.admit(far));
        }
        return byId;
    }

    /**
     * Puts jobs into Redis, one pipelined call per shard; by id, whether each was created ({@code false}: Redis
     * had it), absent where its shard failed.
     */
    private Map<String, Boolean> storeAll(List<Job> jobs) {
        Map<String, Boolean> byId = new HashMap<>();
        if (jobs.isEmpty()) {
            return byId;
        }
        List<Boolean> stored;
        try {
            stored = store.push(jobs);
        } catch (DelayQueueException e) {
            log.warn("Redis took none of {} pushed jobs: {}", jobs.size(), e.getMessage());
            return byId;
        }
        for (int i = 0; i < jobs.size(); i++) {
            Boolean created = stored.get(i);
            if (created != null) {
                Job job = jobs.get(i);
                byId.put(job.id(), created);
                if (created) {
                    scheduled.onScheduled(JobIds.shardOf(job.id(), shards), job.executeAt());
                }
            }
        }
        return byId;
    }
}
