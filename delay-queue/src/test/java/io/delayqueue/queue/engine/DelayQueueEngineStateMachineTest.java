package io.delayqueue.queue.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.Job;
import io.delayqueue.common.JobIds;
import io.delayqueue.common.JobStatus;
import io.delayqueue.common.PushRequest;
import io.delayqueue.queue.coordination.StandaloneCoordinator;
import io.delayqueue.queue.engine.handover.DispatchSettings;
import io.delayqueue.queue.engine.handover.TopicRoutes;
import io.delayqueue.queue.engine.push.PushResult;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.store.redis.RedisJobStore;
import io.delayqueue.queue.testing.ClosedPort;
import io.delayqueue.queue.testing.ManualClock;
import io.delayqueue.queue.testing.RecordingDispatcher;
import io.delayqueue.queue.testing.RecordingEngineListener;
import io.delayqueue.queue.testing.RedisFixture;
import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisPooled;

/**
 * The engine's state machine, driven by hand: a latent engine, a manual clock, {@link
 * DelayQueueEngine#runDueJobs()} and the real Redis store under a key prefix of its own.
 */
class DelayQueueEngineStateMachineTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final String PUSH_TOPIC = "orders";
    private static final String PULL_TOPIC = "pulls";
    private static final Duration FIRST_BACKOFF = Duration.ofMillis(100);
    private static final Duration SECOND_BACKOFF = Duration.ofMillis(250);
    private static final long TTR = 5_000;

    private RedisFixture redis;
    private RedisJobStore store;
    private ManualClock clock;
    private RecordingDispatcher dispatcher;
    private DelayQueueEngine engine;

    @BeforeEach
    void setUp() {
        redis = new RedisFixture();
        clock = new ManualClock(T0);
        dispatcher = new RecordingDispatcher("rec");
        EngineConfig config = EngineConfig.DEFAULTS
                .withShards(4)
                .withRedisPrefix(redis.prefix())
                .withDispatch(d -> d.withDefaultDispatcher("rec").withTopics(Map.of(PULL_TOPIC, DispatchSettings.PULL)))
                .withRetry(r -> r.withBackoff(List.of(FIRST_BACKOFF, SECOND_BACKOFF)))
                .withPull(p -> p.withDefaultTtr(Duration.ofMillis(TTR)))
                .withLimits(l -> l.withMaxBatchSize(5));
        store = redis.store(config.shards(), config.retention());
        engine = new DelayQueueEngine(
                config, store, List.of(dispatcher), new StandaloneCoordinator(), Journal.NONE, clock);
    }

    @AfterEach
    void tearDown() {
        try {
            engine.close();
        } finally {
            redis.close();
        }
    }

    private String push(String topic, long delayMs) {
        return engine.push(PushRequest.of(topic, "body of " + topic, delayMs)).id();
    }

    private JobStatus statusOf(String id) {
        return engine.get(id).status();
    }

    private Optional<Job> reserve() {
        return engine.reserve(PULL_TOPIC, 0).join();
    }

    // ---- generated ids ----

    @Test
    void the_node_of_generated_ids_is_claimed_from_redis_on_the_first_push_without_an_id() {
        assertThat(redis.allKeys()).as("keys of a new engine").isEmpty();
        engine.push(PushRequest.of(PUSH_TOPIC, "b", 0).withId("client-1"));
        assertThat(redis.redis().exists(store.keys().idNode()))
                .as("claimed for a client id")
                .isFalse();

        String first = push(PUSH_TOPIC, 0);
        String second = push(PUSH_TOPIC, 0);

        long counter = Long.parseLong(redis.redis().get(store.keys().idNode()));
        assertThat(nodeOf(first)).isEqualTo(nodeOf(second)).isEqualTo((int) (counter % JobIds.NODES));
        assertThat(first).matches("[0-9a-z]{14}").isLessThan(second);
        assertThat(engine.runDueJobs()).isEqualTo(3);
        assertThat(dispatcher.ids()).containsExactlyInAnyOrder("client-1", first, second);
    }

    @Test
    void an_engine_built_while_redis_is_down_answers_pushes_with_503() throws Exception {
        int closedPort = ClosedPort.get();
        RedisJobStore down =
                new RedisJobStore(new JedisPooled("127.0.0.1", closedPort), "down", 4, Duration.ofMinutes(1), true);
        try (DelayQueueEngine offline = new DelayQueueEngine(
                engine.config(),
                down,
                List.of(new RecordingDispatcher("rec")),
                new StandaloneCoordinator(),
                Journal.NONE,
                clock)) {
            for (int i = 0; i < 2; i++) {
                assertThatThrownBy(() -> offline.push(PushRequest.of(PUSH_TOPIC, "b", 0)))
                        .as("push without an id, attempt %d", i)
                        .isInstanceOfSatisfying(DelayQueueException.Unavailable.class, e -> assertThat(e.httpStatus())
                                .isEqualTo(503));
            }
            assertThatThrownBy(() ->
                            offline.push(PushRequest.of(PUSH_TOPIC, "b", 0).withId("client-1")))
                    .isInstanceOf(DelayQueueException.Unavailable.class);
        } finally {
            down.close();
        }
    }

    private static int nodeOf(String generatedId) {
        return new BigInteger(generatedId, 36).shiftRight(12).intValue() & (JobIds.NODES - 1);
    }

    // ---- timing ----

    @Test
    void job_is_delivered_when_the_clock_reaches_exactly_its_due_time() {
        String id = push(PUSH_TOPIC, 1_000);

        clock.advance(1_000);
        int handedOver = engine.runDueJobs();

        assertThat(handedOver).isEqualTo(1);
        assertThat(dispatcher.ids()).containsExactly(id);
        assertThat(dispatcher.deliveries().get(0).job().executeAt()).isEqualTo(T0 + 1_000);
    }

    @Test
    void job_is_not_delivered_one_ms_before_it_is_due() {
        String id = push(PUSH_TOPIC, 1_000);

        clock.advance(999);
        assertThat(engine.runDueJobs()).isZero();
        assertThat(dispatcher.ids()).isEmpty();
        assertThat(statusOf(id)).isEqualTo(JobStatus.DELAY);

        clock.advance(1);
        assertThat(engine.runDueJobs()).isEqualTo(1);
        assertThat(dispatcher.ids()).containsExactly(id);
    }

    @Test
    void job_without_delay_is_due_at_once() {
        String id = push(PUSH_TOPIC, 0);

        assertThat(engine.runDueJobs()).isEqualTo(1);

        assertThat(dispatcher.ids()).containsExactly(id);
    }

    @Test
    void job_pushed_with_execute_at_is_due_at_that_instant() {
        String id = engine.push(
                        new PushRequest(null, PUSH_TOPIC, null, null, "b", null, T0 + 5_000, null, null, null, null))
                .id();

        clock.set(T0 + 4_999);
        assertThat(engine.runDueJobs()).isZero();
        clock.set(T0 + 5_000);
        assertThat(engine.runDueJobs()).isEqualTo(1);

        assertThat(dispatcher.ids()).containsExactly(id);
    }

    // ---- push topics ----

    @Test
    void push_topic_job_ends_finished_after_a_successful_dispatch() {
        String id = push(PUSH_TOPIC, 10);
        clock.advance(10);

        engine.runDueJobs();

        Job job = engine.get(id);
        assertThat(job.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(job.attempts()).isZero();
        assertThat(dispatcher.count()).isEqualTo(1);
        // a finished job is not delivered again, however far the clock moves
        clock.advance(Duration.ofMinutes(10));
        assertThat(engine.runDueJobs()).isZero();
        assertThat(dispatcher.count()).isEqualTo(1);
    }

    @Test
    void failed_dispatch_goes_back_to_delay_at_now_plus_backoff_with_one_more_attempt() {
        dispatcher.failSends(true);
        String id = push(PUSH_TOPIC, 10);
        clock.advance(10);

        engine.runDueJobs();

        Job job = engine.get(id);
        assertThat(job.status()).isEqualTo(JobStatus.DELAY);
        assertThat(job.attempts()).isEqualTo(1);
        assertThat(job.executeAt()).isEqualTo(clock.millis() + FIRST_BACKOFF.toMillis());
        assertThat(engine.stats().dispatchFailures()).isEqualTo(1);
    }

    @Test
    void failed_dispatch_is_redelivered_when_the_clock_reaches_its_backoff() {
        dispatcher.failSends(true);
        String id = push(PUSH_TOPIC, 10);
        clock.advance(10);
        engine.runDueJobs();
        dispatcher.failSends(false);

        clock.advance(FIRST_BACKOFF.toMillis() - 1);
        assertThat(engine.runDueJobs()).isZero();
        assertThat(dispatcher.count()).isEqualTo(1);

        clock.advance(1);
        assertThat(engine.runDueJobs()).isEqualTo(1);

        assertThat(dispatcher.ids()).containsExactly(id, id);
        assertThat(dispatcher.deliveries().get(1).job().attempts()).isEqualTo(1);
        Job job = engine.get(id);
        assertThat(job.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(job.attempts()).isEqualTo(1);
    }

    @Test
    void failed_dispatches_follow_the_backoff_ladder_and_repeat_its_last_step() {
        dispatcher.failSends(true);
        String id = engine.push(PushRequest.of(PUSH_TOPIC, "b", 0).withMaxAttempts(10))
                .id();
        engine.runDueJobs();
        assertThat(engine.get(id).executeAt()).isEqualTo(clock.millis() + FIRST_BACKOFF.toMillis());

        clock.advance(FIRST_BACKOFF);
        engine.runDueJobs();
        assertThat(engine.get(id).executeAt()).isEqualTo(clock.millis() + SECOND_BACKOFF.toMillis());

        clock.advance(SECOND_BACKOFF);
        engine.runDueJobs();
        Job job = engine.get(id);
        assertThat(job.executeAt()).isEqualTo(clock.millis() + SECOND_BACKOFF.toMillis());
        assertThat(job.attempts()).isEqualTo(3);
        assertThat(job.status()).isEqualTo(JobStatus.DELAY);
    }

    @Test
    void job_whose_sends_fail_max_attempts_times_is_dead_and_not_delivered_again() {
        dispatcher.failSends(true);
        String id = engine.push(PushRequest.of(PUSH_TOPIC, "b", 0).withMaxAttempts(2))
                .id();

        engine.runDueJobs();
        assertThat(statusOf(id)).isEqualTo(JobStatus.DELAY);
        clock.advance(FIRST_BACKOFF);
        engine.runDueJobs();

        Job job = engine.get(id);
        assertThat(job.status()).isEqualTo(JobStatus.DEAD);
        assertThat(job.attempts()).isEqualTo(2);
        assertThat(dispatcher.count()).isEqualTo(2);
        assertThat(redis.redis().zrange(store.keys().dead(shardOf(id), PUSH_TOPIC), 0, -1))
                .containsExactly(id);

        clock.advance(Duration.ofHours(1));
        assertThat(engine.runDueJobs()).isZero();
        assertThat(dispatcher.count()).isEqualTo(2);
    }

    @Test
    void push_job_whose_dispatch_never_confirms_is_dispatched_again_after_the_dispatch_timeout() {
        String id = push(PUSH_TOPIC, 0);
        // a scanner moved the job for dispatch and then died: the send never completed
        RedisFixture.agreed(store);
        long timeout = engine.config().dispatch().timeout().toMillis();
        var moved =
                store.moveDue(shardOf(id), clock.millis(), 10, new TopicRoutes("rec", Map.of()).dueRouting(), timeout);
        assertThat(moved.toDispatch()).extracting(Job::id).containsExactly(id);
        assertThat(statusOf(id)).isEqualTo(JobStatus.RESERVED);

        clock.advance(timeout - 1);
        assertThat(engine.runDueJobs()).isZero();
        clock.advance(1);
        assertThat(engine.runDueJobs()).isEqualTo(1);

        assertThat(dispatcher.ids()).containsExactly(id);
        assertThat(dispatcher.deliveries().get(0).job().attempts()).isEqualTo(1);
        Job job = engine.get(id);
        assertThat(job.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(job.attempts()).isEqualTo(1);
    }

    // ---- pull topics ----

    @Test
    void pull_topic_job_becomes_ready_then_reserved_then_finished() {
        String id = push(PULL_TOPIC, 100);
        clock.advance(100);

        assertThat(engine.runDueJobs()).isEqualTo(1);
        assertThat(statusOf(id)).isEqualTo(JobStatus.READY);
        assertThat(dispatcher.ids())
                .as("pull jobs are not pushed to a dispatcher")
                .isEmpty();

        Optional<Job> reserved = reserve();
        assertThat(reserved).map(Job::id).contains(id);
        assertThat(reserved.get().status()).isEqualTo(JobStatus.RESERVED);
        assertThat(statusOf(id)).isEqualTo(JobStatus.RESERVED);
        assertThat(reserve()).as("a reserved job is given to one consumer only").isEmpty();

        engine.finish(id);
        assertThat(statusOf(id)).isEqualTo(JobStatus.FINISHED);

        engine.finish(id); // finishing twice is fine
        assertThat(statusOf(id)).isEqualTo(JobStatus.FINISHED);
    }

    @Test
    void pull_topic_job_cannot_be_reserved_before_it_is_due() {
        push(PULL_TOPIC, 100);
        clock.advance(99);
        engine.runDueJobs();

        assertThat(reserve()).isEmpty();
    }

    @Test
    void ready_jobs_are_reserved_in_the_order_they_became_due() {
        // ids of the generated shape put both jobs into shard 1, where the order is defined
        String second = engine.push(PushRequest.of(PULL_TOPIC, "2", 20).withId("1-secondjob0001"))
                .id();
        String first = engine.push(PushRequest.of(PULL_TOPIC, "1", 10).withId("1-firstjob00001"))
                .id();
        assertThat(shardOf(first)).isEqualTo(1).isEqualTo(shardOf(second));
        clock.advance(20);
        engine.runDueJobs();

        assertThat(reserve()).map(Job::id).contains(first);
        assertThat(reserve()).map(Job::id).contains(second);
        assertThat(reserve()).isEmpty();
    }

    @Test
    void expired_ttr_makes_a_reserved_job_ready_again_with_one_more_attempt() {
        String id = push(PULL_TOPIC, 0);
        engine.runDueJobs();
        assertThat(reserve()).map(Job::id).contains(id);

        clock.advance(TTR - 1);
        engine.runDueJobs();
        assertThat(statusOf(id)).isEqualTo(JobStatus.RESERVED);

        clock.advance(1);
        engine.runDueJobs();
        Job job = engine.get(id);
        assertThat(job.status()).isEqualTo(JobStatus.READY);
        assertThat(job.attempts()).isEqualTo(1);

        Optional<Job> again = reserve();
        assertThat(again).map(Job::id).contains(id);
        assertThat(again.get().attempts()).isEqualTo(1);
        assertThat(statusOf(id)).isEqualTo(JobStatus.RESERVED);
    }

    @Test
    void each_expired_ttr_is_told_to_the_listener_with_its_topic_the_last_one_before_the_job_is_dead() {
        RecordingEngineListener listener = new RecordingEngineListener();
        engine.setListener(listener);
        String id = engine.push(
                        PushRequest.of(PULL_TOPIC, "b", 0).withMaxAttempts(2).withTtr(1_000))
                .id();
        engine.runDueJobs();
        assertThat(reserve()).isPresent();
        clock.advance(999);
        engine.runDueJobs();
        assertThat(listener.events("pushAnswered", "ttrExpired", "dead"))
                .as("before the ttr ends")
                .containsExactly("pushAnswered true");

        clock.advance(1);
        engine.runDueJobs();
        assertThat(reserve()).isPresent();
        clock.advance(1_000);
        engine.runDueJobs();

        assertThat(statusOf(id)).isEqualTo(JobStatus.DEAD);
        assertThat(listener.events("pushAnswered", "ttrExpired", "dead"))
                .containsExactly(
                        "pushAnswered true",
                        "ttrExpired " + PULL_TOPIC,
                        "ttrExpired " + PULL_TOPIC,
                        "dead " + PULL_TOPIC);
    }

    @Test
    void a_refused_push_is_told_to_the_listener_as_answered_without_success() {
        RecordingEngineListener listener = new RecordingEngineListener();
        engine.setListener(listener);

        assertThatThrownBy(() -> engine.push(PushRequest.of(PUSH_TOPIC, "b", -5)))
                .isInstanceOf(DelayQueueException.InvalidField.class);
        push(PUSH_TOPIC, 0);

        assertThat(listener.events("pushAnswered", "ttrExpired", "dead"))
                .containsExactly("pushAnswered false", "pushAnswered true");
    }

    @Test
    void finishing_after_the_ttr_expired_is_a_state_conflict() {
        String id = push(PULL_TOPIC, 0);
        engine.runDueJobs();
        reserve();
        clock.advance(TTR);
        engine.runDueJobs();

        assertThatThrownBy(() -> engine.finish(id))
                .isInstanceOfSatisfying(DelayQueueException.StateConflict.class, e -> {
                    assertThat(e.httpStatus()).isEqualTo(409);
                    assertThat(e.status()).isEqualTo(JobStatus.READY);
                });
    }

    @Test
    void job_whose_ttr_expires_max_attempts_times_is_dead() {
        String id = engine.push(
                        PushRequest.of(PULL_TOPIC, "b", 0).withMaxAttempts(2).withTtr(1_000))
                .id();
        engine.runDueJobs();

        assertThat(reserve()).isPresent();
        clock.advance(1_000);
        engine.runDueJobs();
        assertThat(statusOf(id)).isEqualTo(JobStatus.READY);

        assertThat(reserve()).isPresent();
        clock.advance(1_000);
        engine.runDueJobs();

        Job job = engine.get(id);
        assertThat(job.status()).isEqualTo(JobStatus.DEAD);
        assertThat(job.attempts()).isEqualTo(2);
        assertThat(reserve()).isEmpty();
        assertThat(redis.redis().zrange(store.keys().dead(shardOf(id), PULL_TOPIC), 0, -1))
                .containsExactly(id);
        assertThat(engine.stats().byStatus()).containsEntry(JobStatus.DEAD, 1L);
    }

    @Test
    void reserving_a_push_topic_is_rejected_naming_the_topic() {
        assertThatThrownBy(() -> engine.reserve(PUSH_TOPIC, 0))
                .isInstanceOfSatisfying(DelayQueueException.InvalidField.class, e -> assertThat(e.field())
                        .isEqualTo("topic"))
                .hasMessageContaining("not a pull topic");
    }

    // ---- delete ----

    @Test
    void deleted_delay_job_is_never_delivered_even_when_due() {
        String id = push(PUSH_TOPIC, 1_000);
        String pulled = push(PULL_TOPIC, 1_000);

        engine.delete(id);
        engine.delete(pulled);
        clock.advance(Duration.ofMinutes(5));

        assertThat(engine.runDueJobs()).isZero();
        assertThat(dispatcher.ids()).isEmpty();
        assertThat(reserve()).isEmpty();
        assertThat(statusOf(id)).isEqualTo(JobStatus.DELETED);
        assertThat(statusOf(pulled)).isEqualTo(JobStatus.DELETED);
    }

    @Test
    void deleted_ready_job_is_never_reserved() {
        String id = push(PULL_TOPIC, 0);
        engine.runDueJobs();
        assertThat(statusOf(id)).isEqualTo(JobStatus.READY);

        engine.delete(id);

        assertThat(reserve()).isEmpty();
        assertThat(statusOf(id)).isEqualTo(JobStatus.DELETED);
    }

    @Test
    void deleting_a_reserved_job_is_a_state_conflict() {
        String id = push(PULL_TOPIC, 0);
        engine.runDueJobs();
        reserve();

        assertThatThrownBy(() -> engine.delete(id))
                .isInstanceOfSatisfying(DelayQueueException.StateConflict.class, e -> {
                    assertThat(e.httpStatus()).isEqualTo(409);
                    assertThat(e.status()).isEqualTo(JobStatus.RESERVED);
                })
                .hasMessageContaining(id);
        assertThat(statusOf(id)).isEqualTo(JobStatus.RESERVED);
    }

    @Test
    void deleting_a_finished_job_is_a_state_conflict() {
        String id = push(PUSH_TOPIC, 0);
        engine.runDueJobs();

        assertThatThrownBy(() -> engine.delete(id))
                .isInstanceOfSatisfying(DelayQueueException.StateConflict.class, e -> assertThat(e.status())
                        .isEqualTo(JobStatus.FINISHED));
    }

    @Test
    void deleting_twice_is_fine() {
        String id = push(PUSH_TOPIC, 1_000);

        engine.delete(id);
        engine.delete(id);

        assertThat(statusOf(id)).isEqualTo(JobStatus.DELETED);
        assertThat(engine.stats().byStatus()).containsEntry(JobStatus.DELETED, 1L);
    }

    @Test
    void unknown_id_is_job_not_found_for_delete_finish_and_get() {
        String unknown = "no-such-job";

        assertThatThrownBy(() -> engine.delete(unknown))
                .isInstanceOfSatisfying(DelayQueueException.JobNotFound.class, e -> assertThat(e.httpStatus())
                        .isEqualTo(404))
                .hasMessageContaining(unknown);
        assertThatThrownBy(() -> engine.finish(unknown)).isInstanceOf(DelayQueueException.JobNotFound.class);
        assertThatThrownBy(() -> engine.get(unknown)).isInstanceOf(DelayQueueException.JobNotFound.class);
    }

    @Test
    void blank_job_id_is_rejected_naming_job_id() {
        assertThatThrownBy(() -> engine.delete(" "))
                .isInstanceOfSatisfying(DelayQueueException.InvalidField.class, e -> assertThat(e.field())
                        .isEqualTo("jobId"));
    }

    // ---- push ----

    @Test
    void pushing_the_same_client_id_twice_yields_one_job_and_one_delivery() {
        PushResult first = engine.push(PushRequest.of(PUSH_TOPIC, "first", 100).withId("order-42"));
        // a retry: the same job, its delay counted from now again
        PushResult second = engine.push(PushRequest.of(PUSH_TOPIC, "first", 50).withId("order-42"));

        assertThat(first).isEqualTo(new PushResult("order-42", true));
        assertThat(second.id()).isEqualTo("order-42");
        assertThat(second.created()).isFalse();
        assertThat(engine.get("order-42").body()).isEqualTo("first");
        assertThat(engine.stats().byStatus()).containsEntry(JobStatus.DELAY, 1L);

        clock.advance(50);
        assertThat(engine.runDueJobs())
                .as("the second push's due time is ignored")
                .isZero();
        clock.advance(Duration.ofMinutes(1));
        assertThat(engine.runDueJobs()).isEqualTo(1);
        assertThat(engine.runDueJobs()).isZero();

        assertThat(dispatcher.ids()).containsExactly("order-42");
        assertThat(dispatcher.deliveries().get(0).job().body()).isEqualTo("first");
    }

    @Test
    void one_client_id_twice_in_one_batch_creates_the_first_and_reports_the_second_as_found() {
        List<PushResult> results = engine.pushBatch(List.of(
                PushRequest.of(PUSH_TOPIC, "first", 100).withId("twice"),
                PushRequest.of(PUSH_TOPIC, "other", 100),
                PushRequest.of(PUSH_TOPIC, "first", 50).withId("twice")));

        assertThat(results.get(0)).isEqualTo(new PushResult("twice", true));
        assertThat(results.get(1).created()).isTrue();
        assertThat(results.get(2).id()).isEqualTo("twice");
        assertThat(results.get(2).created()).isFalse();
        assertThat(engine.get("twice").body()).isEqualTo("first");
        assertThat(engine.stats().byStatus()).containsEntry(JobStatus.DELAY, 2L);
    }

    @Test
    void an_id_reused_with_another_job_is_refused_naming_the_field_and_the_job_it_names_is_kept() {
        // no journal: the job the id names is read from Redis
        engine.push(
                new PushRequest("reused", PUSH_TOPIC, null, null, "first", null, T0 + 60_000, null, null, null, null));
        clock.advance(1_000);

        assertThat(engine.push(new PushRequest(
                                "reused", PUSH_TOPIC, null, null, "first", null, T0 + 60_000, null, null, null, null))
                        .created())
                .as("the same job again")
                .isFalse();
        assertThatThrownBy(() -> engine.push(new PushRequest(
                        "reused", PUSH_TOPIC, null, null, "first", null, T0 + 61_000, null, null, null, null)))
                .isInstanceOfSatisfying(DelayQueueException.IdConflict.class, e -> {
                    assertThat(e.field()).isEqualTo("executeAt");
                    assertThat(e.httpStatus()).isEqualTo(409);
                    assertThat(e.data()).isEqualTo("reused");
                });
        assertThatThrownBy(() -> engine.pushBatch(List.of(
                        PushRequest.of(PUSH_TOPIC, "new", 0).withId("fresh"),
                        PushRequest.of(PUSH_TOPIC, "first", 5).withTtr(TTR + 1).withId("reused"))))
                .isInstanceOfSatisfying(DelayQueueException.IdConflict.class, e -> {
                    assertThat(e.field()).isEqualTo("[1].ttr");
                    assertThat(e.data()).isEqualTo(List.of("fresh", "reused"));
                })
                .hasMessageContaining("1 created, 0 already existed");
        assertThat(engine.get("fresh").body()).isEqualTo("new");
        assertThat(engine.get("reused").executeAt()).isEqualTo(T0 + 60_000);

        // two due times both past are the same: a due time in the past means now
        engine.push(new PushRequest("past", PUSH_TOPIC, null, null, "b", null, T0 - 5_000, null, null, null, null));
        clock.advance(1_000);
        assertThat(engine.push(new PushRequest(
                                "past", PUSH_TOPIC, null, null, "b", null, T0 - 9_000, null, null, null, null))
                        .created())
                .isFalse();
    }

    @Test
    void concurrent_pushes_of_one_client_id_create_it_exactly_once() throws Exception {
        int callers = 16;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(callers);
        try {
            for (int round = 0; round < 20; round++) {
                String id = "race-" + round;
                java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(callers);
                List<java.util.concurrent.Future<PushResult>> pushes = new java.util.ArrayList<>();
                for (int c = 0; c < callers; c++) {
                    String body = "body";
                    pushes.add(pool.submit(() -> {
                        start.await();
                        return engine.push(
                                PushRequest.of(PUSH_TOPIC, body, 1000).withId(id));
                    }));
                }
                int created = 0;
                for (var push : pushes) {
                    created += push.get().created() ? 1 : 0;
                }
                assertThat(created).as("pushes of %s that created it", id).isEqualTo(1);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(engine.stats().byStatus()).containsEntry(JobStatus.DELAY, 20L);
    }

    @Test
    void batch_pushes_every_job_and_reports_ids_in_order() {
        List<PushRequest> batch = List.of(
                PushRequest.of(PUSH_TOPIC, "a", 0).withId("b-1"),
                PushRequest.of(PUSH_TOPIC, "b", 0),
                PushRequest.of(PULL_TOPIC, "c", 0).withId("b-3"));

        List<PushResult> results = engine.pushBatch(batch);

        assertThat(results).hasSize(3).allMatch(PushResult::created);
        assertThat(results.get(0).id()).isEqualTo("b-1");
        assertThat(results.get(2).id()).isEqualTo("b-3");
        assertThat(engine.get(results.get(1).id()).body()).isEqualTo("b");
        assertThat(engine.runDueJobs()).isEqualTo(3);
    }

    @Test
    void batch_over_max_batch_size_is_rejected_naming_jobs_and_nothing_is_written() {
        List<PushRequest> batch = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            batch.add(PushRequest.of(PUSH_TOPIC, "b" + i, 0).withId("big-" + i));
        }

        assertThatThrownBy(() -> engine.pushBatch(batch))
                .isInstanceOfSatisfying(DelayQueueException.InvalidField.class, e -> {
                    assertThat(e.field()).isEqualTo("jobs");
                    assertThat(e.httpStatus()).isEqualTo(400);
                })
                .hasMessageContaining("6")
                .hasMessageContaining("5");

        assertThat(redis.allKeys()).isEmpty();
        assertThatThrownBy(() -> engine.get("big-0")).isInstanceOf(DelayQueueException.JobNotFound.class);
        assertThat(engine.runDueJobs()).isZero();
    }

    @Test
    void batch_with_one_bad_job_is_rejected_naming_its_index_and_nothing_is_written() {
        List<PushRequest> batch = List.of(
                PushRequest.of(PUSH_TOPIC, "fine", 0).withId("ok-0"),
                PushRequest.of(PUSH_TOPIC, "fine too, with a generated id", 0),
                PushRequest.of("bad topic!", "b", 0).withId("ok-2"));

        assertThatThrownBy(() -> engine.pushBatch(batch))
                .isInstanceOfSatisfying(DelayQueueException.InvalidField.class, e -> assertThat(e.field())
                        .isEqualTo("[2].topic"));

        assertThat(redis.allKeys())
                .as("not even the node of generated ids is claimed")
                .isEmpty();
    }

    @Test
    void empty_batch_is_rejected_naming_jobs() {
        assertThatThrownBy(() -> engine.pushBatch(List.of()))
                .isInstanceOfSatisfying(DelayQueueException.InvalidField.class, e -> assertThat(e.field())
                        .isEqualTo("jobs"));
    }

    // ---- stats ----

    @Test
    void stats_counts_agree_with_the_states_of_the_jobs() {
        String waiting1 = push(PUSH_TOPIC, 60_000);
        String waiting2 = push(PULL_TOPIC, 60_000);
        String deleted = push(PUSH_TOPIC, 60_000);
        String finished = push(PUSH_TOPIC, 0);
        String ready1 = push(PULL_TOPIC, 0);
        String ready2 = push(PULL_TOPIC, 0);
        String dead = engine.push(
                        PushRequest.of(PULL_TOPIC, "d", 0).withMaxAttempts(1).withTtr(10))
                .id();
        engine.delete(deleted);
        engine.runDueJobs();
        // reserve until the job meant to die is held, then let its TTR expire
        List<String> reservedIds = new ArrayList<>();
        while (!reservedIds.contains(dead)) {
            reservedIds.add(reserve().orElseThrow().id());
        }
        clock.advance(10);
        engine.runDueJobs();

        Map<String, JobStatus> expected = new java.util.HashMap<>();
        expected.put(waiting1, JobStatus.DELAY);
        expected.put(waiting2, JobStatus.DELAY);
        expected.put(deleted, JobStatus.DELETED);
        expected.put(finished, JobStatus.FINISHED);
        expected.put(dead, JobStatus.DEAD);
        for (String r : List.of(ready1, ready2)) {
            expected.put(r, reservedIds.contains(r) ? JobStatus.RESERVED : JobStatus.READY);
        }
        expected.forEach((id, status) -> assertThat(statusOf(id)).as(id).isEqualTo(status));

        EngineStats stats = engine.stats();
        for (JobStatus s : JobStatus.values()) {
            long count = expected.values().stream().filter(s::equals).count();
            assertThat(stats.byStatus().getOrDefault(s, 0L))
                    .as("count of %s", s)
                    .isEqualTo(count);
        }
        long ready = expected.values().stream().filter(JobStatus.READY::equals).count();
        if (ready > 0) {
            assertThat(stats.readyByTopic()).containsEntry(PULL_TOPIC, ready);
        } else {
            assertThat(stats.readyByTopic()).doesNotContainKey(PULL_TOPIC);
        }
        assertThat(stats.shards()).hasSize(4);
        assertThat(stats.shards().stream()
                        .mapToLong(s -> s.byStatus().values().stream()
                                .mapToLong(Long::longValue)
                                .sum())
                        .sum())
                .isEqualTo(expected.size());
        assertThat(stats.dispatched()).isEqualTo(1);
        assertThat(stats.role()).isEqualTo("standalone");
    }

    private int shardOf(String id) {
        return JobIds.shardOf(id, 4);
    }
}
