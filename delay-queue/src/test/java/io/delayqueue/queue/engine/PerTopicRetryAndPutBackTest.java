package io.delayqueue.queue.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.common.PushRequest;
import io.delayqueue.queue.coordination.StandaloneCoordinator;
import io.delayqueue.queue.dispatch.DispatchRejectedException;
import io.delayqueue.queue.dispatch.Dispatcher;
import io.delayqueue.queue.dispatch.http.HttpCallbackDispatcher;
import io.delayqueue.queue.dispatch.http.HttpCallbackSettings;
import io.delayqueue.queue.engine.handover.DispatchPipeline;
import io.delayqueue.queue.engine.handover.RetrySettings;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.testing.ManualClock;
import io.delayqueue.queue.testing.RecordingDispatcher;
import io.delayqueue.queue.testing.RedisFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Retry ladders and max attempts per topic, jobs that a dispatcher turns away unsent, and the url a topic
 * dispatched by HTTP callback needs: a latent engine driven by a manual clock, on the real Redis.
 */
class PerTopicRetryAndPutBackTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final String FAST = "fast";
    private static final String BUSY = "busy";
    private static final String CALLBACK = "callback";

    private RedisFixture redis;
    private ManualClock clock;
    private RecordingDispatcher dispatcher;
    private final AtomicBoolean turnAway = new AtomicBoolean(true);
    private final List<Job> turnedAway = new ArrayList<>();
    private DelayQueueEngine engine;

    /** Turns every job away unsent while {@link #turnAway} is set, then confirms. */
    private final Dispatcher busy = new Dispatcher() {
        @Override
        public String name() {
            return BUSY;
        }

        @Override
        public synchronized CompletionStage<Void> dispatch(Job job) {
            if (turnAway.get()) {
                turnedAway.add(job);
                return CompletableFuture.failedFuture(new DispatchRejectedException("pool full"));
            }
            return CompletableFuture.completedFuture(null);
        }
    };

    @BeforeEach
    void setUp() {
        redis = new RedisFixture();
        clock = new ManualClock(T0);
        dispatcher = new RecordingDispatcher("rec");
        EngineConfig config = EngineConfig.DEFAULTS
                .withShards(2)
                .withRedisPrefix(redis.prefix())
                .withDispatch(d -> d.withDefaultDispatcher("rec")
                        .withTopics(Map.of(BUSY, BUSY, CALLBACK, HttpCallbackDispatcher.NAME)))
                .withRetry(r -> r.withBackoff(List.of(Duration.ofSeconds(10), Duration.ofSeconds(20)))
                        .withMaxAttempts(10)
                        .withTopics(Map.of(
                                FAST,
                                new RetrySettings.TopicRetry(List.of(Duration.ofMillis(10), Duration.ofMillis(30)), 3),
                                "few",
                                new RetrySettings.TopicRetry(null, 2))));
        engine = new DelayQueueEngine(
                config,
                redis.store(config.shards(), config.retention()),
                List.of(dispatcher, busy, new HttpCallbackDispatcher(HttpCallbackSettings.defaults())),
                new StandaloneCoordinator(),
                Journal.NONE,
                clock);
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
    void failed_sends_of_a_topic_with_its_own_ladder_follow_that_ladder_and_its_max_attempts() {
        dispatcher.failSends(true);
        String id = engine.push(PushRequest.of(FAST, "b", 0)).id();
        assertThat(engine.get(id).maxAttempts()).isEqualTo(3);

        engine.runDueJobs();
        assertThat(engine.get(id).executeAt()).isEqualTo(clock.millis() + 10);
        clock.advance(10);
        engine.runDueJobs();
        assertThat(engine.get(id).executeAt()).isEqualTo(clock.millis() + 30);
        clock.advance(30);
        engine.runDueJobs();

        Job job = engine.get(id);
        assertThat(job.status()).isEqualTo(JobStatus.DEAD);
        assertThat(job.attempts()).isEqualTo(3);
        assertThat(dispatcher.count()).isEqualTo(3);
    }

    @Test
    void topics_without_a_ladder_of_their_own_use_the_default_one() {
        dispatcher.failSends(true);
        String plain = engine.push(PushRequest.of("plain", "b", 0)).id();
        String few = engine.push(PushRequest.of("few", "b", 0)).id();

        engine.runDueJobs();

        assertThat(engine.get(plain).executeAt()).isEqualTo(clock.millis() + 10_000);
        assertThat(engine.get(plain).maxAttempts()).isEqualTo(10);
        assertThat(engine.get(few).executeAt()).isEqualTo(clock.millis() + 10_000);
        assertThat(engine.get(few).maxAttempts()).isEqualTo(2);
    }

    @Test
    void max_attempts_given_by_the_push_wins_over_the_topics() {
        String id = engine.push(PushRequest.of(FAST, "b", 0).withMaxAttempts(7)).id();

        assertThat(engine.get(id).maxAttempts()).isEqualTo(7);
    }

    @Test
    void job_turned_away_unsent_is_put_back_without_an_attempt_and_sent_later() {
        String id = engine.push(PushRequest.of(BUSY, "b", 100)).id();
        clock.advance(100);

        engine.runDueJobs();

        Job putBack = engine.get(id);
        assertThat(turnedAway).extracting(Job::id).containsExactly(id);
        assertThat(putBack.status()).isEqualTo(JobStatus.DELAY);
        assertThat(putBack.attempts()).isZero();
        assertThat(putBack.executeAt()).as("its due time stays").isEqualTo(T0 + 100);
        assertThat(engine.stats().dispatchFailures()).isZero();

        // put back for the shortest wait first, then as long as it is already late
        clock.advance(DispatchPipeline.BUSY_RETRY_MIN_MS - 1);
        engine.runDueJobs();
        assertThat(turnedAway).hasSize(1);
        clock.advance(1);
        engine.runDueJobs();
        assertThat(turnedAway).hasSize(2);
        long late = clock.millis() - (T0 + 100);
        clock.advance(late - 1);
        engine.runDueJobs();
        assertThat(turnedAway).hasSize(2);

        turnAway.set(false);
        clock.advance(1);
        engine.runDueJobs();

        Job done = engine.get(id);
        assertThat(done.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(done.attempts()).isZero();
    }

    @Test
    void put_back_waits_grow_with_lateness_up_to_a_cap() {
        Job job = new Job("x", "t", null, null, "b", T0, 1, 1, null, 0, T0, JobStatus.RESERVED, 0);

        assertThat(DispatchPipeline.busyRetryDelay(job, T0)).isEqualTo(DispatchPipeline.BUSY_RETRY_MIN_MS);
        assertThat(DispatchPipeline.busyRetryDelay(job, T0 + 300)).isEqualTo(300);
        assertThat(DispatchPipeline.busyRetryDelay(job, T0 + 3_600_000)).isEqualTo(DispatchPipeline.BUSY_RETRY_MAX_MS);
    }

    @Test
    void push_to_a_topic_dispatched_by_http_callback_without_a_url_is_rejected_naming_url() {
        assertThatThrownBy(() -> engine.push(PushRequest.of(CALLBACK, "b", 0)))
                .isInstanceOf(DelayQueueException.InvalidField.class)
                .hasMessageContaining("url")
                .hasMessageContaining(CALLBACK);
    }
}
