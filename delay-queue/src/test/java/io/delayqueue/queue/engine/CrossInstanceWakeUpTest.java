package io.delayqueue.queue.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.common.PushRequest;
import io.delayqueue.queue.coordination.Coordinator;
import io.delayqueue.queue.coordination.StandaloneCoordinator;
import io.delayqueue.queue.engine.handover.DispatchSettings;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.store.redis.RedisWakeUpChannel;
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
 * Two engines on one Redis, as two instances of a master-slave queue: {@code owner} scans every shard,
 * {@code follower} none. Scanners sleep up to {@link #MAX_SLEEP} and waiting consumers recheck only every
 * {@link #MAX_SLEEP} too, so a hand-over well within that can only come from the Redis pub/sub wake-ups.
 */
class CrossInstanceWakeUpTest {
    private static final Duration MAX_SLEEP = Duration.ofSeconds(30);
    private static final Duration BOUND = Duration.ofSeconds(5);
    private static final String PULL_TOPIC = "pulls";

    private RedisFixture redis;
    private RecordingDispatcher ownerDispatcher;
    private RecordingDispatcher followerDispatcher;
    private RedisWakeUpChannel ownerChannel;
    private RedisWakeUpChannel followerChannel;
    private DelayQueueEngine owner;
    private DelayQueueEngine follower;

    /** Scans nothing, as a follower does. */
    private static final class Follower implements Coordinator {
        @Override
        public void start(OwnershipListener listener) {}

        @Override
        public boolean owns(int shard) {
            return false;
        }

        @Override
        public String role() {
            return "follower";
        }

        @Override
        public void close() {}
    }

    @BeforeEach
    void setUp() {
        redis = new RedisFixture();
        EngineConfig config = EngineConfig.DEFAULTS
                .withShards(4)
                .withRedisPrefix(redis.prefix())
                .withScanner(s -> s.withMaxSleep(MAX_SLEEP))
                .withPull(p -> p.withRecheck(MAX_SLEEP))
                .withDispatch(
                        d -> d.withDefaultDispatcher("rec").withTopics(Map.of(PULL_TOPIC, DispatchSettings.PULL)));
        ownerDispatcher = new RecordingDispatcher("rec");
        followerDispatcher = new RecordingDispatcher("rec");
        ownerChannel = new RedisWakeUpChannel(redis.redis(), redis.prefix(), config.shards());
        followerChannel = new RedisWakeUpChannel(redis.redis(), redis.prefix(), config.shards());
        owner = new DelayQueueEngine(
                config,
                redis.store(config.shards(), config.retention()),
                List.of(ownerDispatcher),
                new StandaloneCoordinator(),
                Journal.NONE,
                Clock.systemUTC(),
                ownerChannel);
        follower = new DelayQueueEngine(
                config,
                redis.store(config.shards(), config.retention()),
                List.of(followerDispatcher),
                new Follower(),
                Journal.NONE,
                Clock.systemUTC(),
                followerChannel);
        owner.start();
        follower.start();
        await("both subscribed").atMost(BOUND).until(() -> ownerChannel.subscribed() && followerChannel.subscribed());
        // the owner's first passes ran over empty shards: its scanners now sleep MAX_SLEEP
        String warmUp = owner.push(PushRequest.of("warm-up", "w", 0)).id();
        await("the warm-up job finished")
                .atMost(BOUND)
                .until(() -> owner.get(warmUp).status() == JobStatus.FINISHED);
    }

    @AfterEach
    void tearDown() {
        try {
            follower.close();
            owner.close();
        } finally {
            redis.close();
        }
    }

    @Test
    void a_job_pushed_on_an_instance_that_does_not_scan_its_shard_wakes_the_scanning_instance() {
        long pushedAt = System.nanoTime();
        String id = follower.push(PushRequest.of("orders", "close 42", 200)).id();

        await("the owner delivered the job")
                .atMost(BOUND)
                .until(() -> ownerDispatcher.ids().contains(id));
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - pushedAt);
        System.out.println("pushed on the follower, delivered by the owner after " + tookMs + " ms (due after 200)");
        assertThat(followerDispatcher.count())
                .as("the follower delivers nothing")
                .isZero();
        await("the job finished").atMost(BOUND).until(() -> owner.get(id).status() == JobStatus.FINISHED);
    }

    @Test
    void jobs_made_ready_by_the_scanning_instance_wake_a_consumer_waiting_on_another_instance() throws Exception {
        CompletableFuture<Optional<Job>> waiting = follower.reserve(PULL_TOPIC, 20_000);
        assertThat(waiting).isNotDone();

        String id = follower.push(PushRequest.of(PULL_TOPIC, "remind 7", 300)).id();

        Optional<Job> got = waiting.get(BOUND.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(got).map(Job::id).contains(id);
        assertThat(follower.get(id).status()).isEqualTo(JobStatus.RESERVED);
        follower.finish(id);
        assertThat(owner.get(id).status()).isEqualTo(JobStatus.FINISHED);
    }
}
