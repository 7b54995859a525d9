package io.delayqueue.queue.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.Job;
import io.delayqueue.common.JobIds;
import io.delayqueue.common.JobStatus;
import io.delayqueue.common.PushRequest;
import io.delayqueue.queue.coordination.StandaloneCoordinator;
import io.delayqueue.queue.engine.push.PushResult;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.journal.mybatis.MyBatisJournal;
import io.delayqueue.queue.testing.ForwardingJournal;
import io.delayqueue.queue.testing.JournalDatabase;
import io.delayqueue.queue.testing.ManualClock;
import io.delayqueue.queue.testing.RecordingDispatcher;
import io.delayqueue.queue.testing.RedisFixture;
import io.delayqueue.queue.testing.TestIds;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Pushes through the engine with the MyBatis journal in {@code sync} mode on SQLite (the embedded default) and the
 * Redis store: concurrent pushes share rounds, one id pushed several times in a round is created once, and a push
 * the journal cannot write is refused with nothing written.
 */
class JournaledPushTest {
    private static final long T0 = 1_700_000_000_000L;

    private RedisFixture redis;
    private JournalDatabase db;
    private MyBatisJournal journal;
    private DelayQueueEngine engine;

    @BeforeEach
    void setUp() {
        redis = new RedisFixture();
        // a short busy_timeout: a_push_the_journal_cannot_write_...
        db = JournalDatabase.sqlite("?journal_mode=WAL&synchronous=NORMAL&busy_timeout=300");
        journal = db.journal(4, new ManualClock(T0));
        engine = engineOn(journal);
    }

    private DelayQueueEngine engineOn(Journal journal) {
        EngineConfig config = EngineConfig.DEFAULTS
                .withShards(4)
                .withRedisPrefix(redis.prefix())
                .withDispatch(d -> d.withDefaultDispatcher("rec"));
        return new DelayQueueEngine(
                config,
                redis.store(config.shards(), config.retention()),
                List.of(new RecordingDispatcher("rec")),
                new StandaloneCoordinator(),
                journal,
                new ManualClock(T0));
    }

    @Test
    void a_restore_larger_than_the_journals_backlog_goes_at_the_journals_pace_and_drops_no_history() {
        engine.close();
        journal.close();
        // a backlog of 3,000 rows: a restore page of 1,000 jobs hands the journal 1,000 RESTORED transitions
        journal = db.journal(
                JournalDatabase.SETTINGS.withWriter(
                        JournalMode.SYNC, Duration.ofMillis(200), 10_000, Duration.ofSeconds(30), 3_000, 2),
                4,
                new ManualClock(T0));
        engine = engineOn(journal);
        int jobs = 20_000;
        for (int b = 0; b < jobs / 500; b++) {
            List<PushRequest> batch = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                batch.add(PushRequest.of("orders", "job " + b + "/" + i, 3_600_000));
            }
            assertThat(engine.pushBatch(batch)).allMatch(PushResult::created);
        }
        assertThat(redis.deleteAllKeys()).as("Redis emptied").isPositive();

        assertThat(engine.restore(true).restored()).isEqualTo(jobs);

        assertThat(journal.droppedRows())
                .as("RESTORED transitions not journaled")
                .isZero();
        org.awaitility.Awaitility.await("the backlog written")
                .atMost(Duration.ofSeconds(30))
                .until(() -> journal.queuedRows() == 0);
        assertThat(db.queryLong("SELECT COUNT(*) FROM delay_queue_job_log WHERE event = 'RESTORED'"))
                .as("one RESTORED row a job")
                .isEqualTo(jobs);
    }

    @AfterEach
    void tearDown() {
        try {
            engine.close();
            journal.close();
        } finally {
            db.close();
            redis.close();
        }
    }

    @Test
    void one_client_id_twice_in_one_batch_is_created_by_the_first_and_found_by_the_second() {
        List<PushResult> results = engine.pushBatch(List.of(
                PushRequest.of("orders", "first", 1000).withId("twice"),
                PushRequest.of("orders", "other", 1000),
                PushRequest.of("orders", "first", 500).withId("twice")));

        assertThat(results).extracting(PushResult::created).containsExactly(true, true, false);
        assertThat(engine.get("twice").body()).isEqualTo("first");
        assertThat(journal.find("twice").orElseThrow().body()).isEqualTo("first");
        assertThat(db.queryLong("SELECT COUNT(*) FROM delay_queue_job")).isEqualTo(2);
    }

    @Test
    void a_round_of_re_pushed_known_ids_reads_the_journal_once_and_puts_back_those_redis_lost() {
        AtomicInteger singleReads = new AtomicInteger();
        List<Integer> batchReads = new ArrayList<>();
        engine.close();
        engine = engineOn(new ForwardingJournal(journal) {
            @Override
            public Optional<Job> find(String id) {
                singleReads.incrementAndGet();
                return super.find(id);
            }

            @Override
            public Map<String, Job> findAll(Collection<String> ids) {
                synchronized (batchReads) {
                    batchReads.add(ids.size());
                }
                return super.findAll(ids);
            }
        });
        List<PushRequest> known = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            known.add(PushRequest.of("orders", "known " + i, 1000).withId("known-" + i));
        }
        assertThat(engine.pushBatch(known)).allMatch(PushResult::created);
        // Redis lost a third of them (as after a push whose Redis step failed once the rows were committed)
        List<String> lost = new ArrayList<>();
        for (int i = 0; i < 300; i += 3) {
            String id = "known-" + i;
            int shard = JobIds.shardOf(id, 4);
            redis.redis().hdel(redis.keys().pool(shard), id);
            redis.redis().zrem(redis.keys().bucket(shard), id);
            lost.add(id);
        }
        batchReads.clear();
        singleReads.set(0);
        long failuresBefore = journal.transientFailures();

        List<PushRequest> again = new ArrayList<>(known);
        for (int i = 0; i < 50; i++) {
            again.add(PushRequest.of("orders", "new " + i, 1000));
        }
        List<PushResult> results = engine.pushBatch(again);

        assertThat(results.subList(0, 300)).noneMatch(PushResult::created).allMatch(PushResult::scheduled);
        assertThat(results.subList(300, 350)).allMatch(PushResult::created).allMatch(PushResult::scheduled);
        assertThat(batchReads)
                .as("batched journal reads of the round (their sizes)")
                .containsExactly(300);
        assertThat(singleReads).as("single journal reads").hasValue(0);
        for (String id : lost) {
            assertThat(redis.redis().zscore(redis.keys().bucket(JobIds.shardOf(id, 4)), id))
                    .as("%s back in its bucket", id)
                    .isNotNull();
        }
        assertThat(journal.transientFailures())
                .as("the re-push's first attempt met the known ids and was written again")
                .isEqualTo(failuresBefore + 1);

        // while known ids keep coming back, groups look their ids up before inserting: no rolled-back attempt
        assertThat(engine.pushBatch(known)).noneMatch(PushResult::created);
        assertThat(engine.push(PushRequest.of("orders", "unrelated", 1000)).created())
                .isTrue();
        assertThat(journal.transientFailures()).isEqualTo(failuresBefore + 1);
        assertThat(db.queryLong("SELECT COUNT(*) FROM delay_queue_job")).isEqualTo(300 + 50 + 1);
    }

    @Test
    void a_shard_redis_refuses_answers_only_its_own_jobs_as_journaled_and_a_restore_stores_them_later() {
        // the pool of shard 2 is a string: its push script fails at once, writing nothing; the others work
        redis.redis().set(redis.keys().pool(2), "not a hash");
        List<PushRequest> requests = new ArrayList<>();
        for (int shard = 0; shard < 4; shard++) {
            for (int k = 0; k < 2; k++) {
                requests.add(
                        PushRequest.of("orders", "job " + shard + "/" + k, 1000).withId(TestIds.inShard(shard, 4)));
            }
        }
        List<PushResult> results = engine.pushBatch(requests);

        for (PushResult r : results) {
            int shard = JobIds.shardOf(r.id(), 4);
            assertThat(r.created()).as("created: %s", r).isTrue();
            assertThat(r.scheduled()).as("in Redis: %s", r).isEqualTo(shard != 2);
            assertThat(journal.find(r.id())).as("journaled: %s", r).isPresent();
            assertThat(redis.redis().zscore(redis.keys().bucket(shard), r.id()) != null)
                    .as("in its shard's bucket: %s", r)
                    .isEqualTo(shard != 2);
        }

        redis.redis().del(redis.keys().pool(2));
        // the re-admission of jobs answered 202 (its own thread) may store them first: then the restore finds them
        assertThat(engine.restore(true).restored()).as("jobs restored").isBetween(0L, 2L);
        for (PushResult r : results) {
            assertThat(engine.get(r.id()).status()).isEqualTo(JobStatus.DELAY);
            assertThat(redis.redis().zscore(redis.keys().bucket(JobIds.shardOf(r.id(), 4)), r.id()))
                    .as("in its bucket: %s", r)
                    .isNotNull();
        }
    }

    @Test
    void a_job_answered_202_is_put_into_redis_once_its_shard_answers_again_without_a_restore_or_the_reconciler() {
        // the pool of shard 2 is a string: its push script fails at once, writing nothing
        redis.redis().set(redis.keys().pool(2), "not a hash");
        String id = TestIds.inShard(2, 4);
        // with a job of a working shard beside it: a call that fails on every shard is thrown (a bug, not 202)
        List<PushResult> answered = engine.pushBatch(List.of(
                PushRequest.of("orders", "body", 1000).withId(TestIds.inShard(1, 4)),
                PushRequest.of("orders", "body", 1000).withId(id)));
        assertThat(answered.get(1).scheduled()).as("answered 202: %s", answered).isFalse();
        try {
            engine.readmitNow();
        } catch (RuntimeException stillRefused) {
            // the shard still fails: the id waits
        }
        assertThat(redis.redis().zscore(redis.keys().bucket(2), id))
                .as("not in Redis yet")
                .isNull();

        redis.redis().del(redis.keys().pool(2));
        engine.readmitNow(); // settles it, unless the re-admission's own thread did so a moment before
        assertThat(redis.redis().zscore(redis.keys().bucket(2), id))
                .as("in its bucket, due at its time")
                .isEqualTo((double) (T0 + 1000));
        assertThat(engine.get(id).status()).isEqualTo(JobStatus.DELAY);
        assertThat(engine.readmitNow()).as("nothing waits any more").isZero();
    }

    @Test
    void concurrent_single_pushes_are_all_journaled_and_stored_and_one_id_is_created_once() throws Exception {
        int callers = 32;
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        try {
            CyclicBarrier start = new CyclicBarrier(callers);
            List<Future<List<PushResult>>> pushes = new ArrayList<>();
            for (int c = 0; c < callers; c++) {
                int caller = c;
                pushes.add(pool.submit(() -> {
                    start.await();
                    List<PushResult> mine = new ArrayList<>();
                    for (int k = 0; k < 50; k++) {
                        mine.add(engine.push(PushRequest.of("orders", "job " + caller + "/" + k, 1000)));
                    }
                    mine.add(
                            engine.push(PushRequest.of("orders", "shared", 1000).withId("shared")));
                    return mine;
                }));
            }
            int created = 0;
            int sharedCreated = 0;
            for (Future<List<PushResult>> push : pushes) {
                for (PushResult r : push.get()) {
                    if (r.created()) {
                        created++;
                        sharedCreated += r.id().equals("shared") ? 1 : 0;
                    }
                }
            }
            assertThat(sharedCreated).as("pushes that created 'shared'").isEqualTo(1);
            assertThat(created).isEqualTo(callers * 50 + 1);
        } finally {
            pool.shutdownNow();
        }
        assertThat(db.queryLong("SELECT COUNT(*) FROM delay_queue_job")).isEqualTo(32 * 50 + 1);
        assertThat(engine.stats().byStatus().values().stream()
                        .mapToLong(Long::longValue)
                        .sum())
                .as("jobs in Redis")
                .isEqualTo(32 * 50 + 1);
        assertThat(journal.commits()).as("commits for %d pushes", 32 * 51).isLessThan(32 * 51);
    }

    /**
     * Another process holds the SQLite file's write lock (a backup tool, a second instance on the same file) past
     * the journal's {@code busy_timeout}: the push is answered 503 with the reason, and nothing of it is written,
     * neither in the journal nor in Redis. Once the lock is released, the next push is written.
     */
    @Test
    void a_push_the_journal_cannot_write_because_its_file_is_locked_is_refused_503_and_nothing_is_written()
            throws Exception {
        try (Connection other = db.connection()) {
            other.setAutoCommit(false);
            try (Statement lock = other.createStatement()) {
                lock.executeUpdate("DELETE FROM delay_queue_job_log WHERE 0"); // takes the write lock
            }
            assertThatThrownBy(() -> engine.push(
                            PushRequest.of("orders", "locked out", 1000).withId("locked-out")))
                    .isInstanceOfSatisfying(DelayQueueException.class, e -> assertThat(e.httpStatus())
                            .isEqualTo(503))
                    .hasMessageContaining("not written")
                    .hasMessageContaining("locked");
            other.rollback();
        }

        assertThat(journal.find("locked-out")).isEmpty();
        assertThatThrownBy(() -> engine.get("locked-out")).isInstanceOf(DelayQueueException.JobNotFound.class);
        PushResult after =
                engine.push(PushRequest.of("orders", "after the lock", 1000).withId("locked-out"));
        assertThat(after.created()).isTrue();
        assertThat(journal.find("locked-out").orElseThrow().body()).isEqualTo("after the lock");
    }
}
