package io.delayqueue.queue.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.common.PushRequest;
import io.delayqueue.queue.coordination.StandaloneCoordinator;
import io.delayqueue.queue.engine.handover.DispatchSettings;
import io.delayqueue.queue.engine.handover.FinishOutcome;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.testing.ManualClock;
import io.delayqueue.queue.testing.RecordingDispatcher;
import io.delayqueue.queue.testing.RedisFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Long-polling pull consumers of a latent engine driven by a manual clock and {@code runDueJobs()}. */
class PullConsumerTest {
    private static final String TOPIC = "pulls";

    private RedisFixture redis;
    private ManualClock clock;
    private DelayQueueEngine engine;

    @BeforeEach
    void setUp() {
        redis = new RedisFixture();
        clock = new ManualClock(1_700_000_000_000L);
        EngineConfig config = EngineConfig.DEFAULTS
                .withShards(2)
                .withRedisPrefix(redis.prefix())
                .withDispatch(d -> d.withDefaultDispatcher(DispatchSettings.PULL))
                .withPull(p -> p.withMaxTimeout(Duration.ofSeconds(10)).withRecheck(Duration.ofSeconds(10)));
        engine = new DelayQueueEngine(
                config,
                redis.store(config.shards(), config.retention()),
                List.of(),
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
    void waiting_consumer_gets_the_job_as_soon_as_it_becomes_ready() throws Exception {
        String id = engine.push(PushRequest.of(TOPIC, "b", 1_000)).id();
        CompletableFuture<Optional<Job>> waiting = engine.reserve(TOPIC, 10_000);
        assertThat(waiting).isNotDone();

        clock.advance(1_000);
        long readyAt = System.nanoTime();
        engine.runDueJobs();
        Optional<Job> got = waiting.get(5, TimeUnit.SECONDS);

        assertThat(got).map(Job::id).contains(id);
        assertThat(Duration.ofNanos(System.nanoTime() - readyAt))
                .as("served on the signal, not on the 10 s recheck")
                .isLessThan(Duration.ofSeconds(2));
        assertThat(engine.get(id).status()).isEqualTo(JobStatus.RESERVED);
    }

    @Test
    void waiting_consumer_gets_empty_after_its_timeout() throws Exception {
        long started = System.nanoTime();
        CompletableFuture<Optional<Job>> waiting = engine.reserve(TOPIC, 200);

        Optional<Job> got = waiting.get(5, TimeUnit.SECONDS);

        assertThat(got).isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(190));
        assertThat(engine.stats().pullWaiting()).isZero();
    }

    @Test
    void each_ready_job_goes_to_exactly_one_of_many_waiting_consumers() throws Exception {
        List<CompletableFuture<Optional<Job>>> waiting = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            waiting.add(engine.reserve(TOPIC, 1_000));
        }
        // a waiter is briefly out of the queue while it is being served, so wait for all six to settle
        await("six consumers waiting")
                .atMost(Duration.ofSeconds(5))
                .until(() -> engine.stats().pullWaiting() == 6);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            ids.add(engine.push(PushRequest.of(TOPIC, "b" + i, 0)).id());
        }

        engine.runDueJobs();

        List<String> served = new ArrayList<>();
        int empty = 0;
        for (CompletableFuture<Optional<Job>> w : waiting) {
            Optional<Job> got = w.get(10, TimeUnit.SECONDS);
            if (got.isPresent()) {
                served.add(got.get().id());
            } else {
                empty++;
            }
        }
        assertThat(served).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(empty).isEqualTo(2);
    }

    @Test
    void ready_job_is_reserved_at_once_without_waiting() {
        String id = engine.push(PushRequest.of(TOPIC, "b", 0)).id();
        engine.runDueJobs();

        CompletableFuture<Optional<Job>> got = engine.reserve(TOPIC, 5_000);

        assertThat(got).isCompleted();
        assertThat(got.join()).map(Job::id).contains(id);
    }

    @Test
    void poll_timeout_outside_its_limits_is_rejected_naming_timeout() {
        assertThatThrownBy(() -> engine.reserve(TOPIC, 10_001))
                .isInstanceOfSatisfying(DelayQueueException.InvalidField.class, e -> assertThat(e.field())
                        .isEqualTo("timeout"));
        assertThatThrownBy(() -> engine.reserve(TOPIC, -1))
                .isInstanceOfSatisfying(DelayQueueException.InvalidField.class, e -> assertThat(e.field())
                        .isEqualTo("timeout"));
    }

    @Test
    void malformed_topic_is_rejected_naming_topic() {
        assertThatThrownBy(() -> engine.reserve("no spaces", 0))
                .isInstanceOfSatisfying(DelayQueueException.InvalidField.class, e -> assertThat(e.field())
                        .isEqualTo("topic"));
    }

    @Test
    void closing_the_engine_answers_waiting_consumers_with_empty() throws Exception {
        // each new waiter is being served (looked up in Redis) for a moment right after it arrives, so
        // closing at once also catches waiters in the middle of being served
        List<CompletableFuture<Optional<Job>>> waiting = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            waiting.add(engine.reserve(TOPIC, 10_000));
        }

        engine.close();

        for (CompletableFuture<Optional<Job>> w : waiting) {
            assertThat(w.get(5, TimeUnit.SECONDS)).isEmpty();
        }
    }

    @Test
    void closed_engine_refuses_work_as_unavailable() {
        engine.close();

        assertThatThrownBy(() -> engine.push(PushRequest.of(TOPIC, "b", 0)))
                .isInstanceOfSatisfying(DelayQueueException.Unavailable.class, e -> assertThat(e.httpStatus())
                        .isEqualTo(503));
        assertThatThrownBy(() -> engine.reserve(TOPIC, 0)).isInstanceOf(DelayQueueException.Unavailable.class);
        assertThatThrownBy(() -> engine.delete("x")).isInstanceOf(DelayQueueException.Unavailable.class);
        assertThatThrownBy(engine::start).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void engine_can_be_started_only_once() {
        engine.start();

        assertThat(engine.isRunning()).isTrue();
        assertThatThrownBy(engine::start).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void engine_refuses_a_route_to_a_dispatcher_that_does_not_exist() {
        EngineConfig config = engine.config().withDispatch(d -> d.withDefaultDispatcher("rocketmq"));

        assertThatThrownBy(() -> new DelayQueueEngine(
                        config,
                        redis.store(config.shards(), config.retention()),
                        List.of(new RecordingDispatcher("console")),
                        new StandaloneCoordinator(),
                        Journal.NONE,
                        clock))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("rocketmq")
                .hasMessageContaining("console");
    }

    @Test
    void engine_refuses_a_store_with_another_shard_count() {
        assertThatThrownBy(() -> new DelayQueueEngine(
                        engine.config(),
                        redis.store(3, Duration.ZERO),
                        List.of(),
                        new StandaloneCoordinator(),
                        Journal.NONE,
                        clock))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("3")
                .hasMessageContaining("2");
    }

    @Test
    void engine_refuses_two_dispatchers_of_one_name() {
        assertThatThrownBy(() -> new DelayQueueEngine(
                        engine.config(),
                        redis.store(2, Duration.ZERO),
                        List.of(new RecordingDispatcher("x"), new RecordingDispatcher("x")),
                        new StandaloneCoordinator(),
                        Journal.NONE,
                        clock))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("x");
    }

    @Test
    void a_waiting_batch_consumer_gets_ready_jobs_up_to_its_count_and_later_calls_the_rest() throws Exception {
        List<String> pushed = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            pushed.add(engine.push(PushRequest.of(TOPIC, "b" + i, 1_000)).id());
        }
        CompletableFuture<List<Job>> waiting = engine.reserve(TOPIC, 5, 10_000);
        assertThat(waiting).isNotDone();

        clock.advance(1_000);
        engine.runDueJobs();
        // woken by the first shard that made jobs ready, the waiter takes what is ready then (1 to 5 of them)
        List<Job> first = waiting.get(5, TimeUnit.SECONDS);
        assertThat(first).isNotEmpty().hasSizeLessThanOrEqualTo(5);
        assertThat(first).extracting(Job::status).containsOnly(JobStatus.RESERVED);
        List<String> all = new ArrayList<>();
        first.forEach(j -> all.add(j.id()));
        while (all.size() < pushed.size()) {
            List<Job> more = engine.reserve(TOPIC, 5, 0).get(5, TimeUnit.SECONDS);
            assertThat(more)
                    .as("a call while %d jobs are ready", pushed.size() - all.size())
                    .isNotEmpty()
                    .hasSize(Math.min(5, pushed.size() - all.size()));
            more.forEach(j -> all.add(j.id()));
        }
        assertThat(all).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(pushed);
        assertThat(engine.reserve(TOPIC, 5, 0).get(5, TimeUnit.SECONDS)).isEmpty();
    }

    @Test
    void a_batch_finish_answers_each_job_and_counts_a_stale_attempt() throws Exception {
        String a = engine.push(PushRequest.of(TOPIC, "a", 0)).id();
        String b = engine.push(PushRequest.of(TOPIC, "b", 0)).id();
        engine.runDueJobs();
        assertThat(engine.reserve(TOPIC, 2, 0).get(5, TimeUnit.SECONDS)).hasSize(2);

        List<FinishOutcome> outcomes = engine.finishAll(List.of(
                new io.delayqueue.queue.store.Attempt(a, 0),
                new io.delayqueue.queue.store.Attempt(b, 2),
                io.delayqueue.queue.store.Attempt.any("never-pushed")));

        assertThat(outcomes)
                .extracting(FinishOutcome::id, FinishOutcome::outcome)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(a, FinishOutcome.Result.FINISHED),
                        org.assertj.core.groups.Tuple.tuple(b, FinishOutcome.Result.STALE),
                        org.assertj.core.groups.Tuple.tuple("never-pushed", FinishOutcome.Result.NOT_FOUND));
        assertThat(engine.get(a).status()).isEqualTo(JobStatus.FINISHED);
        assertThat(engine.get(b).status()).isEqualTo(JobStatus.RESERVED);
        assertThat(engine.stats().staleOutcomes()).isEqualTo(1);
        assertThatThrownBy(() -> engine.reserve(TOPIC, 1_001, 0))
                .isInstanceOfSatisfying(DelayQueueException.InvalidField.class, e -> assertThat(e.getMessage())
                        .startsWith("count"));
        assertThatThrownBy(() -> engine.finishAll(List.of())).isInstanceOf(DelayQueueException.InvalidField.class);
    }

    @Test
    void a_batch_pull_answers_the_jobs_of_the_shards_that_answered_when_another_shard_fails() throws Exception {
        io.delayqueue.queue.store.JobStore real = redis.store(2, EngineConfig.DEFAULTS.retention());
        java.util.concurrent.atomic.AtomicBoolean shardOneDown = new java.util.concurrent.atomic.AtomicBoolean();
        io.delayqueue.queue.store.JobStore failingShardOne =
                (io.delayqueue.queue.store.JobStore) java.lang.reflect.Proxy.newProxyInstance(
                        getClass().getClassLoader(),
                        new Class<?>[] {io.delayqueue.queue.store.JobStore.class},
                        (proxy, method, args) -> {
                            if (shardOneDown.get()
                                    && method.getName().equals("reserve")
                                    && args.length == 4
                                    && (int) args[1] == 1) {
                                throw new DelayQueueException.Unavailable("shard 1's Redis is down", null);
                            }
                            try {
                                return method.invoke(real, args);
                            } catch (java.lang.reflect.InvocationTargetException e) {
                                throw e.getCause();
                            }
                        });
        try (DelayQueueEngine partial = new DelayQueueEngine(
                engine.config(), failingShardOne, List.of(), new StandaloneCoordinator(), Journal.NONE, clock)) {
            List<String> pushed = new ArrayList<>();
            while (pushed.size() < 6
                    || pushed.stream()
                                    .map(id -> io.delayqueue.common.JobIds.shardOf(id, 2))
                                    .distinct()
                                    .count()
                            < 2) {
                pushed.add(partial.push(PushRequest.of(TOPIC, "b", 0)).id());
            }
            partial.runDueJobs();
            List<String> inShardZero = pushed.stream()
                    .filter(id -> io.delayqueue.common.JobIds.shardOf(id, 2) == 0)
                    .toList();
            shardOneDown.set(true);

            List<Job> got = partial.reserve(TOPIC, 10, 0).get(5, TimeUnit.SECONDS);

            assertThat(got).extracting(Job::id).containsExactlyInAnyOrderElementsOf(inShardZero);
            assertThatThrownBy(() -> partial.reserve(TOPIC, 10, 0))
                    .as("no shard had a job for it, and one failed")
                    .isInstanceOf(DelayQueueException.Unavailable.class);
            shardOneDown.set(false);
            assertThat(partial.reserve(TOPIC, 10, 0).get(5, TimeUnit.SECONDS))
                    .hasSize(pushed.size() - inShardZero.size());
        }
    }
}
