package io.delayqueue.queue.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.JobIds;
import io.delayqueue.common.JobStatus;
import io.delayqueue.common.PushRequest;
import io.delayqueue.queue.coordination.StandaloneCoordinator;
import io.delayqueue.queue.engine.handover.RunNow;
import io.delayqueue.queue.engine.push.PushResult;
import io.delayqueue.queue.engine.tier.TierSettings;
import io.delayqueue.queue.journal.JobEvent;
import io.delayqueue.queue.journal.JournalEntry;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.journal.JournalSettings;
import io.delayqueue.queue.journal.mybatis.MyBatisJournal;
import io.delayqueue.queue.testing.JournalDatabase;
import io.delayqueue.queue.testing.ManualClock;
import io.delayqueue.queue.testing.RecordingDispatcher;
import io.delayqueue.queue.testing.RedisFixture;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An operator's "run now" through the engine, on the real Redis and MariaDB with a manual clock: a job Redis holds
 * is handed over at once, a far job of the journal tier has its due time committed and is loaded, and a job that is
 * not DELAY is refused naming its status.
 */
class RunNowTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final long HOUR = 3_600_000L;
    private static final int SHARDS = 2;

    private RedisFixture redis;
    private JournalDatabase db;
    private MyBatisJournal journal;
    private ManualClock clock;
    private RecordingDispatcher rec;
    private DelayQueueEngine engine;

    @BeforeEach
    void setUp() {
        redis = new RedisFixture();
        db = JournalDatabase.mariaDb();
        clock = new ManualClock(T0);
        journal = db.journal(
                JournalSettings.DEFAULTS.withWriter(
                        JournalMode.SYNC, Duration.ofMillis(20), 10_000, Duration.ofSeconds(30), 1_000_000, 2),
                SHARDS,
                clock);
        rec = new RecordingDispatcher("rec");
        EngineConfig config = EngineConfig.DEFAULTS
                .withShards(SHARDS)
                .withRedisPrefix(redis.prefix())
                .withDispatch(d -> d.withDefaultDispatcher(rec.name()))
                .withTier(t -> new TierSettings(Duration.ofHours(1)))
                .withScanner(s -> s.withLead(Duration.ZERO));
        engine = new DelayQueueEngine(
                config,
                redis.store(SHARDS, config.retention()),
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

    private boolean inRedis(String id) {
        return redis.redis().hexists(redis.keys().pool(JobIds.shardOf(id, SHARDS)), id);
    }

    @Test
    void a_delay_job_run_now_is_handed_over_at_once_and_journaled_as_due_now() {
        PushResult job = engine.push(PushRequest.of("orders", "in ten minutes", 600_000));
        PushResult other = engine.push(PushRequest.of("orders", "left alone", 600_000));
        clock.set(T0 + 1_000);
        engine.runDueJobs();
        assertThat(rec.ids()).as("nothing due yet").isEmpty();

        assertThat(engine.runNow(job.id())).isEqualTo(RunNow.Result.DUE_NOW);
        assertThat(engine.get(job.id()).executeAt()).isEqualTo(T0 + 1_000);
        engine.runDueJobs();
        assertThat(rec.ids()).as("handed over at once, the other left").containsExactly(job.id());

        await("the due time is journaled").atMost(Duration.ofSeconds(10)).until(() -> journal.history(job.id()).stream()
                .map(JournalEntry::event)
                .toList()
                .contains(JobEvent.FINISHED));
        assertThat(journal.history(job.id()))
                .extracting(JournalEntry::event)
                .containsExactly(JobEvent.CREATED, JobEvent.DUE_NOW, JobEvent.RESERVED, JobEvent.FINISHED);
        assertThat(journal.find(other.id()).orElseThrow().executeAt()).isEqualTo(T0 + 600_000);
    }

    @Test
    void a_far_job_of_the_journal_tier_run_now_is_committed_due_now_then_loaded_and_handed_over() {
        PushResult far = engine.push(PushRequest.of("orders", "in three hours", 3 * HOUR));
        assertThat(inRedis(far.id())).as("far: in the journal only").isFalse();
        assertThat(engine.loadTierNow())
                .as("the loader's pass raises the intent to T0 + 1 h")
                .isZero();
        clock.set(T0 + 5_000);

        assertThat(engine.runNow(far.id())).isEqualTo(RunNow.Result.LOADED);
        assertThat(journal.find(far.id()).orElseThrow().executeAt())
                .as("committed before the answer")
                .isEqualTo(T0 + 5_000);
        assertThat(inRedis(far.id())).isTrue();
        engine.runDueJobs();
        assertThat(rec.ids()).containsExactly(far.id());
        assertThat(journal.history(far.id()))
                .extracting(JournalEntry::event)
                .startsWith(JobEvent.CREATED, JobEvent.DUE_NOW);
    }

    @Test
    void a_job_that_is_not_delay_or_unknown_is_refused_naming_why() {
        PushResult done = engine.push(PushRequest.of("orders", "due now", 0));
        engine.runDueJobs();
        assertThat(rec.ids()).containsExactly(done.id());

        assertThatThrownBy(() -> engine.runNow(done.id()))
                .isInstanceOfSatisfying(DelayQueueException.StateConflict.class, e -> {
                    assertThat(e.status()).isEqualTo(JobStatus.FINISHED);
                    assertThat(e.getMessage()).contains("is FINISHED", "only a DELAY job can be run now");
                });
        assertThatThrownBy(() -> engine.runNow("no-such-job")).isInstanceOf(DelayQueueException.JobNotFound.class);
        assertThatThrownBy(() -> engine.runNow(" "))
                .isInstanceOfSatisfying(DelayQueueException.InvalidField.class, e -> assertThat(e.getMessage())
                        .startsWith("jobId "));
    }
}
