package io.delayqueue.queue.engine.handover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.engine.EngineConfig;
import io.delayqueue.queue.engine.EngineListener;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.store.JobStore;
import io.delayqueue.queue.testing.ManualClock;
import io.delayqueue.queue.testing.RecordingDispatcher;
import io.delayqueue.queue.testing.RedisFixture;
import io.delayqueue.queue.testing.TestIds;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Acknowledgements of confirmed sends that Redis did not take are kept and written by a later flush, every one
 * of them, on the real Redis: when the write of one shard's acknowledgements fails, those of the shards after it
 * in the same flush are kept too. One dropped there leaves its delivered job {@code RESERVED}, and the job is
 * delivered again once its reservation expires.
 */
class AcknowledgementFlushTest {
    private static final int SHARDS = 2;
    private static final String TOPIC = "acks";
    private static final long DISPATCH_TIMEOUT_MS = 30_000;

    private RedisFixture redis;
    private DispatchPipeline pipeline;

    @BeforeEach
    void setUp() {
        redis = new RedisFixture();
    }

    @AfterEach
    void tearDown() {
        try {
            if (pipeline != null) {
                pipeline.close();
            }
        } finally {
            redis.close();
        }
    }

    @Test
    void acknowledgements_of_later_shards_are_kept_when_the_write_of_an_earlier_shard_fails() throws Exception {
        ManualClock clock = new ManualClock(1_700_000_000_000L);
        RecordingDispatcher dispatcher = new RecordingDispatcher("recording");
        EngineConfig config = EngineConfig.DEFAULTS
                .withShards(SHARDS)
                .withRedisPrefix(redis.prefix())
                .withDispatch(d ->
                        d.withDefaultDispatcher(dispatcher.name()).withTimeout(Duration.ofMillis(DISPATCH_TIMEOUT_MS)));
        JobStore store = redis.agreedStore(SHARDS, config.retention());
        AtomicInteger failuresLeft = new AtomicInteger(1);
        TopicRoutes routes = new TopicRoutes(
                config.dispatch().defaultDispatcher(), config.dispatch().topics());
        pipeline = new DispatchPipeline(
                failingFirstAcknowledgementOfShard0(store, failuresLeft),
                routes,
                Map.of(dispatcher.name(), dispatcher),
                config,
                Journal.NONE,
                clock,
                (shard, dueAt) -> {},
                EngineListener.NONE,
                new LatenessRecorder(LatenessRecorder.DEFAULT_WINDOW),
                () -> {});

        long now = clock.millis();
        List<Job> reserved = new ArrayList<>();
        for (int shard = 0; shard < SHARDS; shard++) {
            store.push(List.of(job(TestIds.inShard(shard, SHARDS), now)));
            reserved.add(store.moveDue(shard, now, 0, 10, routes.dueRouting(), DISPATCH_TIMEOUT_MS, 0)
                    .toDispatch()
                    .get(0));
        }
        // Both sends are confirmed before any flush runs (a flush waits for this monitor), so the next flush
        // holds the acknowledgements of both shards, and its write for shard 0 fails.
        synchronized (pipeline) {
            for (int shard = 0; shard < SHARDS; shard++) {
                assertThat(pipeline.takeCapacity(1)).isEqualTo(1);
                pipeline.dispatch(shard, List.of(reserved.get(shard))).get(5, TimeUnit.SECONDS);
            }
        }
        pipeline.flushNow();
        assertThat(failuresLeft.get()).as("the write of shard 0 failed once").isLessThan(1);

        // the clock stands still: no reservation expires, so only the kept acknowledgements can finish the jobs
        await("both delivered jobs FINISHED in Redis")
                .atMost(Duration.ofSeconds(5))
                .until(() -> {
                    pipeline.flushNow();
                    return reserved.stream()
                            .allMatch(j -> store.find(j.id()).orElseThrow().status() == JobStatus.FINISHED);
                });
        assertThat(dispatcher.ids())
                .containsExactlyInAnyOrderElementsOf(
                        reserved.stream().map(Job::id).toList());
    }

    private static Job job(String id, long now) {
        return new Job(id, TOPIC, null, null, "body of " + id, now, 30_000, 10, null, 0, now, JobStatus.DELAY, 0);
    }

    /** {@code store}, whose first {@code failuresLeft} writes of shard 0's acknowledgements fail as Redis would. */
    private static JobStore failingFirstAcknowledgementOfShard0(JobStore store, AtomicInteger failuresLeft) {
        return (JobStore) Proxy.newProxyInstance(
                JobStore.class.getClassLoader(), new Class<?>[] {JobStore.class}, (proxy, method, args) -> {
                    if (method.getName().equals("finishAttempts")
                            && (Integer) args[0] == 0
                            && failuresLeft.getAndDecrement() > 0) {
                        throw new DelayQueueException.Unavailable("Redis is unavailable: cut off by the test", null);
                    }
                    try {
                        return method.invoke(store, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
