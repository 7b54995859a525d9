package io.delayqueue.queue.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobIds;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.journal.JobCursor;
import io.delayqueue.queue.store.Attempt;
import io.delayqueue.queue.store.DueBatch;
import io.delayqueue.queue.store.DueRouting;
import io.delayqueue.queue.store.TierStore;
import io.delayqueue.queue.testing.RedisFixture;
import io.delayqueue.queue.testing.TestIds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * Topics with no job left are forgotten: each shard's topic set holds the topics that have jobs there (not final
 * ones), kept by the scripts that add jobs and make them final, so the per-topic reads of {@code /stats}, the gauges
 * and the console cost what the topics with jobs cost, not every topic ever pushed to.
 */
class RedisJobStoreTopicCountsTest {
    private static final int SHARDS = 4;
    private static final long T0 = 1_700_000_000_000L;
    private static final int LIMIT = 1000;
    private static final long DISPATCH_TIMEOUT = 30_000;

    private RedisFixture redis;
    private ScanCountingJedis counting;
    private RedisJobStore store;

    /** A client that counts the topics {@code SSCAN} read: one list length is read per topic scanned. */
    private static final class ScanCountingJedis extends JedisPooled {
        final AtomicInteger scanned = new AtomicInteger();

        ScanCountingJedis() {
            super(RedisFixture.HOST, RedisFixture.PORT);
        }

        @Override
        public ScanResult<String> sscan(String key, String cursor, ScanParams params) {
            ScanResult<String> page = super.sscan(key, cursor, params);
            scanned.addAndGet(page.getResult().size());
            return page;
        }
    }

    @BeforeEach
    void setUp() {
        redis = RedisFixture.labelled("topic-counts");
        counting = new ScanCountingJedis();
        store = RedisFixture.agreed(new RedisJobStore(counting, redis.prefix(), SHARDS, Duration.ofMinutes(1), false));
    }

    @AfterEach
    void tearDown() {
        counting.close();
        redis.close();
    }

    private static Job job(String topic, long due) {
        return new Job(TestIds.next(), topic, null, null, "body", due, 30_000, 3, null, 0, T0, JobStatus.DELAY, 0);
    }

    private int shardOf(Job job) {
        return JobIds.shardOf(job.id(), SHARDS);
    }

    private Set<String> topicSet(int shard) {
        return redis.redis().smembers(redis.keys().topics(shard));
    }

    private Map<String, String> topicCounts(int shard) {
        Map<String, String> counts =
                new java.util.TreeMap<>(redis.redis().hgetAll(redis.keys().topicJobs(shard)));
        counts.remove("~counted");
        return counts;
    }

    private Map<String, Long> readyByTopic() {
        Map<String, Long> ready = new java.util.TreeMap<>();
        for (int s = 0; s < SHARDS; s++) {
            store.stats(s).readyByTopic().forEach((t, n) -> ready.merge(t, n, Long::sum));
        }
        return ready;
    }

    /** Moves every due job of every shard (pull for the topics in {@code pull}, push for the others). */
    private List<String> moveAll(Set<String> pull) {
        List<String> dispatched = new ArrayList<>();
        DueRouting routing = new DueRouting(false, pull);
        for (int s = 0; s < SHARDS; s++) {
            DueBatch batch;
            do {
                batch = store.moveDue(s, T0, LIMIT, routing, DISPATCH_TIMEOUT);
                batch.toDispatch().forEach(j -> dispatched.add(j.id()));
            } while (batch.scanned() >= LIMIT);
        }
        return dispatched;
    }

    @Test
    void
            a_thousand_topics_whose_jobs_were_finished_or_deleted_are_forgotten_and_stats_reads_only_the_topic_with_jobs() {
        // the shards' first stats count them (nothing yet), as the service's gauges do at start
        readyByTopic();
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            jobs.add(job("customer-" + i, T0 - 1));
        }
        Job kept = job("kept", T0 - 1);
        List<Job> all = new ArrayList<>(jobs);
        all.add(kept);
        assertThat(store.push(all)).containsOnly(true);
        int topicsHeld = 0;
        for (int s = 0; s < SHARDS; s++) {
            topicsHeld += topicSet(s).size();
        }
        assertThat(topicsHeld).isEqualTo(1001);

        // even topics: deleted before they are due; odd ones: handed over and finished
        for (int i = 0; i < jobs.size(); i += 2) {
            Job j = jobs.get(i);
            assertThat(store.beginDelete(j.id(), T0, null).applied()).isTrue();
            assertThat(store.confirmDeletes(shardOf(j), List.of(j.id()), T0)).hasSize(1);
        }
        List<String> dispatched = moveAll(Set.of("kept"));
        assertThat(dispatched).hasSize(500);
        assertThat(store.finishAttempts(dispatched.stream().map(Attempt::any).toList(), T0))
                .allSatisfy(o -> assertThat(o.applied()).isTrue());

        for (int s = 0; s < SHARDS; s++) {
            boolean keptHere = s == shardOf(kept);
            assertThat(topicSet(s)).isEqualTo(keptHere ? Set.of("kept") : Set.of());
            assertThat(topicCounts(s)).isEqualTo(keptHere ? Map.of("kept", "1") : Map.of());
        }
        counting.scanned.set(0);
        assertThat(readyByTopic()).isEqualTo(Map.of("kept", 1L));
        assertThat(counting.scanned.get())
                .as("topics whose ready list stats read")
                .isEqualTo(1);

        // and once its last job is reserved and finished, the last one goes too
        List<Job> reserved = store.reserve("kept", shardOf(kept), T0, 1);
        assertThat(reserved).extracting(Job::id).containsExactly(kept.id());
        assertThat(topicSet(shardOf(kept))).containsExactly("kept");
        assertThat(store.finish(shardOf(kept), List.of(kept.id()), T0))
                .allSatisfy(o -> assertThat(o.applied()).isTrue());
        for (int s = 0; s < SHARDS; s++) {
            assertThat(topicSet(s)).isEmpty();
            assertThat(topicCounts(s)).isEmpty();
        }
    }

    @Test
    void a_topic_is_known_while_it_has_a_job_in_any_state_that_is_not_final() {
        readyByTopic();
        Job dying = new Job(
                TestIds.inShard(0, SHARDS),
                "dying",
                null,
                null,
                "b",
                T0 - 1,
                30_000,
                1,
                null,
                0,
                T0,
                JobStatus.DELAY,
                0);
        Job undone = new Job(
                TestIds.inShard(0, SHARDS),
                "undone",
                null,
                null,
                "b",
                T0 + 60_000,
                30_000,
                3,
                null,
                0,
                T0,
                JobStatus.DELAY,
                0);
        assertThat(store.push(List.of(dying, undone))).containsOnly(true);

        // a delete the journal refused is undone: the topic counts its job again
        assertThat(store.beginDelete(undone.id(), T0, null).applied()).isTrue();
        assertThat(topicSet(0)).containsExactly("dying");
        assertThat(store.undoDeletes(0, List.of(undone.id()))).containsKey(undone.id());
        assertThat(topicCounts(0)).isEqualTo(Map.of("dying", "1", "undone", "1"));

        // a dead letter is a job of its topic until it is requeued and ends, or is deleted
        assertThat(moveAll(Set.of())).containsExactly(dying.id());
        assertThat(store.retry(dying.id(), T0).status()).isEqualTo(JobStatus.DEAD);
        assertThat(topicSet(0)).containsExactlyInAnyOrder("dying", "undone");
        assertThat(store.requeueDead("dying", 0, List.of(dying.id()), T0).get(0).applied())
                .isTrue();
        assertThat(topicCounts(0)).isEqualTo(Map.of("dying", "1", "undone", "1"));

        // clearAll's deletes end them too
        int offset = 0;
        while (true) {
            var batch = store.clear(0, offset, LIMIT, T0);
            store.confirmDeletes(0, batch.deleted(), T0);
            offset += batch.reservedKept();
            if (batch.scanned() < LIMIT && batch.deleted().size() < LIMIT) {
                break;
            }
        }
        assertThat(topicSet(0)).isEmpty();
        assertThat(topicCounts(0)).isEmpty();
    }

    @Test
    void the_first_stats_of_a_shard_that_was_never_counted_counts_it_and_forgets_the_topics_without_jobs() {
        // as a version that did not count left it: every topic ever pushed to, and no counts
        Job live = job("live", T0 + 60_000);
        assertThat(store.push(List.of(live))).containsOnly(true);
        int shard = shardOf(live);
        redis.redis().del(redis.keys().topicJobs(shard));
        for (int i = 0; i < 1000; i++) {
            redis.redis().sadd(redis.keys().topics(shard), "gone-" + i);
        }

        store.stats(shard);

        assertThat(topicSet(shard)).containsExactly("live");
        assertThat(topicCounts(shard)).isEqualTo(Map.of("live", "1"));
        assertThat(store.beginDelete(live.id(), T0, null).applied()).isTrue();
        assertThat(topicSet(shard)).isEmpty();
    }

    @Test
    void a_push_racing_the_end_of_its_topics_last_job_is_never_lost_from_the_topic_set() throws Exception {
        readyByTopic();
        int rounds = 2000;
        List<Job> first = new ArrayList<>(rounds);
        List<Job> second = new ArrayList<>(rounds);
        for (int i = 0; i < rounds; i++) {
            first.add(job("race-" + i, T0 + 60_000));
            second.add(job("race-" + i, T0 - 1));
        }
        assertThat(store.push(first)).containsOnly(true);

        CyclicBarrier start = new CyclicBarrier(2);
        CompletableFuture<Void> deletes = CompletableFuture.runAsync(() -> {
            await(start);
            for (Job j : first) {
                store.beginDelete(j.id(), T0, null);
                store.confirmDeletes(shardOf(j), List.of(j.id()), T0);
            }
        });
        CompletableFuture<Void> pushes = CompletableFuture.runAsync(() -> {
            await(start);
            for (Job j : second) {
                assertThat(store.push(List.of(j))).containsExactly(true);
            }
        });
        CompletableFuture.allOf(deletes, pushes).get();

        for (int s = 0; s < SHARDS; s++) {
            for (Map.Entry<String, String> e : topicCounts(s).entrySet()) {
                assertThat(e.getValue()).as(e.getKey()).isEqualTo("1");
            }
        }
        Set<String> topics = new java.util.HashSet<>();
        for (int s = 0; s < SHARDS; s++) {
            topics.addAll(topicSet(s));
        }
        assertThat(topics).hasSize(rounds);
        Set<String> pull = new java.util.HashSet<>(topics);
        moveAll(pull);
        Map<String, Long> ready = readyByTopic();
        assertThat(ready).hasSize(rounds).allSatisfy((t, n) -> assertThat(n).isEqualTo(1L));
    }

    @Test
    void a_topic_whose_jobs_are_all_in_the_journal_tier_is_counted_once_one_is_admitted_or_loaded() {
        readyByTopic();
        Job near = new Job(
                TestIds.inShard(0, SHARDS),
                "near",
                null,
                null,
                "b",
                T0 + 1_000,
                30_000,
                3,
                null,
                0,
                T0,
                JobStatus.DELAY,
                0);
        Job far = new Job(
                TestIds.inShard(0, SHARDS),
                "far",
                null,
                null,
                "b",
                T0 + 7_200_000,
                30_000,
                3,
                null,
                0,
                T0,
                JobStatus.DELAY,
                0);
        TierStore.TierMark mark = store.raiseTierIntent(0, T0 + 3_600_000, "token", 0);

        assertThat(store.admit(List.of(near, far)))
                .containsExactly(TierStore.Admission.ADMITTED, TierStore.Admission.LEFT_TO_LOADER);
        assertThat(topicSet(0))
                .as("a far job is the journal's: no job of its topic in Redis")
                .containsExactly("near");

        mark = store.raiseTierIntent(0, T0 + 7_200_000, "token", 0);
        TierStore.TierPage page = new TierStore.TierPage(
                mark, JobCursor.START, List.of(far), new JobCursor(far.executeAt(), far.id()), T0);
        assertThat(store.loadTier(0, page, T0, 30_000, 0).loaded()).containsExactly(far.id());
        assertThat(topicCounts(0)).isEqualTo(Map.of("near", "1", "far", "1"));
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
