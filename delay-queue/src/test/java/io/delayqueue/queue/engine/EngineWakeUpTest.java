package io.delayqueue.queue.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.common.JobStatus;
import io.delayqueue.common.PushRequest;
import io.delayqueue.queue.coordination.StandaloneCoordinator;
import io.delayqueue.queue.dispatch.Dispatcher;
import io.delayqueue.queue.engine.handover.DispatchSettings;
import io.delayqueue.queue.engine.push.PushResult;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.store.redis.RedisJobStore;
import io.delayqueue.queue.testing.RecordingDispatcher;
import io.delayqueue.queue.testing.RedisFixture;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A started engine on the system clock: a push that lands a job earlier than its shard scanner's planned
 * wake-up wakes it, so the job is handed over at its due time and not at the end of the scanner's sleep.
 * The scanners sleep up to {@link #MAX_SLEEP}; the bounds asserted are half of it.
 */
class EngineWakeUpTest {
    private static final Duration MAX_SLEEP = Duration.ofSeconds(1);
    private static final Duration BOUND = Duration.ofMillis(500);
    private static final String PULL_TOPIC = "pulls";

    private RedisFixture redis;
    private RecordingDispatcher dispatcher;
    private DelayQueueEngine engine;

    @BeforeEach
    void setUp() {
        redis = new RedisFixture();
        dispatcher = new RecordingDispatcher("rec");
        EngineConfig config = EngineConfig.DEFAULTS
                .withShards(1)
                .withRedisPrefix(redis.prefix())
                .withScanner(s -> s.withMaxSleep(MAX_SLEEP))
                .withDispatch(
                        d -> d.withDefaultDispatcher("rec").withTopics(Map.of(PULL_TOPIC, DispatchSettings.PULL)));
        RedisJobStore store = redis.store(config.shards(), config.retention());
        engine = new DelayQueueEngine(
                config, store, List.of(dispatcher), new StandaloneCoordinator(), Journal.NONE, Clock.systemUTC());
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

    /**
     * Pushes a job due now and waits until it is finished: afterwards the only scanner has just made a pass
     * over an empty bucket and sleeps its full max sleep.
     */
    private void settleScannerIntoItsLongSleep() {
        String warmUp = engine.push(PushRequest.of("warm-up", "w", 0)).id();
        await("the warm-up job finished")
                .atMost(Duration.ofSeconds(5))
                .until(() -> engine.get(warmUp).status() == JobStatus.FINISHED);
    }

    /**
     * A started engine of {@code config} with one shard on a Redis prefix of its own (the engine of setUp()
     * scans the shared one), handing jobs to {@code dispatcher}.
     */
    private static DelayQueueEngine startedOn(RedisFixture own, EngineConfig config, Dispatcher dispatcher) {
        DelayQueueEngine e = new DelayQueueEngine(
                config.withRedisPrefix(own.prefix()),
                own.store(1, config.retention()),
                List.of(dispatcher),
                new StandaloneCoordinator(),
                Journal.NONE,
                Clock.systemUTC());
        e.start();
        return e;
    }

    @Test
    void job_pushed_into_an_idle_shard_is_delivered_at_its_due_time_not_after_the_scanners_max_sleep() {
        settleScannerIntoItsLongSleep();
        int before = dispatcher.count();

        long pushedAt = System.nanoTime();
        String id = engine.push(PushRequest.of("orders", "b", 50)).id();
        await("delivery of the job")
                .atMost(Duration.ofSeconds(5))
                .until(() -> dispatcher.ids().contains(id));

        RecordingDispatcher.Delivery delivery = dispatcher.deliveries().get(before);
        assertThat(delivery.job().id()).isEqualTo(id);
        Duration took = Duration.ofNanos(delivery.atNanos() - pushedAt);
        assertThat(took).as("not before its due time").isGreaterThanOrEqualTo(Duration.ofMillis(49));
        assertThat(took).as("well before the scanner's max sleep").isLessThan(BOUND);
    }

    @Test
    void job_due_at_once_is_delivered_at_once() {
        settleScannerIntoItsLongSleep();

        long pushedAt = System.nanoTime();
        String id = engine.push(PushRequest.of("orders", "b", 0)).id();
        await("delivery of the job")
                .atMost(Duration.ofSeconds(5))
                .until(() -> dispatcher.ids().contains(id));

        long deliveredAt = dispatcher.deliveries().stream()
                .filter(d -> d.job().id().equals(id))
                .findFirst()
                .orElseThrow()
                .atNanos();
        assertThat(Duration.ofNanos(deliveredAt - pushedAt)).isLessThan(BOUND);
    }

    @Test
    void waiting_pull_consumer_gets_a_job_pushed_into_an_idle_shard_at_its_due_time() throws Exception {
        settleScannerIntoItsLongSleep();
        CompletableFuture<Optional<io.delayqueue.common.Job>> waiting = engine.reserve(PULL_TOPIC, 5_000);
        assertThat(waiting).isNotDone();

        long pushedAt = System.nanoTime();
        String id = engine.push(PushRequest.of(PULL_TOPIC, "b", 50)).id();
        Optional<io.delayqueue.common.Job> got = waiting.get(5, TimeUnit.SECONDS);
        Duration took = Duration.ofNanos(System.nanoTime() - pushedAt);

        assertThat(got).map(io.delayqueue.common.Job::id).contains(id);
        assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(49)).isLessThan(BOUND);
        assertThat(engine.get(id).status()).isEqualTo(JobStatus.RESERVED);
    }

    @Test
    void burst_larger_than_the_scan_batch_is_delivered_completely_and_promptly() {
        EngineConfig small = engine.config().withScanner(s -> s.withBatchSize(10));
        RecordingDispatcher rec = new RecordingDispatcher("rec");
        try (RedisFixture own = new RedisFixture();
                DelayQueueEngine e = startedOn(own, small, rec)) {
            List<PushRequest> burst = new java.util.ArrayList<>();
            for (int i = 0; i < 35; i++) {
                burst.add(PushRequest.of("orders", "b" + i, 0).withId("burst-" + i));
            }
            long pushedAt = System.nanoTime();
            e.pushBatch(burst);

            await("35 deliveries").atMost(Duration.ofSeconds(5)).until(() -> rec.count() >= 35);
            long last = rec.deliveries().stream()
                    .mapToLong(RecordingDispatcher.Delivery::atNanos)
                    .max()
                    .orElseThrow();
            assertThat(Duration.ofNanos(last - pushedAt))
                    .as("four batches back to back, no sleep between them")
                    .isLessThan(BOUND);
            assertThat(rec.ids()).doesNotHaveDuplicates().hasSize(35);
        }
    }

    /**
     * With a lead, push-topic jobs leave Redis before their due time, but none is handed over before it: each
     * hand-over is compared with the job's due time on the engine's own clock.
     */
    @Test
    void jobs_taken_within_the_lead_are_handed_over_at_their_due_time_never_before() {
        List<Long> earlyByMs = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<String> handedOver = new java.util.concurrent.CopyOnWriteArrayList<>();
        Clock clock = Clock.systemUTC();
        Dispatcher stamping = new Dispatcher() {
            @Override
            public String name() {
                return "stamping";
            }

            @Override
            public java.util.concurrent.CompletionStage<Void> dispatch(io.delayqueue.common.Job job) {
                long early = job.executeAt() - clock.millis();
                if (early > 0) {
                    earlyByMs.add(early);
                }
                handedOver.add(job.id());
                return CompletableFuture.completedFuture(null);
            }
        };
        EngineConfig config = engine.config()
                .withDispatch(d -> d.withDefaultDispatcher("stamping"))
                .withScanner(s -> s.withLead(Duration.ofMillis(30)));
        try (RedisFixture own = new RedisFixture();
                DelayQueueEngine e = startedOn(own, config, stamping)) {
            List<PushRequest> jobs = new java.util.ArrayList<>();
            for (int i = 0; i < 100; i++) {
                jobs.add(PushRequest.of("orders", "b" + i, 20 + (i * 7) % 100));
            }
            List<PushResult> results = e.pushBatch(jobs);

            await("100 hand-overs").atMost(Duration.ofSeconds(10)).until(() -> handedOver.size() >= 100);
            assertThat(handedOver)
                    .containsExactlyInAnyOrderElementsOf(
                            results.stream().map(PushResult::id).toList());
            assertThat(earlyByMs)
                    .as("ms before the due time, of jobs handed over early")
                    .isEmpty();
        }
    }

    @Test
    void started_engine_finishes_every_job_of_a_burst() {
        List<PushRequest> burst = new java.util.ArrayList<>();
        for (int i = 0; i < 200; i++) {
            burst.add(PushRequest.of("orders", "b" + i, i % 20));
        }
        List<PushResult> results = engine.pushBatch(burst);

        await("200 jobs finished")
                .atMost(Duration.ofSeconds(10))
                .until(() -> engine.stats().byStatus().getOrDefault(JobStatus.FINISHED, 0L) == 200L);
        assertThat(dispatcher.ids())
                .containsExactlyInAnyOrderElementsOf(
                        results.stream().map(PushResult::id).toList());
        assertThat(engine.stats().lateness().count()).isEqualTo(200);
    }
}
