package io.delayqueue.queue.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.store.Attempt;
import io.delayqueue.queue.store.DueBatch;
import io.delayqueue.queue.store.DueRouting;
import io.delayqueue.queue.store.JobStore;
import io.delayqueue.queue.store.Outcome;
import io.delayqueue.queue.store.ShardStats;
import io.delayqueue.queue.testing.RedisFixture;
import io.delayqueue.queue.testing.TestIds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A shard with many topics: the scripts that learn topics from the jobs they read carry the keys of the topics
 * used recently and of those they name, never of every topic the shard has had, and end in the same state as if
 * they had been given every key. The runs under test go through {@link KeyCheckingJedis} (every key changed was
 * declared; the KEYS of each run recorded); the set-up goes through a plain client, which this check does not slow.
 */
class RedisJobStoreTopicKeysTest {
    private static final int SHARDS = 1;
    private static final long T0 = 1_700_000_000_000L;
    private static final long DISPATCH_TIMEOUT = 30_000;
    private static final int LIMIT = 1000;
    /** More topics than one script reply names. */
    private static final int TOPICS = 600;

    private static final DueRouting ALL_PULL = new DueRouting(true, Set.of());
    private static final int RECENT_KEYS = 2 * ShardKeys.HOT_TOPICS;
    private static final int NAMED_KEYS = 2 * ShardKeys.MAX_NAMED_TOPICS;

    private RedisFixture redis;
    private KeyCheckingJedis checking;
    private RedisJobStore setUpStore;
    private RedisJobStore store;
    private final List<String> ran = new CopyOnWriteArrayList<>();

    @BeforeEach
    void setUp() {
        redis = new RedisFixture();
        checking = new KeyCheckingJedis(redis.keys().allKeysPattern());
        setUpStore = new RedisJobStore(redis.redis(), redis.prefix(), SHARDS, Duration.ofMinutes(1), false);
        RedisFixture.agreed(setUpStore);
        store = new RedisJobStore(checking, redis.prefix(), SHARDS, Duration.ofMinutes(1), false);
        store.setListener((operation, nanos, failed) -> ran.add(operation));
    }

    @AfterEach
    void tearDown() {
        assertThat(checking.violations()).isEmpty();
        checking.close();
        redis.close();
    }

    private static Job job(String topic, long due) {
        return new Job(
                TestIds.inShard(0, SHARDS), topic, null, null, "body", due, 30_000, 3, null, 0, T0, JobStatus.DELAY, 0);
    }

    /** One due job in each of {@code n} topics, each topic's job due a millisecond after the previous one's. */
    private List<Job> pushOnePerTopic(int n) {
        List<Job> jobs = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            jobs.add(job("topic-" + i, T0 - n + i));
        }
        assertThat(setUpStore.push(jobs)).containsOnly(true);
        return jobs;
    }

    /** Moves every due job, as the scanner does: again while a move answers that more may be due. */
    private static void moveAllDue(JobStore store) {
        for (int moves = 0; moves < 20; moves++) {
            if (store.moveDue(0, T0, LIMIT, ALL_PULL, DISPATCH_TIMEOUT).scanned() < LIMIT) {
                return;
            }
        }
        throw new AssertionError("jobs were still due after 20 moves");
    }

    /** The KEYS of the runs of {@code script} by the store under test, from its {@code from}-th run on. */
    private List<List<String>> keysOf(String script, int from) {
        List<List<String>> runs = checking.keysOfRuns();
        assertThat(runs).hasSameSizeAs(ran);
        List<List<String>> keys = new ArrayList<>();
        for (int i = from; i < ran.size(); i++) {
            if (ran.get(i).equals(script)) {
                keys.add(runs.get(i));
            }
        }
        return keys;
    }

    private static Set<String> ids(List<Job> jobs) {
        Set<String> ids = new HashSet<>();
        jobs.forEach(j -> ids.add(j.id()));
        return ids;
    }

    @Test
    void jobs_of_more_topics_than_one_call_declares_move_over_bounded_calls_and_each_reaches_its_ready_list() {
        List<Job> jobs = pushOnePerTopic(TOPICS);

        Set<String> madeReady = new HashSet<>();
        int moves = 0;
        DueBatch batch;
        do {
            batch = store.moveDue(0, T0, LIMIT, ALL_PULL, DISPATCH_TIMEOUT);
            batch.madeReady().forEach(m -> madeReady.add(m.id()));
            moves++;
        } while (batch.scanned() >= LIMIT && moves < 20);

        assertThat(madeReady).isEqualTo(ids(jobs));
        ShardStats stats = store.stats(0);
        assertThat(stats.byStatus()).containsEntry(JobStatus.READY, (long) TOPICS);
        assertThat(stats.readyByTopic()).hasSize(TOPICS).allSatisfy((topic, n) -> assertThat(n)
                .isEqualTo(1L));
        // 256 topics named, then moved; the next 256; the last 88: each move ended before the job whose topic
        // would have made its keys exceed the bound, and answered as when more is due
        assertThat(moves).isEqualTo(3);
        List<List<String>> moveRuns = keysOf("move_due", 0);
        assertThat(moveRuns).hasSize(6).allSatisfy(k -> assertThat(k)
                .hasSizeLessThanOrEqualTo(5 + RECENT_KEYS + NAMED_KEYS));

        // with every topic of the shard known, the calls that touch none carry the recent topics' keys alone
        int from = ran.size();
        assertThat(store.moveDue(0, T0, LIMIT, ALL_PULL, DISPATCH_TIMEOUT).scanned())
                .isZero();
        assertThat(store.retry(Attempt.any("unknown"), T0).result()).isEqualTo(Outcome.Result.NOT_FOUND);
        assertThat(store.undoDeletes(0, List.of("unknown"))).isEmpty();
        assertThat(ran.subList(from, ran.size())).containsExactly("move_due", "retry", "undo_delete");
        assertThat(checking.keysOfRuns().subList(from, ran.size()))
                .allSatisfy(k -> assertThat(k).hasSizeLessThanOrEqualTo(9 + RECENT_KEYS));
    }

    @Test
    void a_move_meeting_a_topic_not_used_recently_after_used_ones_moves_those_first_and_the_rest_next() {
        Job a1 = job("a", T0 - 10);
        store.push(List.of(a1));
        assertThat(store.moveDue(0, T0, LIMIT, ALL_PULL, DISPATCH_TIMEOUT).madeReady())
                .extracting(DueBatch.Moved::id)
                .containsExactly(a1.id());
        Job a2 = job("a", T0 - 3);
        Job b1 = job("b", T0 - 2);
        Job a3 = job("a", T0 - 1);
        store.push(List.of(a2, b1, a3));
        int from = ran.size();

        DueBatch first = store.moveDue(0, T0, LIMIT, ALL_PULL, DISPATCH_TIMEOUT);
        assertThat(first.madeReady()).extracting(DueBatch.Moved::id).containsExactly(a2.id());
        assertThat(first.scanned()).as("more is due").isEqualTo(LIMIT);
        DueBatch second = store.moveDue(0, T0, LIMIT, ALL_PULL, DISPATCH_TIMEOUT);
        assertThat(second.madeReady()).extracting(DueBatch.Moved::id).containsExactly(b1.id(), a3.id());
        assertThat(second.scanned()).isEqualTo(2);

        // one run for the first move, two for the second (b named, then moved)
        assertThat(ran.subList(from, ran.size())).containsExactly("move_due", "move_due", "move_due");
        assertThat(store.stats(0).readyByTopic()).isEqualTo(Map.of("a", 3L, "b", 1L));
        assertThat(store.statuses(List.of(a1.id(), a2.id(), b1.id(), a3.id())).values())
                .containsOnly(JobStatus.READY);
    }

    @Test
    void an_undo_of_more_deletes_than_one_reply_names_puts_every_job_back_on_its_ready_list() {
        int n = ShardKeys.MAX_NAMED_TOPICS + 44;
        List<Job> jobs = pushOnePerTopic(n);
        moveAllDue(setUpStore);
        for (Job job : jobs) {
            assertThat(setUpStore.beginDelete(job.id(), T0, null).applied()).isTrue();
            // the list still holds the deleted job's id; a reserve drops it (and takes nothing)
            assertThat(setUpStore.reserve(job.topic(), 0, T0)).isEmpty();
        }
        assertThat(setUpStore.stats(0).readyByTopic()).isEmpty();

        Map<String, Long> undone = store.undoDeletes(0, new ArrayList<>(ids(jobs)));

        assertThat(undone.keySet()).isEqualTo(ids(jobs));
        ShardStats stats = store.stats(0);
        assertThat(stats.byStatus()).containsEntry(JobStatus.READY, (long) n).containsEntry(JobStatus.DELETED, 0L);
        assertThat(stats.readyByTopic()).hasSize(n).allSatisfy((topic, len) -> assertThat(len)
                .isEqualTo(1L));
        // two chunks of ids, each: topics named, then put back
        assertThat(keysOf("undo_delete", 0)).hasSize(4).allSatisfy(k -> assertThat(k)
                .hasSizeLessThanOrEqualTo(7 + RECENT_KEYS + NAMED_KEYS));
    }

    @Test
    void a_clear_of_more_ready_lists_than_one_call_takes_deletes_every_job_and_the_bucket_first() {
        List<Job> ready = pushOnePerTopic(TOPICS);
        moveAllDue(setUpStore);
        List<Job> later = List.of(job("later", T0 + 3_600_000), job("later", T0 + 3_600_000));
        setUpStore.push(later);

        Set<String> deleted = new HashSet<>();
        int offset = 0;
        while (true) {
            JobStore.ClearBatch batch = store.clear(0, offset, LIMIT, T0);
            deleted.addAll(batch.deleted());
            offset += batch.reservedKept();
            if (batch.scanned() < LIMIT && batch.deleted().size() < LIMIT) {
                break;
            }
        }

        Set<String> all = ids(ready);
        all.addAll(ids(later));
        assertThat(deleted).isEqualTo(all);
        ShardStats stats = store.stats(0);
        assertThat(stats.readyByTopic()).isEmpty();
        assertThat(stats.byStatus()).containsEntry(JobStatus.DELETED, (long) all.size());
        // the bucket, then the 600 ready lists 256 at a time
        assertThat(keysOf("clear", 0)).hasSize(4).allSatisfy(k -> assertThat(k)
                .hasSizeLessThanOrEqualTo(9 + ShardKeys.MAX_TOPICS_PER_CALL));
    }

    @Test
    void a_clear_of_a_shard_without_ready_jobs_is_one_run_however_many_topics_it_has() {
        List<Job> delayed = pushOnePerTopic(TOPICS);

        JobStore.ClearBatch batch = store.clear(0, 0, LIMIT, T0);

        assertThat(new HashSet<>(batch.deleted())).isEqualTo(ids(delayed));
        assertThat(ran).containsExactly("clear");
    }
}
