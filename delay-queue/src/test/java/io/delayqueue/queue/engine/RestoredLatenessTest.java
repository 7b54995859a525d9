package io.delayqueue.queue.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.common.PushRequest;
import io.delayqueue.queue.coordination.StandaloneCoordinator;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.testing.RecordingDispatcher;
import io.delayqueue.queue.testing.RedisFixture;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Jobs that waited out a restart are not counted as late: a job due a minute before the engine started is handed
 * over as restored, and the lateness figures hold only the jobs that came due while the engine ran.
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
}
