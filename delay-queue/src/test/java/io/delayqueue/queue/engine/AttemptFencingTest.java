package io.delayqueue.queue.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.common.PushRequest;
import io.delayqueue.queue.coordination.StandaloneCoordinator;
import io.delayqueue.queue.dispatch.Dispatcher;
import io.delayqueue.queue.engine.handover.DispatchSettings;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.testing.ManualClock;
import io.delayqueue.queue.testing.RedisFixture;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Outcomes fenced by attempt, through the engine on the real Redis: an outcome of attempt n that arrives after
 * the job was handed over again as attempt n+1 is ignored and counted, and n+1's own outcome counts.
 */
class AttemptFencingTest {
    private static final String PULLED = "pulled";
    private static final String PUSHED = "pushed";

    private RedisFixture redis;
    private DelayQueueEngine engine;

    /** Every send stays open until the test completes it. */
    private static final class HeldSends implements Dispatcher {
        record Send(Job job, CompletableFuture<Void> outcome) {}

        private final List<Send> sends = new ArrayList<>();

        @Override
        public String name() {
            return "held";
        }

        @Override
        public synchronized CompletionStage<Void> dispatch(Job job) {
            CompletableFuture<Void> outcome = new CompletableFuture<>();
            sends.add(new Send(job, outcome));
            return outcome;
        }

        synchronized List<Send> sends() {
            return List.copyOf(sends);
        }
    }

    @BeforeEach
    void setUp() {
        redis = new RedisFixture();
    }

    @AfterEach
    void tearDown() {
        try {
            if (engine != null) {
                engine.close();
            }
        } finally {
            redis.close();
        }
    }

    private DelayQueueEngine engine(Clock clock, Dispatcher dispatcher, Duration dispatchTimeout) {
        EngineConfig config = EngineConfig.DEFAULTS
                .withShards(2)
                .withRedisPrefix(redis.prefix())
                .withDispatch(d -> d.withDefaultDispatcher(dispatcher.name())
                        .withTopics(Map.of(PULLED, DispatchSettings.PULL))
                        .withTimeout(dispatchTimeout))
                .withRetry(r -> r.withBackoff(List.of(Duration.ofMinutes(10))));
        engine = new DelayQueueEngine(
                config,
                redis.store(config.shards(), config.retention()),
                List.of(dispatcher),
                new StandaloneCoordinator(),
                Journal.NONE,
                clock);
        return engine;
    }

    @Test
    void a_consumer_finish_of_an_expired_attempt_is_ignored_and_counted_and_the_next_attempt_finishes()
            throws Exception {
        ManualClock clock = new ManualClock(1_700_000_000_000L);
        engine(clock, new HeldSends(), Duration.ofSeconds(30));
        String id = engine.push(PushRequest.of(PULLED, "b", 0).withTtr(1_000)).id();
        engine.runDueJobs();
        Job first = engine.reserve(PULLED, 0).get(5, TimeUnit.SECONDS).orElseThrow();
        clock.advance(1_000); // the first consumer's TTR expires
        engine.runDueJobs();
        Job second = engine.reserve(PULLED, 0).get(5, TimeUnit.SECONDS).orElseThrow();
        assertThat(second.id()).isEqualTo(id);
        assertThat(second.attempts()).isEqualTo(first.attempts() + 1);

        assertThatThrownBy(() -> engine.finish(id, first.attempts()))
                .isInstanceOf(DelayQueueException.StateConflict.class)
                .hasMessageContaining("attempt " + first.attempts());
        assertThat(engine.get(id).status()).isEqualTo(JobStatus.RESERVED);
        assertThat(engine.stats().staleOutcomes()).isEqualTo(1);

        engine.finish(id, second.attempts());
        assertThat(engine.get(id).status()).isEqualTo(JobStatus.FINISHED);
        assertThat(engine.get(id).attempts()).isEqualTo(1);
    }

    @Test
    void a_late_send_failure_of_attempt_n_after_attempt_n_plus_1_was_dispatched_adds_no_attempt() {
        HeldSends dispatcher = new HeldSends();
        // long enough that the second send is still open while the test looks (each look takes milliseconds)
        engine(Clock.systemUTC(), dispatcher, Duration.ofSeconds(2));
        engine.start();
        String id = engine.push(PushRequest.of(PUSHED, "b", 0)).id();
        // the first send is not confirmed within the dispatch timeout: the job is dispatched again
        await("a second dispatch")
                .atMost(Duration.ofSeconds(10))
                .until(() -> dispatcher.sends().size() >= 2);
        HeldSends.Send first = dispatcher.sends().get(0);
        HeldSends.Send second = dispatcher.sends().get(1);
        assertThat(second.job().attempts()).isEqualTo(first.job().attempts() + 1);

        first.outcome().completeExceptionally(new IllegalStateException("late failure of the first send"));
        await("the failure counted as stale")
                .atMost(Duration.ofSeconds(5))
                .until(() -> engine.stats().staleOutcomes() == 1);
        Job now = engine.get(id);
        assertThat(now.status()).isEqualTo(JobStatus.RESERVED);
        assertThat(now.attempts())
                .as("no attempt added by the stale failure")
                .isEqualTo(second.job().attempts());

        second.outcome().complete(null);
        await("FINISHED")
                .atMost(Duration.ofSeconds(5))
                .until(() -> engine.get(id).status() == JobStatus.FINISHED);
        assertThat(engine.get(id).attempts()).isEqualTo(1);
        assertThat(engine.stats().staleOutcomes()).isEqualTo(1);
    }
}
