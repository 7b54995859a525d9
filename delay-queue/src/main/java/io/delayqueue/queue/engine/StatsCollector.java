package io.delayqueue.queue.engine;

import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.coordination.Coordinator;
import io.delayqueue.queue.engine.handover.DispatchPipeline;
import io.delayqueue.queue.engine.handover.LatenessRecorder;
import io.delayqueue.queue.engine.handover.PullWaiters;
import io.delayqueue.queue.engine.tier.TierLoader;
import io.delayqueue.queue.engine.tier.TierStats;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.store.ShardStats;
import io.delayqueue.queue.store.StoreReads;
import java.time.Clock;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Assembles the {@link EngineStats} snapshot for {@code /stats}: the store's counts per shard summed over the
 * shards, the tiers, the lateness of the last minute, the dispatch pipeline's counters, the waiting pull consumers
 * and the journal's backlog. Owns no state of its own: each part is read from its owner.
 *
 * <p>Threading: {@link #collect()} runs on the caller's thread, at any time; the parts are read one after the
 * other, so the snapshot is not atomic across them.
 */
final class StatsCollector {
    private final EngineConfig config;
    private final StoreReads store;
    private final Journal journal;
    private final Coordinator coordinator;
    private final Clock clock;
    /** {@code null} when every job is kept in Redis. */
    private final TierLoader tierLoader;

    private final DispatchPipeline pipeline;
    private final PullWaiters pullWaiters;
    private final LatenessRecorder lateness;

    StatsCollector(
            EngineConfig config,
            StoreReads store,
            Journal journal,
            Coordinator coordinator,
            Clock clock,
            TierLoader tierLoader,
            DispatchPipeline pipeline,
            PullWaiters pullWaiters,
            LatenessRecorder lateness) {
        this.config = config;
        this.store = store;
        this.journal = journal;
        this.coordinator = coordinator;
        this.clock = clock;
        this.tierLoader = tierLoader;
        this.pipeline = pipeline;
        this.pullWaiters = pullWaiters;
        this.lateness = lateness;
    }

    /** {@link DelayQueueEngine#stats()}. */
    EngineStats collect() {
        Map<JobStatus, Long> byStatus = new EnumMap<>(JobStatus.class);
        Map<String, Long> readyByTopic = new TreeMap<>();
        List<ShardStats> shards = new ArrayList<>();
        for (int s = 0; s < config.shards(); s++) {
            ShardStats st = store.stats(s);
            shards.add(st);
            st.byStatus().forEach((k, v) -> byStatus.merge(k, v, Long::sum));
            st.readyByTopic().forEach((k, v) -> readyByTopic.merge(k, v, Long::sum));
        }
        TierStats tiers;
        if (tierLoader == null) {
            tiers = new TierStats(0, byStatus.getOrDefault(JobStatus.DELAY, 0L), 0L, null);
        } else {
            TierLoader.Count count = tierLoader.journalTier();
            tiers = new TierStats(
                    tierLoader.horizonMs(),
                    byStatus.getOrDefault(JobStatus.DELAY, 0L),
                    count == null ? null : count.jobs(),
                    count == null ? null : count.countedAt());
        }
        return new EngineStats(
                coordinator.role(),
                byStatus,
                readyByTopic,
                shards,
                tiers,
                lateness.snapshot(clock.millis()),
                lateness.restored(),
                pipeline.dispatched(),
                pipeline.failed(),
                pipeline.stale(),
                pullWaiters.waiting(),
                new EngineStats.Journal(journal.mode().name(), journal.queuedRows(), journal.lagMillis()));
    }
}
