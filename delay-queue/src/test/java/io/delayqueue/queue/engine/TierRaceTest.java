package io.delayqueue.queue.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayqueue.common.PushRequest;
import io.delayqueue.queue.coordination.StandaloneCoordinator;
import io.delayqueue.queue.engine.push.PushResult;
import io.delayqueue.queue.engine.tier.TierSettings;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.journal.JournalSettings;
import io.delayqueue.queue.journal.mybatis.MyBatisJournal;
import io.delayqueue.queue.testing.JournalDatabase;
import io.delayqueue.queue.testing.ManualClock;
import io.delayqueue.queue.testing.RecordingDispatcher;
import io.delayqueue.queue.testing.RedisFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The tier loader racing deletes, {@code clearAll}, restores and reconciler passes on the real Redis and
 * MariaDB: 100 rounds of 100 far jobs (10,000 jobs raced). In each round the clock brings every job within the
 * horizon, half of them overdue, and then, all at once, the loader loads them, another thread deletes a third of
 * them (most still journal-only, some just loaded), and a third restores from the journal or runs a reconciler
 * pass; every tenth round a {@code clearAll} races the loader instead of the single deletes. Then the round's due
 * jobs are handed over: not one deleted job may be delivered, and every other one must be.
 */
class TierRaceTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final long HOUR = 3_600_000L;
    private static final int ROUNDS = 100;
    private static final int JOBS_PER_ROUND = 100;

    private RedisFixture redis;
    private JournalDatabase db;
    private MyBatisJournal journal;
    private DelayQueueEngine engine;
    private final ManualClock clock = new ManualClock(T0);
    private final RecordingDispatcher rec = new RecordingDispatcher("rec");

    @BeforeEach
    void setUp() {
        redis = new RedisFixture();
        db = JournalDatabase.mariaDb();
        journal = db.journal(
                JournalSettings.DEFAULTS.withWriter(
                        JournalMode.SYNC, Duration.ofMillis(20), 10_000, Duration.ofSeconds(30), 1_000_000, 2),
                4,
                clock);
        EngineConfig config = EngineConfig.DEFAULTS
                .withShards(4)
                .withRedisPrefix(redis.prefix())
                .withDispatch(d -> d.withDefaultDispatcher("rec"))
                .withTier(t -> new TierSettings(Duration.ofHours(1)))
                // several pages per shard and round
                .withJournal(j -> j.withReconcile(j.reconcileInterval(), Duration.ZERO, 37))
                .withScanner(s -> s.withLead(Duration.ZERO));
        engine = new DelayQueueEngine(
                config,
                redis.store(config.shards(), config.retention()),
                List.of(rec),
                new StandaloneCoordinator(),
                journal,
                clock);
    }

    @AfterEach
    void tearDown() {
        try {
            engine.close();
            journal.close();
        } finally {
            db.close();
            redis.close();
        }
    }

    @Test
    void no_deleted_job_is_ever_delivered_and_none_is_lost_while_deletes_restores_and_reconciles_race_the_loader()
            throws Exception {
        Random random = new Random(42);
        ExecutorService pool = Executors.newFixedThreadPool(3);
        Set<String> deleted = new HashSet<>();
        Set<String> kept = new HashSet<>();
        int raced = 0;
        try {
            for (int round = 0; round < ROUNDS; round++) {
                long base = clock.millis();
                List<PushRequest> requests = new ArrayList<>();
                for (int i = 0; i < JOBS_PER_ROUND; i++) {
                    requests.add(PushRequest.of("orders", "round " + round + " job " + i, 2 * HOUR + i * 10L));
                }
                List<String> ids =
                        engine.pushBatch(requests).stream().map(PushResult::id).toList();
                // every job within the horizon, the first half overdue
                clock.set(base + 2 * HOUR + JOBS_PER_ROUND * 5L);

                boolean clearRound = round % 10 == 9;
                List<String> toDelete = new ArrayList<>();
                for (String id : ids) {
                    if (random.nextInt(3) == 0) {
                        toDelete.add(id);
                    }
                }
                boolean restoreRound = round % 2 == 0;
                CyclicBarrier start = new CyclicBarrier(3);
                Future<?> loader = pool.submit(() -> {
                    start.await();
                    for (int k = 0; k < 3; k++) {
                        engine.loadTierNow();
                    }
                    return null;
                });
                Future<Long> deleter = pool.submit(() -> {
                    start.await();
                    if (clearRound) {
                        return engine.clearAll();
                    }
                    for (String id : toDelete) {
                        engine.delete(id);
                    }
                    return (long) toDelete.size();
                });
                Future<?> healer = pool.submit(() -> {
                    start.await();
                    if (restoreRound) {
                        engine.restore(true);
                    } else {
                        engine.reconcileNow();
                    }
                    return null;
                });
                loader.get();
                long deletedNow = deleter.get();
                healer.get();
                if (clearRound) {
                    assertThat(deletedNow).as("cleared in round %d", round).isEqualTo(JOBS_PER_ROUND);
                    deleted.addAll(ids);
                } else {
                    deleted.addAll(toDelete);
                    ids.stream().filter(id -> !toDelete.contains(id)).forEach(kept::add);
                }
                raced += ids.size();

                engine.loadTierNow();
                clock.set(base + 3 * HOUR);
                engine.runDueJobs();
            }
        } finally {
            pool.shutdownNow();
        }

        assertThat(raced).isEqualTo(10_000);
        List<String> delivered = rec.ids();
        Map<String, Integer> times = new HashMap<>();
        delivered.forEach(id -> times.merge(id, 1, Integer::sum));
        assertThat(times.keySet()).as("deleted jobs delivered").doesNotContainAnyElementsOf(deleted);
        assertThat(times.keySet()).as("jobs delivered").containsExactlyInAnyOrderElementsOf(kept);
        assertThat(times.values()).as("deliveries per job").allMatch(n -> n == 1);
    }
}
