package io.delayqueue.queue.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.common.JobIds;
import io.delayqueue.common.JobStatus;
import io.delayqueue.common.PushRequest;
import io.delayqueue.queue.coordination.Coordinator;
import io.delayqueue.queue.coordination.StandaloneCoordinator;
import io.delayqueue.queue.engine.push.PushResult;
import io.delayqueue.queue.engine.restore.RestoreReport;
import io.delayqueue.queue.engine.tier.TierSettings;
import io.delayqueue.queue.engine.tier.TierStats;
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
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Tiered storage through the engine, on the real Redis and MariaDB with a manual clock: far jobs stay in the
 * journal until the horizon reaches them, are then loaded and delivered on time; a new owner goes on from the
 * watermark and the old owner's loads are refused; a far row the loader's read missed is admitted by its pusher.
 */
class TierTest {
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
            ManualClock clock, Journal journal, Coordinator coordinator, RecordingDispatcher dispatcher, int pageSize) {
        EngineConfig config = EngineConfig.DEFAULTS
                .withShards(SHARDS)
                .withRedisPrefix(redis.prefix())
                .withDispatch(d -> d.withDefaultDispatcher(dispatcher.name()))
                .withTier(t -> new TierSettings(Duration.ofHours(1)))
                .withJournal(j -> j.withReconcile(j.reconcileInterval(), j.reconcileGrace(), pageSize))
                .withScanner(s -> s.withLead(Duration.ZERO));
        DelayQueueEngine engine = new DelayQueueEngine(
                config, redis.store(SHARDS, config.retention()), List.of(dispatcher), coordinator, journal, clock);
        engines.add(engine);
        return engine;
    }

    private boolean inRedis(String id) {
        int shard = JobIds.shardOf(id, SHARDS);
        return redis.redis().hexists(redis.keys().pool(shard), id)
                || redis.redis().zscore(redis.keys().bucket(shard), id) != null;
    }

    @Test
    void the_loader_reads_whole_only_the_rows_redis_lacks() {
        ManualClock clock = new ManualClock(T0);
        RecordingDispatcher rec = new RecordingDispatcher("rec");
        List<String> readWhole = new ArrayList<>();
        Journal counting = new ForwardingJournal(journal) {
            @Override
            public java.util.Map<String, io.delayqueue.common.Job> findAll(java.util.Collection<String> ids) {
                readWhole.addAll(ids);
                return super.findAll(ids);
            }
        };
        DelayQueueEngine engine = engine(clock, counting, new StandaloneCoordinator(), rec, 1000);
        String shard0 = TestIds.inShard(0, SHARDS);
        PushResult far =
                engine.push(PushRequest.of("orders", "far", HOUR + 60_000).withId(shard0));
        assertThat(engine.loadTierNow())
                .as("the first pass raises the intent to T0 + 1 h")
                .isZero();
        clock.set(T0 + 30_000);
        // near when pushed (due within now + 1 h) but beyond the intent the last pass raised: the next pass's page
        // holds its row, which Redis has
        PushResult near = engine.push(PushRequest.of("orders", "near", HOUR).withId(TestIds.inShard(0, SHARDS)));
        assertThat(inRedis(near.id())).isTrue();
        assertThat(inRedis(far.id())).isFalse();
        readWhole.clear();

        clock.set(T0 + 60_000);
        assertThat(engine.loadTierNow()).as("the far job loaded").isEqualTo(1);

        assertThat(inRedis(far.id())).isTrue();
        assertThat(readWhole)
                .as("rows read whole: the far job's, not the near one's that Redis holds")
                .containsExactly(far.id());
        assertThat(journal.history(near.id()))
                .extracting(e -> e.event().name())
                .as("the near job was not loaded again")
                .doesNotContain("LOADED");
    }

    @Test
    void a_far_job_stays_in_the_journal_until_the_horizon_reaches_it_and_is_then_delivered_on_time() {
        ManualClock clock = new ManualClock(T0);
        RecordingDispatcher rec = new RecordingDispatcher("rec");
        DelayQueueEngine engine = engine(clock, journal, new StandaloneCoordinator(), rec, 1000);

        PushResult far = engine.push(PushRequest.of("orders", "in three hours", 3 * HOUR));
        PushResult near = engine.push(PushRequest.of("orders", "in ten minutes", 600_000));

        assertThat(far.created()).isTrue();
        assertThat(far.scheduled())
                .as("a far job is durable and scheduled (HTTP 200)")
                .isTrue();
        assertThat(inRedis(far.id())).as("far job in Redis").isFalse();
        assertThat(inRedis(near.id())).as("near job in Redis").isTrue();
        assertThat(journal.find(far.id()).orElseThrow().status()).isEqualTo(JobStatus.DELAY);
        JobDetails details = engine.details(far.id());
        assertThat(details.tier()).isEqualTo(JobDetails.JOURNAL);
        assertThat(details.job().status()).isEqualTo(JobStatus.DELAY);
        assertThat(engine.details(near.id()).tier()).isEqualTo(JobDetails.REDIS);

        assertThat(engine.loadTierNow()).as("loaded at T0").isZero();
        clock.set(T0 + 2 * HOUR - 1);
        assertThat(engine.loadTierNow())
                .as("loaded a millisecond before the horizon reaches it")
                .isZero();
        assertThat(inRedis(far.id())).isFalse();

        clock.set(T0 + 2 * HOUR);
        assertThat(engine.loadTierNow())
                .as("loaded once the horizon reaches it")
                .isEqualTo(1);
        assertThat(inRedis(far.id())).isTrue();
        assertThat(engine.details(far.id()).tier()).isEqualTo(JobDetails.REDIS);
        assertThat(engine.loadTierNow()).as("loaded again").isZero();

        clock.set(T0 + 600_000);
        engine.runDueJobs();
        assertThat(rec.ids()).containsExactly(near.id());
        clock.set(T0 + 3 * HOUR - 1);
        engine.runDueJobs();
        assertThat(rec.ids()).as("before its due time").containsExactly(near.id());
        clock.set(T0 + 3 * HOUR);
        engine.runDueJobs();
        assertThat(rec.ids()).as("at its due time").containsExactly(near.id(), far.id());
        await("the far job's history is journaled")
                .atMost(Duration.ofSeconds(10))
                .until(() -> journal.history(far.id()).size() == 4);
        assertThat(journal.history(far.id()))
                .extracting(io.delayqueue.queue.journal.JournalEntry::event)
                .containsExactly(
                        io.delayqueue.queue.journal.JobEvent.CREATED,
                        io.delayqueue.queue.journal.JobEvent.LOADED,
                        io.delayqueue.queue.journal.JobEvent.RESERVED,
                        io.delayqueue.queue.journal.JobEvent.FINISHED);
        assertThat(journal.find(far.id()).orElseThrow().status()).isEqualTo(JobStatus.FINISHED);
    }

    @Test
    void journal_only_jobs_answer_lookups_deletes_restores_and_repeated_pushes() {
        ManualClock clock = new ManualClock(T0);
        RecordingDispatcher rec = new RecordingDispatcher("rec");
        DelayQueueEngine engine = engine(clock, journal, new StandaloneCoordinator(), rec, 1000);
        PushResult kept = engine.push(PushRequest.of("orders", "kept", 5 * HOUR).withId("far-kept"));
        PushResult deleted =
                engine.push(PushRequest.of("orders", "deleted", 5 * HOUR).withId("far-deleted"));

        PushResult again =
                engine.push(PushRequest.of("orders", "kept", 5 * HOUR).withId("far-kept"));
        assertThat(again.created()).as("a client id pushed twice").isFalse();
        assertThat(again.scheduled()).isTrue();
        assertThat(inRedis(kept.id()))
                .as("a repeated far push brings the job into Redis")
                .isFalse();
        assertThat(engine.get(kept.id()).body()).isEqualTo("kept");

        engine.delete(deleted.id());
        assertThat(journal.find(deleted.id()).orElseThrow().status()).isEqualTo(JobStatus.DELETED);
        assertThat(engine.get(deleted.id()).status()).isEqualTo(JobStatus.DELETED);

        RestoreReport one = engine.restoreJob(kept.id());
        assertThat(one.inJournalTier()).isEqualTo(1);
        assertThat(one.restored()).isZero();
        assertThat(engine.restore(true).restored())
                .as("a restore brings far jobs in")
                .isZero();
        assertThat(inRedis(kept.id())).isFalse();

        await("the journal tier counted 1 job").atMost(Duration.ofSeconds(10)).until(() -> {
            TierStats tiers = engine.stats().tiers();
            return tiers.journalPending() != null && tiers.journalPending() == 1;
        });

        clock.set(T0 + 5 * HOUR);
        assertThat(engine.loadTierNow())
                .as("loaded: the kept job, not the deleted one")
                .isEqualTo(1);
        engine.runDueJobs();
        assertThat(rec.ids()).containsExactly(kept.id());
        assertThat(engine.get(deleted.id()).status()).isEqualTo(JobStatus.DELETED);
    }

    @Test
    void clear_all_deletes_journal_only_jobs_and_the_loader_never_brings_them_back() {
        ManualClock clock = new ManualClock(T0);
        RecordingDispatcher rec = new RecordingDispatcher("rec");
        DelayQueueEngine engine = engine(clock, journal, new StandaloneCoordinator(), rec, 1000);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            ids.add(engine.push(PushRequest.of("orders", "far " + i, 2 * HOUR + i))
                    .id());
        }
        ids.add(engine.push(PushRequest.of("orders", "near", 1000)).id());

        assertThat(engine.clearAll()).isEqualTo(21);

        clock.set(T0 + 3 * HOUR);
        assertThat(engine.loadTierNow()).isZero();
        engine.runDueJobs();
        assertThat(rec.ids()).isEmpty();
        for (String id : ids) {
            assertThat(journal.find(id).orElseThrow().status()).isEqualTo(JobStatus.DELETED);
        }
    }

    /** A coordinator that owns every shard under one term, as an instance of a fenced deployment does. */
    private static final class TermCoordinator implements Coordinator {
        private final String term;
        /** Whether the coordination service still confirms the term (false: another instance took over). */
        private volatile boolean holds = true;

        TermCoordinator(String term) {
            this.term = term;
        }

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
            return term;
        }

        @Override
        public boolean confirmTerm(int shard, String term) {
            return holds;
        }

        @Override
        public String role() {
            return "member";
        }

        @Override
        public void close() {}
    }

    @Test
    void a_new_owner_goes_on_from_the_watermark_and_the_old_owners_loads_are_refused() {
        ManualClock clock = new ManualClock(T0);
        RecordingDispatcher oldRec = new RecordingDispatcher("rec");
        RecordingDispatcher newRec = new RecordingDispatcher("rec");
        TermCoordinator oldTerm = new TermCoordinator("old");
        DelayQueueEngine old = engine(clock, journal, oldTerm, oldRec, 4);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            ids.add(old.push(PushRequest.of("orders", "far " + i, 3 * HOUR + i * 60_000L))
                    .id());
        }
        assertThat(ids).noneMatch(this::inRedis);

        clock.set(T0 + 2 * HOUR + 9 * 60_000L); // jobs 0..9 within the horizon
        assertThat(old.loadTierNow()).isEqualTo(10);
        String loadedBefore = redis.redis().hget(redis.keys().tier(0), "loaded");
        assertThat(loadedBefore).isNotNull();

        // another instance takes the shards over (a higher epoch); the old one, paused, still thinks it owns them
        oldTerm.holds = false;
        DelayQueueEngine successor = engine(clock, journal, new TermCoordinator("new"), newRec, 4);
        clock.set(T0 + 2 * HOUR + 19 * 60_000L); // jobs 10..19
        assertThat(successor.loadTierNow())
                .as("the new owner loads from the watermark")
                .isEqualTo(10);
        assertThat(redis.redis().hget(redis.keys().tier(0), "loaded")).isNotEqualTo(loadedBefore);

        clock.set(T0 + 2 * HOUR + 29 * 60_000L); // jobs 20..29
        assertThat(old.loadTierNow()).as("loads of the old owner").isZero();
        assertThat(ids.subList(20, 30)).noneMatch(this::inRedis);
        assertThat(successor.loadTierNow()).isEqualTo(10);

        clock.set(T0 + 4 * HOUR);
        successor.runDueJobs();
        assertThat(old.runDueJobs()).as("moves of the old owner").isZero();
        assertThat(newRec.ids()).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(oldRec.ids()).isEmpty();
    }

    @Test
    void a_far_row_committed_after_the_loaders_read_began_is_admitted_by_its_pusher() {
        // the pusher's clock is half an hour behind the loader's: to the pusher the job is far, while the loader
        // has already promised (raised the intent) to load everything due up to its own now + horizon
        ManualClock loaderClock = new ManualClock(T0 + HOUR / 2);
        ManualClock pusherClock = new ManualClock(T0);
        RecordingDispatcher rec = new RecordingDispatcher("rec");
        DelayQueueEngine pusher = engine(pusherClock, journal, new StandaloneCoordinator(), rec, 1000);
        List<String> pushedDuringRead = new ArrayList<>();
        AtomicBoolean once = new AtomicBoolean();
        Journal readThenPush = new ForwardingJournal(journal) {
            @Override
            public List<JobCursor> delayedKeysOfShard(int shard, JobCursor after, long dueAtMost, int limit) {
                List<JobCursor> page = super.delayedKeysOfShard(shard, after, dueAtMost, limit);
                if (once.compareAndSet(false, true)) {
                    // the read is over (it began before this row's commit): the row is not in its page
                    pushedDuringRead.add(pusher.push(PushRequest.of("orders", "late row", HOUR + 10 * 60_000L)
                                    .withId(TestIds.inShard(shard, SHARDS)))
                            .id());
                }
                return page;
            }
        };
        DelayQueueEngine loader = engine(loaderClock, readThenPush, new StandaloneCoordinator(), rec, 1000);

        // before any raise: a far push is left to the loader
        PushResult early = pusher.push(PushRequest.of("orders", "early row", HOUR + 5 * 60_000L));
        assertThat(inRedis(early.id())).isFalse();

        assertThat(loader.loadTierNow()).as("jobs the loader loaded").isEqualTo(1);
        String late = pushedDuringRead.get(0);
        assertThat(inRedis(early.id())).as("the early row, read by the loader").isTrue();
        assertThat(inRedis(late)).as("the late row, admitted by its pusher").isTrue();
        assertThat(redis.redis().hget(redis.keys().tier(JobIds.shardOf(late, SHARDS)), "loaded"))
                .as("the watermark passed the late row")
                .startsWith(Long.toString(T0 + HOUR / 2 + HOUR + 1));

        loaderClock.set(T0 + 2 * HOUR);
        loader.runDueJobs();
        assertThat(rec.ids()).containsExactlyInAnyOrder(early.id(), late);
    }

    @Test
    void a_journal_only_job_whose_delete_the_journal_refused_is_delivered_though_the_loader_passed_it() {
        ManualClock clock = new ManualClock(T0);
        RecordingDispatcher rec = new RecordingDispatcher("rec");
        List<DelayQueueEngine> self = new ArrayList<>();
        Journal refusingDeletes = new ForwardingJournal(journal) {
            @Override
            public void recordTransitionsDurably(List<io.delayqueue.queue.journal.Transition> transitions) {
                // the tombstone stands while this commit runs: the loader passes the job meanwhile
                assertThat(self.get(0).loadTierNow())
                        .as("loaded past the tombstone")
                        .isZero();
                throw new io.delayqueue.common.DelayQueueException.Unavailable("the journal refuses", null);
            }
        };
        DelayQueueEngine engine = engine(clock, refusingDeletes, new StandaloneCoordinator(), rec, 1000);
        self.add(engine);
        String id = engine.push(PushRequest.of("orders", "kept", 3 * HOUR)).id();

        clock.set(T0 + 2 * HOUR + 1);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> engine.delete(id))
                .isInstanceOf(io.delayqueue.common.DelayQueueException.Unavailable.class);

        assertThat(inRedis(id))
                .as("the job, admitted again after its delete was undone")
                .isTrue();
        clock.set(T0 + 3 * HOUR);
        engine.runDueJobs();
        assertThat(rec.ids()).containsExactly(id);
    }

    @Test
    void journal_only_jobs_whose_clear_all_the_journal_refused_are_delivered_though_the_loader_passed_them() {
        ManualClock clock = new ManualClock(T0);
        RecordingDispatcher rec = new RecordingDispatcher("rec");
        List<DelayQueueEngine> self = new ArrayList<>();
        Journal refusingDeletes = new ForwardingJournal(journal) {
            @Override
            public void recordTransitionsDurably(List<io.delayqueue.queue.journal.Transition> transitions) {
                if (transitions.isEmpty()) {
                    return;
                }
                // the tombstones stand while this commit runs: the loader passes the jobs meanwhile
                assertThat(self.get(0).loadTierNow())
                        .as("loaded past the tombstones")
                        .isZero();
                throw new io.delayqueue.common.DelayQueueException.Unavailable("the journal refuses", null);
            }
        };
        DelayQueueEngine engine = engine(clock, refusingDeletes, new StandaloneCoordinator(), rec, 1000);
        self.add(engine);
        // one shard's jobs go in one batch of the clear
        String first = engine.push(PushRequest.of("orders", "kept", 3 * HOUR)).id();
        String second =
                engine.push(PushRequest.of("orders", "kept too", 3 * HOUR + 1)).id();

        clock.set(T0 + 2 * HOUR + 1);
        org.assertj.core.api.Assertions.assertThatThrownBy(engine::clearAll)
                .isInstanceOf(io.delayqueue.common.DelayQueueException.class);

        assertThat(List.of(inRedis(first), inRedis(second)))
                .as("the jobs of the refused batch, and of the batch after it that was begun and never committed,"
                        + " are admitted again after their deletes were undone")
                .containsExactly(true, true);
        clock.set(T0 + 3 * HOUR + 1);
        engine.runDueJobs();
        assertThat(rec.ids())
                .as("every job of a refused clearAll is still delivered on time")
                .containsExactlyInAnyOrder(first, second);
    }

    @Test
    void rows_written_before_the_journal_recorded_shards_get_theirs() throws Exception {
        String id = TestIds.inShard(1, SHARDS);
        try (var c = db.connection();
                var s = c.createStatement()) {
            s.execute("INSERT INTO delay_queue_job (id, topic, body, ttr, max_attempts, priority, status, attempts,"
                    + " due_at, create_time, update_time, version) VALUES ('" + id
                    + "', 'orders', 'old', 30000, 10, 0, 'DELAY', 0, " + (T0 + 3 * HOUR) + ", " + T0 + ", " + T0
                    + ", 0)");
        }
        assertThat(journal.assignMissingShards(1000)).isEqualTo(1);
        assertThat(journal.assignMissingShards(1000)).isZero();
        assertThat(db.queryLong("SELECT shard FROM delay_queue_job WHERE id = '" + id + "'"))
                .isEqualTo(1);
        assertThat(journal.delayedKeysOfShard(1, JobCursor.START, T0 + 3 * HOUR, 10))
                .extracting(JobCursor::id)
                .containsExactly(id);
    }
}
