package io.delayqueue.queue.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayqueue.common.PushRequest;
import io.delayqueue.queue.coordination.StandaloneCoordinator;
import io.delayqueue.queue.engine.retention.PurgeReport;
import io.delayqueue.queue.journal.mybatis.MyBatisJournal;
import io.delayqueue.queue.testing.JournalDatabase;
import io.delayqueue.queue.testing.ManualClock;
import io.delayqueue.queue.testing.RecordingDispatcher;
import io.delayqueue.queue.testing.RecordingEngineListener;
import io.delayqueue.queue.testing.RedisFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Journal retention through the engine, on real Redis and the machine's MariaDB (a database of the test's own),
 * with a manual clock: a pass purges the final jobs past the retention in batches of the configured size, tells
 * the listener, and pushes made meanwhile are all answered and all kept.
 */
class JournalRetentionEngineTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final Duration RETENTION = Duration.ofDays(7);

    private final ManualClock clock = new ManualClock(T0);
    private final RecordingEngineListener listener = new RecordingEngineListener();
    private RedisFixture redis;
    private JournalDatabase db;
    private MyBatisJournal journal;
    private DelayQueueEngine engine;

    @BeforeEach
    void setUp() {
        redis = new RedisFixture();
        db = JournalDatabase.mariaDb();
        journal = db.journal(4, clock);
        EngineConfig config = EngineConfig.DEFAULTS
                .withShards(4)
                .withRedisPrefix(redis.prefix())
                .withDispatch(d -> d.withDefaultDispatcher("rec"))
                .withJournal(j -> j.withRetention(RETENTION, 10, j.purgeInterval(), Duration.ZERO));
        engine = new DelayQueueEngine(
                config,
                redis.store(config.shards(), config.retention()),
                List.of(new RecordingDispatcher("rec")),
                new StandaloneCoordinator(),
                journal,
                clock);
        engine.setListener(listener);
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

    private String push() {
        return engine.push(PushRequest.of(
                        "orders", "close order", Duration.ofDays(30).toMillis()))
                .id();
    }

    @Test
    void deleted_jobs_past_the_retention_are_purged_in_batches_and_counted_while_pushes_go_on() throws Exception {
        List<String> deleted = new ArrayList<>();
        for (int i = 0; i < 95; i++) {
            String id = push();
            engine.delete(id);
            deleted.add(id);
        }
        List<String> pending = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            pending.add(push());
        }
        clock.advance(RETENTION.plusMillis(1));
        String deletedRecently = push();
        engine.delete(deletedRecently);

        ConcurrentLinkedQueue<String> pushedDuringPurge = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        AtomicBoolean purged = new AtomicBoolean();
        CountDownLatch pushing = new CountDownLatch(1);
        Thread pusher = new Thread(
                () -> {
                    try {
                        // pushes before, during and after the pass
                        while (!purged.get() || pushedDuringPurge.size() < 100) {
                            pushedDuringPurge.add(push());
                            pushing.countDown();
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                        pushing.countDown();
                    }
                },
                "pusher");
        pusher.start();
        assertThat(pushing.await(30, TimeUnit.SECONDS)).isTrue();
        PurgeReport report;
        try {
            report = engine.purgeJournalNow();
        } finally {
            purged.set(true);
        }
        pusher.join(TimeUnit.MINUTES.toMillis(1));

        assertThat(failures).isEmpty();
        assertThat(report).isEqualTo(new PurgeReport(95, 95 * 2, 10));
        assertThat(listener.purgedJobRows()).isEqualTo(95);
        assertThat(listener.purgedLogRows()).isEqualTo(95 * 2);
        assertThat(deleted).allSatisfy(id -> {
            assertThat(journal.find(id)).isEmpty();
            assertThat(journal.history(id)).isEmpty();
        });
        List<String> kept = new ArrayList<>(pending);
        kept.add(deletedRecently);
        kept.addAll(pushedDuringPurge);
        assertThat(kept).allSatisfy(id -> {
            assertThat(journal.find(id)).isPresent();
            assertThat(journal.history(id)).isNotEmpty();
        });
        assertThat(db.queryLong("SELECT COUNT(*) FROM delay_queue_job")).isEqualTo(kept.size());
        assertThat(engine.purgeJournalNow()).as("a second pass").isEqualTo(new PurgeReport(0, 0, 1));
    }

    @Test
    void a_journal_retention_shorter_than_the_redis_retention_is_refused_naming_both_properties() {
        EngineConfig redisTwoHours = EngineConfig.DEFAULTS.withRetention(Duration.ofHours(2));

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> redisTwoHours.withJournal(j ->
                        j.withRetention(Duration.ofHours(1), j.purgeBatchSize(), j.purgeInterval(), j.purgePause())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("delay.journal.retention (PT1H)")
                .hasMessageContaining("delay.retention (PT2H)");
        assertThat(EngineConfig.DEFAULTS
                        .withRetention(Duration.ofHours(2))
                        .withJournal(j ->
                                j.withRetention(Duration.ZERO, j.purgeBatchSize(), j.purgeInterval(), j.purgePause()))
                        .journal()
                        .retention())
                .as("0 keeps the journal forever")
                .isZero();
    }
}
