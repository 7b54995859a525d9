package io.delayqueue.queue.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.JobIds;
import io.delayqueue.common.JobStatus;
import io.delayqueue.common.PushRequest;
import io.delayqueue.queue.coordination.StandaloneCoordinator;
import io.delayqueue.queue.journal.mybatis.MyBatisJournal;
import io.delayqueue.queue.testing.JournalDatabase;
import io.delayqueue.queue.testing.ManualClock;
import io.delayqueue.queue.testing.RecordingDispatcher;
import io.delayqueue.queue.testing.RedisFixture;
import io.delayqueue.queue.testing.TestIds;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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
        EngineConfig config = EngineConfig.DEFAULTS
                .withShards(4)
                .withRedisPrefix(redis.prefix())
                .withDispatch(d -> d.withDefaultDispatcher("rec"));
        engine = new DelayQueueEngine(
                config,
                redis.store(config.shards(), config.retention()),
                List.of(new RecordingDispatcher("rec")),
                new StandaloneCoordinator(),
                journal,
                new ManualClock(T0));
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
                PushRequest.of("orders", "second", 500).withId("twice")));

        assertThat(results).extracting(PushResult::created).containsExactly(true, true, false);
        assertThat(engine.get("twice").body()).isEqualTo("first");
        assertThat(journal.find("twice").orElseThrow().body()).isEqualTo("first");
        assertThat(db.queryLong("SELECT COUNT(*) FROM delay_queue_job")).isEqualTo(2);
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
        assertThat(engine.restore(true).restored()).as("jobs restored").isEqualTo(2);
        for (PushResult r : results) {
            assertThat(engine.get(r.id()).status()).isEqualTo(JobStatus.DELAY);
        }
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
                    mine.add(engine.push(PushRequest.of("orders", "shared by " + caller, 1000)
                            .withId("shared")));
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
