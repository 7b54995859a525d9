package io.delayqueue.queue.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.common.PushRequest;
import io.delayqueue.queue.coordination.StandaloneCoordinator;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.journal.mybatis.MyBatisJournal;
import io.delayqueue.queue.testing.JournalDatabase;
import io.delayqueue.queue.testing.RecordingDispatcher;
import io.delayqueue.queue.testing.RedisFixture;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Jobs that waited out a restart or the loss of Redis are not counted as late: a job due a minute before the engine
 * started, or one a restore put back, is handed over as restored, and the lateness figures hold only the jobs that
 * came due while the engine ran.
 */
class RestoredLatenessTest {
    private RedisFixture redis;
    private EngineConfig config;

    @BeforeEach
    void setUp() {
        redis = new RedisFixture();
        config = EngineConfig.DEFAULTS
                .withShards(1)
                .withRedisPrefix(redis.prefix())
                .withDispatch(d -> d.withDefaultDispatcher("rec"));
    }

    @AfterEach
    void tearDown() {
        redis.close();
    }

    private DelayQueueEngine engine(RecordingDispatcher dispatcher, Clock clock) {
        return new DelayQueueEngine(
                config,
                redis.store(config.shards(), config.retention()),
                List.of(dispatcher),
                new StandaloneCoordinator(),
                Journal.NONE,
                clock);
    }

    @Test
    void a_job_due_before_the_start_is_counted_as_restored_not_as_late() {
        RecordingDispatcher dispatcher = new RecordingDispatcher("rec");
        // the instance before the restart: took the job, due a minute ago by now, and stopped before handing it over
        String waited;
        try (DelayQueueEngine before = engine(dispatcher, Clock.offset(Clock.systemUTC(), Duration.ofMinutes(-1)))) {
            waited = before.push(PushRequest.of("orders", "waited out the restart", 0))
                    .id();
        }

        try (DelayQueueEngine after = engine(dispatcher, Clock.systemUTC())) {
            after.start();
            String fresh =
                    after.push(PushRequest.of("orders", "due while running", 0)).id();
            await("both handed over")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> dispatcher.ids().containsAll(List.of(waited, fresh)));

            EngineStats stats = after.stats();
            assertThat(stats.restored()).as("restored hand-overs").isEqualTo(1);
            assertThat(stats.lateness().count())
                    .as("hand-overs counted in the lateness")
                    .isEqualTo(1);
            assertThat(stats.lateness().max())
                    .as("the lateness holds no minute of waiting")
                    .isLessThan(Duration.ofSeconds(30).toMillis());
        }
    }

    @Test
    void a_job_a_restore_put_back_is_counted_as_restored_not_as_late() {
        RecordingDispatcher dispatcher = new RecordingDispatcher("rec");
        try (JournalDatabase db = JournalDatabase.h2();
                MyBatisJournal journal = db.journal(config.shards(), Clock.systemUTC());
                DelayQueueEngine engine = new DelayQueueEngine(
                        config,
                        redis.store(config.shards(), config.retention()),
                        List.of(dispatcher),
                        new StandaloneCoordinator(),
                        journal,
                        Clock.systemUTC())) {
            engine.start();
            // a job the journal holds and Redis lost, due after the start: only the restore can hand it over
            long now = System.currentTimeMillis();
            Job lost = new Job("lost-1", "orders", null, null, "b", now, 30_000, 3, null, 0, now, JobStatus.DELAY, 0);
            journal.recordCreated(List.of(lost));

            assertThat(engine.restore(true).restored()).isEqualTo(1);
            await("handed over")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> dispatcher.ids().contains(lost.id()));

            EngineStats stats = engine.stats();
            assertThat(stats.restored()).as("restored hand-overs").isEqualTo(1);
            assertThat(stats.lateness().count())
                    .as("hand-overs counted in the lateness")
                    .isZero();
        }
    }
}
