package io.delayqueue.queue.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.JobStatus;
import io.delayqueue.common.PushRequest;
import io.delayqueue.queue.coordination.StandaloneCoordinator;
import io.delayqueue.queue.journal.JobEvent;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.journal.JournalSettings;
import io.delayqueue.queue.journal.Transition;
import io.delayqueue.queue.journal.mybatis.MyBatisJournal;
import io.delayqueue.queue.testing.ForwardingJournal;
import io.delayqueue.queue.testing.JournalDatabase;
import io.delayqueue.queue.testing.ManualClock;
import io.delayqueue.queue.testing.RecordingDispatcher;
import io.delayqueue.queue.testing.RedisFixture;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two deletes of one job overlapping (issue 19, item 1), run in the exact order that once delivered a job whose
 * delete answered 200, on the real scripts, the real Redis and MariaDB: delete #1 begins; delete #2 begins (the job
 * is pending already); the journal refuses #1's commit, and #1 undoes; the scanner runs; #2's commit lands. The
 * journal's calls are held at those points by a {@link ForwardingJournal}, so the order is the same every run. The
 * same with a {@code clearAll} as the second delete.
 */
class OverlappingDeletesTest {
    private static final long T0 = 1_700_000_000_000L;

    private RedisFixture redis;
    private JournalDatabase db;
    private MyBatisJournal journal;
    private DelayQueueEngine engine;
    private final ManualClock clock = new ManualClock(T0);
    private final RecordingDispatcher rec = new RecordingDispatcher("rec");
    private final ExecutorService callers = Executors.newFixedThreadPool(2);

    /** Holds the first commit of a delete until the second one arrives, refuses it, then holds the second. */
    private final CountDownLatch secondDeleteCommitting = new CountDownLatch(1);

    private final CountDownLatch releaseSecond = new CountDownLatch(1);
    private final AtomicInteger deleteCommits = new AtomicInteger();

    @BeforeEach
    void setUp() {
        redis = new RedisFixture();
        db = JournalDatabase.mariaDb();
        journal = db.journal(
                JournalSettings.DEFAULTS.withWriter(
                        JournalMode.SYNC, Duration.ofMillis(20), 10_000, Duration.ofSeconds(30), 1_000_000, 2),
                2,
                clock);
        Journal held = new ForwardingJournal(journal) {
            @Override
            public void recordTransitionsDurably(List<Transition> transitions) {
                if (transitions.stream().noneMatch(t -> t.event() == JobEvent.DELETED)) {
                    super.recordTransitionsDurably(transitions);
                    return;
                }
                if (deleteCommits.incrementAndGet() == 1) {
                    await(secondDeleteCommitting);
                    throw new IllegalStateException("journal refused the first delete (test)");
                }
                secondDeleteCommitting.countDown();
                await(releaseSecond);
                super.recordTransitionsDurably(transitions);
            }
        };
        EngineConfig config = EngineConfig.DEFAULTS
                .withShards(2)
                .withRedisPrefix(redis.prefix())
                .withDispatch(d -> d.withDefaultDispatcher("rec"))
                .withScanner(s -> s.withLead(Duration.ZERO));
        engine = new DelayQueueEngine(
                config,
                redis.store(config.shards(), config.retention()),
                List.of(rec),
                new StandaloneCoordinator(),
                held,
                clock);
    }

    @AfterEach
    void tearDown() {
        releaseSecond.countDown();
        secondDeleteCommitting.countDown();
        callers.shutdownNow();
        try {
            engine.close();
            journal.close();
        } finally {
            db.close();
            redis.close();
        }
    }

    @Test
    void a_job_whose_delete_answered_200_is_never_delivered_when_an_overlapping_delete_of_it_was_refused()
            throws Exception {
        String id = engine.push(PushRequest.of("orders", "overlapping deletes", 1_000))
                .id();

        Future<?> first = callers.submit(() -> engine.delete(id));
        // the second begins once the first holds the job pending (the first's commit waits for the second's)
        awaitCommits(1);
        Future<?> second = callers.submit(() -> engine.delete(id));

        assertThatThrownBy(() -> getOrThrowCause(first))
                .isInstanceOf(DelayQueueException.class)
                .extracting(e -> ((DelayQueueException) e).httpStatus())
                .isEqualTo(503);

        // the first delete is over; the job is due, and the scanner runs while the second delete commits
        clock.set(T0 + 5_000);
        int handedOver = engine.runDueJobs();
        releaseSecond.countDown();
        second.get(30, TimeUnit.SECONDS);

        assertThat(handedOver)
                .as("jobs handed over while a delete of them was pending")
                .isZero();
        engine.runDueJobs();
        assertThat(rec.ids())
                .as("deliveries of a job whose delete answered 200")
                .doesNotContain(id);
        assertThat(journal.find(id).orElseThrow().status()).isEqualTo(JobStatus.DELETED);
        assertThat(engine.get(id).status()).isEqualTo(JobStatus.DELETED);
    }

    @Test
    void a_clear_all_holding_a_job_keeps_it_deleted_when_an_overlapping_delete_of_it_was_refused() throws Exception {
        String id = engine.push(PushRequest.of("orders", "deleted, then cleared", 1_000))
                .id();

        Future<?> delete = callers.submit(() -> engine.delete(id));
        awaitCommits(1);
        // clearAll finds the job pending in Redis and DELAY in the journal: it holds the pending delete once more
        Future<Long> clear = callers.submit(() -> engine.clearAll());

        assertThatThrownBy(() -> getOrThrowCause(delete))
                .isInstanceOf(DelayQueueException.class)
                .extracting(e -> ((DelayQueueException) e).httpStatus())
                .isEqualTo(503);
        clock.set(T0 + 5_000);
        int handedOver = engine.runDueJobs();
        releaseSecond.countDown();

        assertThat(clear.get(30, TimeUnit.SECONDS)).as("jobs clearAll deleted").isEqualTo(1);
        assertThat(handedOver)
                .as("jobs handed over while clearAll held their delete")
                .isZero();
        engine.runDueJobs();
        assertThat(rec.ids()).doesNotContain(id);
        assertThat(journal.find(id).orElseThrow().status()).isEqualTo(JobStatus.DELETED);
        assertThat(engine.get(id).status()).isEqualTo(JobStatus.DELETED);
    }

    private void awaitCommits(int n) {
        Awaitility.await("delete commits started")
                .atMost(Duration.ofSeconds(30))
                .until(() -> deleteCommits.get() >= n);
    }

    private static void getOrThrowCause(Future<?> f) throws Throwable {
        try {
            f.get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test's interleaving did not happen in time");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
