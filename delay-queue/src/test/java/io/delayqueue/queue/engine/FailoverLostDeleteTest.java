package io.delayqueue.queue.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayqueue.common.JobStatus;
import io.delayqueue.common.PushRequest;
import io.delayqueue.queue.coordination.StandaloneCoordinator;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.journal.JournalSettings;
import io.delayqueue.queue.journal.mybatis.MyBatisJournal;
import io.delayqueue.queue.testing.JournalDatabase;
import io.delayqueue.queue.testing.ManualClock;
import io.delayqueue.queue.testing.RecordingDispatcher;
import io.delayqueue.queue.testing.RedisFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A Redis fail-over that lost an answered delete (issue 19, item 2): with asynchronous replication the promoted
 * replica may lack the delete's writes and hold the job live, while the journal holds it {@code DELETED}. The
 * promoted replica is played on the real Redis by putting back, key by key ({@code DUMP}/{@code RESTORE}), the queue's
 * keys as they were before the delete; the journal is the real MariaDB one. The reconciler must make Redis agree with
 * the journal, so that the job is never handed over.
 */
class FailoverLostDeleteTest {
    private static final long T0 = 1_700_000_000_000L;
    /** Jobs per page of the reconciler's reads. */
    private static final int PAGE = 10;

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
                JournalSettings.DEFAULTS
                        .withWriter(
                                JournalMode.SYNC, Duration.ofMillis(20), 10_000, Duration.ofSeconds(30), 1_000_000, 2)
                        .withReconcile(Duration.ofSeconds(5), Duration.ofSeconds(30), PAGE),
                2,
                clock);
        EngineConfig config = EngineConfig.DEFAULTS
                .withShards(2)
                .withRedisPrefix(redis.prefix())
                .withDispatch(d -> d.withDefaultDispatcher("rec"))
                .withScanner(s -> s.withLead(Duration.ZERO))
                .withJournal(j -> j.withReconcile(Duration.ofSeconds(5), Duration.ofSeconds(30), PAGE));
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
    void a_delete_a_fail_over_lost_in_redis_is_made_again_by_the_reconciler_and_the_job_is_never_delivered() {
        String deleted = engine.push(PushRequest.of("orders", "deleted, then lost", 60_000))
                .id();
        String kept = engine.push(PushRequest.of("orders", "kept", 60_000)).id();
        Map<byte[], byte[]> replica = redis.dumpAll();

        engine.delete(deleted);
        assertThat(journal.find(deleted).orElseThrow().status()).isEqualTo(JobStatus.DELETED);
        redis.restoreDumps(replica);
        assertThat(engine.get(deleted).status())
                .as("the promoted replica lacks the delete")
                .isEqualTo(JobStatus.DELAY);

        engine.reconcileNow();

        assertThat(engine.get(deleted).status()).isEqualTo(JobStatus.DELETED);
        assertThat(journal.find(deleted).orElseThrow().status())
                .as("the journal is the truth, not rewritten from Redis")
                .isEqualTo(JobStatus.DELETED);
        clock.set(T0 + 120_000);
        engine.runDueJobs();
        assertThat(rec.ids()).as("delivered after the fail-over").containsExactly(kept);
    }

    @Test
    void each_reconciler_pass_checks_the_soonest_deleted_jobs_first_whatever_its_walk_through_later_ones() {
        List<String> later = new ArrayList<>();
        for (int i = 0; i < 3 * PAGE; i++) {
            later.add(engine.push(PushRequest.of("orders", "later " + i, 3_600_000))
                    .id());
        }
        later.forEach(engine::delete);
        engine.reconcileNow(); // the walk through the DELETED rows is now among the later ones
        String soon = engine.push(PushRequest.of("orders", "due soon", 10_000)).id();
        engine.runDueJobs();
        Map<byte[], byte[]> replica = redis.dumpAll();
        engine.delete(soon);
        redis.restoreDumps(replica);
        assertThat(engine.get(soon).status())
                .as("the promoted replica lacks the delete")
                .isEqualTo(JobStatus.DELAY);

        engine.reconcileNow();

        assertThat(engine.get(soon).status())
                .as("the job due soonest, deleted in the journal, after one pass")
                .isEqualTo(JobStatus.DELETED);
    }
}
