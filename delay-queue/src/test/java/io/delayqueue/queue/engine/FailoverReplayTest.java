package io.delayqueue.queue.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.common.PushRequest;
import io.delayqueue.queue.coordination.StandaloneCoordinator;
import io.delayqueue.queue.engine.handover.DispatchSettings;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.journal.JournalSettings;
import io.delayqueue.queue.journal.mybatis.MyBatisJournal;
import io.delayqueue.queue.store.FailoverStore.MasterState;
import io.delayqueue.queue.store.redis.RedisJobStore;
import io.delayqueue.queue.testing.JournalDatabase;
import io.delayqueue.queue.testing.ManualClock;
import io.delayqueue.queue.testing.RecordingDispatcher;
import io.delayqueue.queue.testing.RedisFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The fail-over protocol (issue 25) on the engine, with the real Redis and MariaDB journal: a promoted replica that
 * lags is played by putting back, key by key ({@code DUMP}/{@code RESTORE}), the queue's keys as they were before the
 * last writes, and by removing the shards' {@code replayed-onto} marks (a promoted replica has a replication id of its
 * own, which no mark names). No job of a shard is moved before the journal's window was replayed onto it: an answered
 * delete is never delivered, a finished job is not delivered again, a push Redis lost is delivered at once, a
 * reservation the journal holds is kept until its deadline, and attempts are the journal's. The reconciler never runs
 * here: the replay alone must do it.
 */
class FailoverReplayTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final String PULL = "mail";

    private RedisFixture redis;
    private JournalDatabase db;
    private MyBatisJournal journal;
    private DelayQueueEngine engine;
    private RedisJobStore store;
    private final ManualClock clock = new ManualClock(T0);
    private final RecordingDispatcher rec = new RecordingDispatcher("rec");

    @BeforeEach
    void setUp() {
        redis = new RedisFixture();
        db = JournalDatabase.mariaDb();
        journal = db.journal(
                JournalSettings.DEFAULTS.withWriter(
                        JournalMode.SYNC, Duration.ofMillis(20), 10_000, Duration.ofSeconds(30), 1_000_000, 2),
                2,
                clock);
        EngineConfig config = EngineConfig.DEFAULTS
                .withShards(2)
                .withRedisPrefix(redis.prefix())
                .withDispatch(d -> d.withDefaultDispatcher("rec").withTopics(Map.of(PULL, DispatchSettings.PULL)))
                .withScanner(s -> s.withLead(Duration.ZERO));
        store = redis.store(config.shards(), config.retention());
        engine = new DelayQueueEngine(config, store, List.of(rec), new StandaloneCoordinator(), journal, clock);
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
    void a_new_master_is_scanned_only_after_the_journal_was_replayed_onto_it() {
        String kept = engine.push(PushRequest.of("orders", "kept", 60_000)).id();
        String deleted = engine.push(PushRequest.of("orders", "deleted, then lost", 60_000))
                .id();
        String finished = engine.push(PushRequest.of("orders", "finished, then lost", 1_000))
                .id();
        String reserved = engine.push(
                        PushRequest.of(PULL, "reserved, then lost", 1_000).withTtr(120_000))
                .id();
        String retried = engine.push(PushRequest.of("orders", "failed once, then lost", 2_000))
                .id();
        engine.runDueJobs(); // nothing due: the first move marks this master as replayed onto
        assertThat(rec.ids()).isEmpty();
        Map<byte[], byte[]> replica = redis.dumpAll();

        // what the old master did after the replica's last write
        engine.delete(deleted);
        clock.set(T0 + 1_000);
        engine.runDueJobs();
        Job taken = engine.reserve(PULL, 10, 0).join().get(0);
        assertThat(taken.id()).isEqualTo(reserved);
        rec.failSends(true);
        clock.set(T0 + 2_000);
        engine.runDueJobs();
        rec.failSends(false);
        String lostPush =
                engine.push(PushRequest.of("orders", "pushed, then lost", 500)).id();
        await("the lagged transitions are journaled")
                .atMost(Duration.ofSeconds(10))
                .until(() -> journal.find(finished).orElseThrow().status() == JobStatus.FINISHED
                        && journal.find(reserved).orElseThrow().status() == JobStatus.RESERVED
                        && journal.find(retried).orElseThrow().attempts() == 1);
        assertThat(rec.ids()).containsExactly(finished, retried);

        promote(replica);
        assertThat(store.masterState(0).agreed()).as("the new master is gated").isFalse();
        assertThat(engine.reserve(PULL, 10, 0).join())
                .as("the job the replica holds READY is not reserved before the replay")
                .isEmpty();

        clock.set(T0 + 2_500);
        engine.runDueJobs();
        assertThat(rec.ids()).as("deliveries").hasSize(4);
        assertThat(rec.ids().subList(2, 4))
                .as("deliveries on the new master, due by now")
                .containsExactlyInAnyOrder(lostPush, retried);
        clock.set(T0 + 61_000);
        engine.runDueJobs();
        assertThat(rec.ids().subList(4, rec.ids().size()))
                .as("deliveries on the new master, due later")
                .containsExactly(kept);
        assertThat(engine.get(deleted).status()).isEqualTo(JobStatus.DELETED);
        assertThat(engine.get(finished).status()).isEqualTo(JobStatus.FINISHED);
        assertThat(rec.deliveriesOf(Set.of(retried)).get(1).attempts())
                .as("attempts raised to the journal's")
                .isEqualTo(1);
        assertThat(engine.get(reserved).status())
                .as("reserved until its deadline, as the journal holds it")
                .isEqualTo(JobStatus.RESERVED);
        assertThat(engine.reserve(PULL, 10, 0).join()).isEmpty();
        engine.finish(reserved, taken.attempts());
        assertThat(engine.get(reserved).status()).isEqualTo(JobStatus.FINISHED);
        for (int shard = 0; shard < 2; shard++) {
            MasterState state = store.masterState(shard);
            assertThat(state.agreed()).as("shard %d marked", shard).isTrue();
        }
    }

    @Test
    void a_replay_of_100000_journaled_transitions_puts_back_what_the_new_master_lacks() {
        int jobs = 100_000;
        List<PushRequest> batch = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            batch.add(PushRequest.of("orders", "j" + i, 1_800_000));
            if (batch.size() == 1_000) {
                engine.pushBatch(batch);
                batch.clear();
            }
        }
        engine.runDueJobs();
        // the new master lacks every job of shard 1
        redis.redis().del(redis.keys().pool(1), redis.keys().bucket(1));
        promote(redis.dumpAll());
        long lacking = jobs - redis.redis().hlen(redis.keys().pool(0));

        long start = System.nanoTime();
        engine.runDueJobs();
        long ms = Duration.ofNanos(System.nanoTime() - start).toMillis();

        System.out.printf(
                "fail-over replay: %d journaled transitions in the window, %d jobs put back, scanning resumed after"
                        + " %d ms%n",
                jobs, lacking, ms);
        assertThat(redis.redis().hlen(redis.keys().pool(0))
                        + redis.redis().hlen(redis.keys().pool(1)))
                .as("jobs in Redis after the replay")
                .isEqualTo(jobs);
        assertThat(store.masterState(1).agreed()).isTrue();
    }

    /**
     * The queue's keys become exactly those of the snapshot, as on a replica promoted before it got the rest; and no
     * shard is marked as replayed onto this master (a promoted replica's replication id is new).
     */
    private void promote(Map<byte[], byte[]> snapshot) {
        redis.restoreDumps(snapshot);
        for (int shard = 0; shard < 2; shard++) {
            redis.redis().del(redis.keys().replayedOnto(shard));
        }
    }
}
