package io.delayqueue.queue.engine.handover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.engine.EngineConfig;
import io.delayqueue.queue.engine.EngineListener;
import io.delayqueue.queue.journal.JobEvent;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.journal.JournalSettings;
import io.delayqueue.queue.journal.Transition;
import io.delayqueue.queue.journal.mybatis.MyBatisJournal;
import io.delayqueue.queue.store.JobStore;
import io.delayqueue.queue.testing.JournalDatabase;
import io.delayqueue.queue.testing.ManualClock;
import io.delayqueue.queue.testing.RecordingDispatcher;
import io.delayqueue.queue.testing.RedisFixture;
import io.delayqueue.queue.testing.TestIds;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The acknowledgement flush never waits for the journal's database (issue 19, item 6), a deterministic interleaving
 * on the real Redis and a real SQLite journal whose connections the test refuses: the backlog is filled to its
 * capacity first, then a confirmed send is acknowledged. The flush holds the pipeline's monitor, which the scanners
 * and the engine's close need; before, its journaling waited for room until the database answered, and so did they.
 */
class FullJournalBacklogTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final Duration NO_WAIT = Duration.ofSeconds(30);

    private RedisFixture redis;
    private JournalDatabase db;
    private MyBatisJournal journal;
    private DispatchPipeline pipeline;

    @BeforeEach
    void setUp() {
        redis = new RedisFixture();
        db = JournalDatabase.sqlite();
    }

    @AfterEach
    void tearDown() {
        try {
            if (pipeline != null) {
                pipeline.close();
            }
            if (journal != null) {
                db.gate().open();
                journal.close();
            }
        } finally {
            db.close();
            redis.close();
        }
    }

    @Test
    void with_the_backlog_full_an_acknowledgement_is_written_to_redis_and_the_flush_returns_at_once() {
        journal = db.journal(
                JournalSettings.DEFAULTS.withWriter(
                        JournalMode.SYNC, Duration.ofMillis(20), 10_000, Duration.ofSeconds(30), 4, 1),
                1,
                new ManualClock(T0));
        ManualClock clock = new ManualClock(T0);
        RecordingDispatcher dispatcher = new RecordingDispatcher("recording");
        EngineConfig config = EngineConfig.DEFAULTS
                .withShards(1)
                .withRedisPrefix(redis.prefix())
                .withDispatch(d -> d.withDefaultDispatcher(dispatcher.name()));
        JobStore store = redis.agreedStore(1, config.retention());
        TopicRoutes routes = new TopicRoutes(
                config.dispatch().defaultDispatcher(), config.dispatch().topics());
        pipeline = new DispatchPipeline(
                store,
                routes,
                Map.of(dispatcher.name(), dispatcher),
                config,
                journal,
                clock,
                (shard, dueAt) -> {},
                EngineListener.NONE,
                new LatenessRecorder(LatenessRecorder.DEFAULT_WINDOW),
                () -> {});
        String id = TestIds.inShard(0, 1);
        store.push(List.of(new Job(id, "acks", null, null, "body", T0, 30_000, 10, null, 0, T0, JobStatus.DELAY, 0)));
        Job reserved = store.moveDue(0, T0, 0, 10, routes.dueRouting(), 30_000, 0)
                .toDispatch()
                .get(0);

        db.gate().refuse(); // the database is away: nothing the journal holds can leave its backlog
        journal.recordTransitions(List.of(
                Transition.of("other-1", JobEvent.READY, JobStatus.DELAY, JobStatus.READY, T0, null),
                Transition.of("other-2", JobEvent.READY, JobStatus.DELAY, JobStatus.READY, T0, null)));
        assertThat(journal.queuedRows()).as("the backlog at its capacity").isEqualTo(4);

        assertTimeoutPreemptively(NO_WAIT, () -> {
            synchronized (pipeline) {
                assertThat(pipeline.takeCapacity(1)).isEqualTo(1);
                pipeline.dispatch(0, List.of(reserved)).get(5, TimeUnit.SECONDS);
            }
            assertThat(pipeline.flushNow())
                    .as("the flush wrote the acknowledgement")
                    .isTrue();
        });
        assertThat(store.find(id).orElseThrow().status())
                .as("Redis, the authority, has it finished")
                .isEqualTo(JobStatus.FINISHED);
        assertThat(journal.droppedRows())
                .as("its FINISHED was not kept, for the reconciler to write back")
                .isEqualTo(2);
        assertThat(journal.queuedRows()).isEqualTo(4);
    }
}
