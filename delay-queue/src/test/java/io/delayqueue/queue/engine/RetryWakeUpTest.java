package io.delayqueue.queue.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.common.PushRequest;
import io.delayqueue.queue.coordination.StandaloneCoordinator;
import io.delayqueue.queue.dispatch.Dispatcher;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.testing.RedisFixture;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A started engine whose scanner would sleep a minute: a failed send scheduled again a few ms later wakes
 * its shard's scanner, so the retry happens on its ladder step and not when the scanner happens to look.
 */
class RetryWakeUpTest {
    private static final Duration LONG = Duration.ofMinutes(1);

    private RedisFixture redis;
    private DelayQueueEngine engine;
    private final AtomicInteger sends = new AtomicInteger();

    /** Fails the first send of every job, confirms the second. */
    private final Dispatcher failsOnce = new Dispatcher() {
        @Override
        public String name() {
            return "once";
        }

        @Override
        public CompletionStage<Void> dispatch(Job job) {
            sends.incrementAndGet();
            return job.attempts() == 0
                    ? CompletableFuture.failedFuture(new IllegalStateException("first send refused"))
                    : CompletableFuture.completedFuture(null);
        }
    };

    @BeforeEach
    void setUp() {
        redis = new RedisFixture();
        EngineConfig config = EngineConfig.DEFAULTS
                .withShards(1)
                .withRedisPrefix(redis.prefix())
                .withScanner(s -> s.withMaxSleep(LONG))
                .withDispatch(d -> d.withTimeout(LONG).withDefaultDispatcher("once"))
                .withRetry(r -> r.withBackoff(List.of(Duration.ofMillis(50))));
        engine = new DelayQueueEngine(
                config,
                redis.store(config.shards(), config.retention()),
                List.of(failsOnce),
                new StandaloneCoordinator(),
                Journal.NONE,
                Clock.systemUTC());
        engine.start();
    }

    @AfterEach
    void tearDown() {
        try {
            engine.close();
        } finally {
            redis.close();
        }
    }

    @Test
    void failed_send_is_retried_on_its_ladder_step_even_while_the_scanner_would_sleep_long() {
        String id = engine.push(PushRequest.of("t", "b", 0)).id();

        await("the job finished on its second send")
                .atMost(LONG.dividedBy(3))
                .until(() -> engine.get(id).status() == JobStatus.FINISHED);

        assertThat(sends.get()).isEqualTo(2);
        assertThat(engine.get(id).attempts()).isEqualTo(1);
    }
}
