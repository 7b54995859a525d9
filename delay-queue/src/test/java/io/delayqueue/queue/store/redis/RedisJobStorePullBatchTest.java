package io.delayqueue.queue.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.store.Attempt;
import io.delayqueue.queue.store.DueRouting;
import io.delayqueue.queue.store.Outcome;
import io.delayqueue.queue.testing.ClosedPort;
import io.delayqueue.queue.testing.RedisFixture;
import io.delayqueue.queue.testing.TestIds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisPooled;

/**
 * Batch pull on the real scripts: {@code reserve.lua} taking many jobs in one run, {@code finish.lua} over jobs of
 * many shards in one pipeline, each shard's outcome its own.
 */
class RedisJobStorePullBatchTest {
    private static final int SHARDS = 4;
    private static final long T0 = 1_700_000_000_000L;
    private static final DueRouting ALL_PULL = new DueRouting(true, Set.of());

    private RedisFixture redis;
    private RedisJobStore store;

    @BeforeEach
    void setUp() {
        redis = new RedisFixture();
        store = redis.agreedStore(SHARDS, Duration.ofMinutes(1));
    }

    @AfterEach
    void tearDown() {
        redis.close();
    }

    private static Job job(int shard, long due, long ttr) {
        String id = TestIds.inShard(shard, SHARDS);
        return new Job(id, "t", null, null, "body of " + id, due, ttr, 3, null, 0, T0, JobStatus.DELAY, 0);
    }

    /** {@code perShard} jobs in every shard, made ready. */
    private List<Job> ready(int perShard, long ttr) {
        List<Job> jobs = new ArrayList<>();
        for (int s = 0; s < SHARDS; s++) {
            for (int i = 0; i < perShard; i++) {
                jobs.add(job(s, T0 + i, ttr));
            }
        }
        for (int from = 0; from < jobs.size(); from += 500) {
            assertThat(store.push(jobs.subList(from, Math.min(jobs.size(), from + 500))))
                    .containsOnly(true);
        }
        for (int s = 0; s < SHARDS; s++) {
            while (store.moveDue(s, T0 + perShard, 1_000, ALL_PULL, 30_000).scanned() > 0) {}
        }
        return jobs;
    }

    private JobStatus statusOf(String id) {
        return store.find(id).map(Job::status).orElse(null);
    }

    @Test
    void one_reserve_takes_up_to_its_limit_oldest_first_each_until_now_plus_its_ttr() {
        List<Job> jobs = ready(5, 7_000);
        List<String> shardZero = jobs.subList(0, 5).stream().map(Job::id).toList();

        List<Job> first = store.reserve("t", 0, T0 + 50, 3);

        assertThat(first).extracting(Job::id).containsExactlyElementsOf(shardZero.subList(0, 3));
        assertThat(first).extracting(Job::status).containsOnly(JobStatus.RESERVED);
        for (Job j : first) {
            assertThat(redis.redis().zscore(store.keys().bucket(0), j.id())).isEqualTo((double) (T0 + 50 + 7_000));
        }
        assertThat(store.reserve("t", 0, T0 + 50, 100))
                .as("the rest of the shard, fewer than asked")
                .extracting(Job::id)
                .containsExactlyElementsOf(shardZero.subList(3, 5));
        assertThat(store.reserve("t", 0, T0 + 50, 100)).isEmpty();
        assertThat(store.stats(0).byStatus().get(JobStatus.RESERVED)).isEqualTo(5);
        assertThat(store.stats(0).byStatus().get(JobStatus.READY)).isZero();
        assertThat(store.stats(1).byStatus().get(JobStatus.READY))
                .as("other shards untouched")
                .isEqualTo(5);
    }

    @Test
    void concurrent_batch_reserves_take_each_ready_job_exactly_once() throws Exception {
        List<Job> jobs = ready(750, 60_000);
        List<List<String>> taken = Collections.synchronizedList(new ArrayList<>());
        ExecutorService consumers = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int c = 0; c < 8; c++) {
                int consumer = c;
                running.add(consumers.submit(() -> {
                    List<String> mine = new ArrayList<>();
                    int empty = 0;
                    for (int round = 0; empty < SHARDS; round++) {
                        List<Job> got = store.reserve("t", (consumer + round) % SHARDS, T0 + 1_000, 1 + round % 37);
                        empty = got.isEmpty() ? empty + 1 : 0;
                        got.forEach(j -> mine.add(j.id()));
                    }
                    taken.add(mine);
                }));
            }
            for (Future<?> f : running) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            consumers.shutdownNow();
        }
        List<String> all = taken.stream().flatMap(List::stream).toList();
        assertThat(all).as("reserved by any consumer").doesNotHaveDuplicates();
        assertThat(new HashSet<>(all))
                .as("every ready job reserved")
                .isEqualTo(new HashSet<>(jobs.stream().map(Job::id).toList()));
        for (int s = 0; s < SHARDS; s++) {
            assertThat(store.stats(s).byStatus().get(JobStatus.RESERVED)).isEqualTo(750);
        }
    }

    @Test
    void a_finish_over_many_shards_answers_each_job_and_refuses_a_stale_attempt_alone() {
        ready(2, 60_000);
        List<Job> reserved = new ArrayList<>();
        for (int s = 0; s < SHARDS; s++) {
            reserved.addAll(store.reserve("t", s, T0 + 10, 2));
        }
        Job finishedBefore = reserved.get(7);
        store.finishAttempts(List.of(new Attempt(finishedBefore.id(), 0)), T0 + 20);
        Job notReserved = job(2, T0 + 99_000, 1_000);
        store.push(List.of(notReserved));

        List<Outcome> outcomes = store.finishAttempts(
                List.of(
                        new Attempt(reserved.get(0).id(), 0),
                        new Attempt(reserved.get(3).id(), 1),
                        Attempt.any(reserved.get(5).id()),
                        new Attempt(TestIds.inShard(1, SHARDS), 0),
                        new Attempt(notReserved.id(), 0),
                        new Attempt(finishedBefore.id(), 0),
                        new Attempt(reserved.get(2).id(), 0)),
                T0 + 30);

        assertThat(outcomes)
                .containsExactly(
                        new Outcome(Outcome.Result.APPLIED, JobStatus.FINISHED),
                        new Outcome(Outcome.Result.STALE, JobStatus.RESERVED),
                        new Outcome(Outcome.Result.APPLIED, JobStatus.FINISHED),
                        new Outcome(Outcome.Result.NOT_FOUND, null),
                        new Outcome(Outcome.Result.CONFLICT, JobStatus.DELAY),
                        new Outcome(Outcome.Result.CONFLICT, JobStatus.FINISHED),
                        new Outcome(Outcome.Result.APPLIED, JobStatus.FINISHED));
        assertThat(statusOf(reserved.get(3).id())).as("the stale attempt's job").isEqualTo(JobStatus.RESERVED);
        assertThat(statusOf(reserved.get(0).id())).isEqualTo(JobStatus.FINISHED);
        assertThat(statusOf(reserved.get(2).id())).isEqualTo(JobStatus.FINISHED);
    }

    @Test
    void a_shard_whose_call_fails_leaves_its_jobs_without_an_outcome_and_the_other_shards_finish() {
        ready(1, 60_000);
        List<Job> reserved = new ArrayList<>();
        for (int s = 0; s < SHARDS; s++) {
            reserved.addAll(store.reserve("t", s, T0 + 10, 1));
        }
        // shard 1's finish fails in Redis: its status counts are no hash any more
        String counts = store.keys().counts(1);
        redis.redis().del(counts);
        redis.redis().set(counts, "not a hash");

        List<Outcome> outcomes = store.finishAttempts(
                reserved.stream().map(j -> new Attempt(j.id(), 0)).toList(), T0 + 20);

        assertThat(outcomes.get(1)).as("shard 1's job").isNull();
        assertThat(List.of(outcomes.get(0), outcomes.get(2), outcomes.get(3)))
                .containsOnly(new Outcome(Outcome.Result.APPLIED, JobStatus.FINISHED));
        assertThat(statusOf(reserved.get(3).id())).isEqualTo(JobStatus.FINISHED);
    }

    @Test
    void a_finish_when_redis_is_down_is_unavailable() throws Exception {
        try (RedisJobStore down = new RedisJobStore(
                new JedisPooled(RedisFixture.HOST, ClosedPort.get()), "down", SHARDS, Duration.ofMinutes(1), true)) {
            List<Attempt> attempts =
                    List.of(Attempt.any(TestIds.inShard(0, SHARDS)), Attempt.any(TestIds.inShard(1, SHARDS)));
            assertThatThrownBy(() -> down.finishAttempts(attempts, T0))
                    .isInstanceOf(DelayQueueException.Unavailable.class);
        }
    }
}
