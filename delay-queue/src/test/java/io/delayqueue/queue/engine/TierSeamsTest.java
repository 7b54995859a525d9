package io.delayqueue.queue.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayqueue.common.JobIds;
import io.delayqueue.common.PushRequest;
import io.delayqueue.queue.coordination.Coordinator;
import io.delayqueue.queue.coordination.StandaloneCoordinator;
import io.delayqueue.queue.engine.tier.TierSettings;
import io.delayqueue.queue.journal.JobCursor;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.journal.JournalSettings;
import io.delayqueue.queue.journal.mybatis.MyBatisJournal;
import io.delayqueue.queue.testing.ForwardingJournal;
import io.delayqueue.queue.testing.JournalDatabase;
import io.delayqueue.queue.testing.ManualClock;
import io.delayqueue.queue.testing.RecordingDispatcher;
import io.delayqueue.queue.testing.RedisFixture;
import io.delayqueue.queue.testing.TestIds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The seams of the tier protocol and of shard fencing (issue 19 items 3 and 9), through the engine on the real
 * Redis and MariaDB with a manual clock, each race played in a fixed order: the loader's journal read is where
 * the test loses Redis' watermark and commits a far push, and the coordinator loses the shard between the owner
 * check and the fence.
 */
class TierSeamsTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final long HOUR = 3_600_000L;
    private static final int SHARDS = 2;

    private RedisFixture redis;
    private JournalDatabase db;
    private MyBatisJournal journal;
    private final List<DelayQueueEngine> engines = new ArrayList<>();

    @BeforeEach
    void setUp() {
        redis = new RedisFixture();
        db = JournalDatabase.mariaDb();
        journal = db.journal(
                JournalSettings.DEFAULTS.withWriter(
                        JournalMode.SYNC, Duration.ofMillis(20), 10_000, Duration.ofSeconds(30), 1_000_000, 2),
                SHARDS,
                new ManualClock(T0));
    }

    @AfterEach
    void tearDown() {
        try {
            engines.forEach(DelayQueueEngine::close);
            journal.close();
        } finally {
            db.close();
            redis.close();
        }
    }

    private DelayQueueEngine engine(
            ManualClock clock, Journal journal, Coordinator coordinator, RecordingDispatcher rec, int pageSize) {
        EngineConfig config = EngineConfig.DEFAULTS
                .withShards(SHARDS)
                .withRedisPrefix(redis.prefix())
                .withDispatch(d -> d.withDefaultDispatcher(rec.name()))
                .withTier(t -> new TierSettings(Duration.ofHours(1)))
                .withJournal(j -> j.withReconcile(j.reconcileInterval(), j.reconcileGrace(), pageSize))
                .withScanner(s -> s.withLead(Duration.ZERO));
        DelayQueueEngine engine = new DelayQueueEngine(
                config, redis.store(SHARDS, config.retention()), List.of(rec), coordinator, journal, clock);
        engines.add(engine);
        return engine;
    }

    private boolean inRedis(String id) {
        int shard = JobIds.shardOf(id, SHARDS);
        return redis.redis().hexists(redis.keys().pool(shard), id);
    }

    /** A journal that runs {@code duringRead} once, on the read of the given page of a shard (1: the first). */
    private static Journal interleaved(Journal journal, int readNumber, IntConsumer duringRead) {
        AtomicInteger reads = new AtomicInteger();
        return new ForwardingJournal(journal) {
            @Override
            public List<JobCursor> delayedKeysOfShard(int shard, JobCursor after, long dueAtMost, int limit) {
                List<JobCursor> page = super.delayedKeysOfShard(shard, after, dueAtMost, limit);
                if (reads.incrementAndGet() == readNumber) {
                    duringRead.accept(shard);
                }
                return page;
            }
        };
    }

    @Test
    void a_far_push_committed_after_redis_lost_the_intent_mid_pass_is_loaded_not_skipped() {
        // the pusher's clock is half an hour behind the loader's: to the pusher the job is far, while the loader
        // has promised (raised the intent) to load everything due up to its own now + horizon
        ManualClock loaderClock = new ManualClock(T0 + HOUR / 2);
        ManualClock pusherClock = new ManualClock(T0);
        RecordingDispatcher rec = new RecordingDispatcher("rec");
        DelayQueueEngine pusher = engine(pusherClock, journal, new StandaloneCoordinator(), rec, 1000);
        String id = TestIds.inShard(0, SHARDS);
        List<String> late = new ArrayList<>();
        DelayQueueEngine loader = engine(
                loaderClock,
                interleaved(journal, 1, shard -> {
                    // the read is over; Redis restarts empty (or a replica that never got the raise takes over),
                    // and a far push due within the intent the read was made under commits: it finds no intent
                    // and is left to the loader
                    redis.redis().del(redis.keys().tier(shard));
                    late.add(pusher.push(PushRequest.of("orders", "late row", HOUR + 10 * 60_000L)
                                    .withId(id))
                            .id());
                    assertThat(inRedis(id)).as("left to the loader").isFalse();
                }),
                new StandaloneCoordinator(),
                rec,
                1000);

        assertThat(loader.loadTierNow()).as("the pass that lost its intent").isZero();
        assertThat(late).containsExactly(id);
        assertThat(redis.redis().hget(redis.keys().tier(0), "loaded"))
                .as("the page read under the lost intent did not move the cursor")
                .isNull();

        assertThat(loader.loadTierNow()).as("the next pass").isEqualTo(1);
        assertThat(inRedis(id)).as("loaded by the next pass").isTrue();
        loaderClock.set(T0 + HOUR + 10 * 60_000L);
        loader.runDueJobs();
        assertThat(rec.ids()).as("delivered on time, not by the reconciler").containsExactly(id);
    }

    @Test
    void a_page_read_after_the_cursor_was_lost_is_loaded_only_from_the_first_row() {
        ManualClock clock = new ManualClock(T0);
        RecordingDispatcher rec = new RecordingDispatcher("rec");
        DelayQueueEngine pusher = engine(clock, journal, new StandaloneCoordinator(), rec, 2);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            ids.add(pusher.push(
                            PushRequest.of("orders", "far " + i, 2 * HOUR + i).withId(TestIds.inShard(0, SHARDS)))
                    .id());
        }
        List<String> firstPage = new ArrayList<>();
        DelayQueueEngine loader = engine(
                clock,
                interleaved(journal, 2, shard -> {
                    // the second page of shard 0 is read; a replica that got the raise but not the first page's
                    // load takes over: the intent and its token are there, the cursor and the first page's jobs not
                    redis.redis().hdel(redis.keys().tier(shard), "loaded");
                    for (String id : ids.subList(0, 2)) {
                        redis.redis().hdel(redis.keys().pool(shard), id);
                        redis.redis().zrem(redis.keys().bucket(shard), id);
                        firstPage.add(id);
                    }
                }),
                new StandaloneCoordinator(),
                rec,
                2);
        clock.set(T0 + HOUR + 10);

        loader.loadTierNow();
        assertThat(firstPage).hasSize(2);
        assertThat(ids.subList(2, 4))
                .as("the second page, read after the cursor was lost, is not loaded")
                .noneMatch(this::inRedis);

        loader.loadTierNow();
        assertThat(ids).as("the next pass reads from the first row").allMatch(this::inRedis);
        clock.set(T0 + 2 * HOUR + 10);
        loader.runDueJobs();
        assertThat(rec.ids()).containsExactlyInAnyOrderElementsOf(ids);
    }

    /**
     * A fencing coordinator (as the ZooKeeper ones) that still answers {@code owns} but has just lost the shard:
     * its term is gone, as between the owner check and the fence of a pass.
     */
    private static final class LosingCoordinator implements Coordinator {
        @Override
        public void start(OwnershipListener listener) {}

        @Override
        public boolean owns(int shard) {
            return true;
        }

        @Override
        public boolean fencesOwnership() {
            return true;
        }

        @Override
        public String ownershipTerm(int shard) {
            return null;
        }

        @Override
        public String role() {
            return "member";
        }

        @Override
        public void close() {}
    }

    @Test
    void a_shard_lost_between_the_owner_check_and_the_fence_is_neither_moved_nor_loaded() {
        ManualClock clock = new ManualClock(T0);
        RecordingDispatcher rec = new RecordingDispatcher("rec");
        DelayQueueEngine owner = engine(clock, journal, new StandaloneCoordinator(), rec, 1000);
        String near = owner.push(PushRequest.of("orders", "near", 1_000)).id();
        String far = owner.push(PushRequest.of("orders", "far", 2 * HOUR)).id();
        RecordingDispatcher lostRec = new RecordingDispatcher("rec");
        DelayQueueEngine lost = engine(clock, journal, new LosingCoordinator(), lostRec, 1000);

        clock.set(T0 + 2 * HOUR);
        assertThat(lost.loadTierNow())
                .as("loaded by an instance that lost the shard")
                .isZero();
        assertThat(inRedis(far)).isFalse();
        assertThat(lost.runDueJobs())
                .as("moved by an instance that lost the shard")
                .isZero();
        assertThat(lostRec.ids()).isEmpty();
        assertThat(redis.redis().get(redis.keys().epoch(JobIds.shardOf(near, SHARDS))))
                .as("no epoch taken")
                .isNull();

        assertThat(owner.loadTierNow()).isEqualTo(1);
        owner.runDueJobs();
        assertThat(rec.ids()).containsExactlyInAnyOrder(near, far);
    }
}
