package io.delayqueue.queue.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.Job;
import io.delayqueue.common.JobIds;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.store.DueBatch;
import io.delayqueue.queue.store.DueRouting;
import io.delayqueue.queue.store.Outcome;
import io.delayqueue.queue.store.ShardStats;
import io.delayqueue.queue.store.StoreListener;
import io.delayqueue.queue.testing.ClosedPort;
import io.delayqueue.queue.testing.RedisFixture;
import io.delayqueue.queue.testing.TestIds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.util.JedisClusterCRC16;

/** {@link RedisJobStore} against the real Redis on 127.0.0.1:6379, one key prefix per test. */
class RedisJobStoreTest {
    private static final int SHARDS = 4;
    private static final long T0 = 1_700_000_000_000L;
    private static final long RETENTION = 60_000;
    private static final long DISPATCH_TIMEOUT = 30_000;
    private static final DueRouting ALL_PUSH = new DueRouting(false, Set.of());
    private static final DueRouting ALL_PULL = new DueRouting(true, Set.of());

    private RedisFixture redis;
    private RedisJobStore store;

    @BeforeEach
    void setUp() {
        redis = new RedisFixture();
        store = redis.agreedStore(SHARDS, Duration.ofMillis(RETENTION));
    }

    @AfterEach
    void tearDown() {
        redis.close();
    }

    /** A new job in {@code shard}, due at {@code due}. */
    private static Job job(int shard, String topic, long due) {
        return job(TestIds.inShard(shard, SHARDS), topic, due, 30_000, 3);
    }

    private static Job job(String id, String topic, long due, long ttr, int maxAttempts) {
        return new Job(id, topic, null, null, "body of " + id, due, ttr, maxAttempts, null, 0, T0, JobStatus.DELAY, 0);
    }

    private Job pushed(Job job) {
        assertThat(store.push(List.of(job))).containsExactly(true);
        return job;
    }

    private JobStatus statusOf(String id) {
        return store.find(id).map(Job::status).orElse(null);
    }

    private long count(int shard, JobStatus status) {
        return store.stats(shard).byStatus().get(status);
    }

    // ---- keys ----

    @Test
    void every_key_of_a_shard_shares_the_hash_tag_of_its_prefix_and_shard() {
        for (int s = 0; s < SHARDS; s++) {
            pushed(job(s, "pulled", T0));
            pushed(job(s, "later", T0 + 1_000));
            Job dead = pushed(job(TestIds.inShard(s, SHARDS), "pushed", T0, 30_000, 1));
            store.moveDue(s, T0, 100, new DueRouting(true, Set.of("pushed")), DISPATCH_TIMEOUT);
            store.retry(dead.id(), T0 + 10);
            store.finish(s, List.of(store.reserve("pulled", s, T0).orElseThrow().id()), T0);
        }

        List<String> keys = redis.allKeys();

        Pattern layout = Pattern.compile("\\{" + Pattern.quote(redis.prefix())
                + ":(\\d+)\\}:(pool|bucket|counts|done|topics|replayed-onto|ready:.+|dead:.+)");
        Map<Integer, Set<Integer>> slotsByShard = new java.util.TreeMap<>();
        Set<String> kinds = new HashSet<>();
        for (String key : keys) {
            Matcher m = layout.matcher(key);
            assertThat(m.matches())
                    .as("key %s has the layout {prefix:shard}:kind", key)
                    .isTrue();
            kinds.add(m.group(2).replaceFirst(":.*", ""));
            slotsByShard
                    .computeIfAbsent(Integer.parseInt(m.group(1)), s -> new HashSet<>())
                    .add(JedisClusterCRC16.getSlot(key));
        }
        assertThat(slotsByShard.keySet()).containsExactly(0, 1, 2, 3);
        slotsByShard.forEach((shard, slots) ->
                assertThat(slots).as("cluster slots of shard %d", shard).hasSize(1));
        assertThat(kinds).contains("pool", "bucket", "counts", "done", "topics", "dead");
        assertThat(keys).allMatch(k -> k.startsWith("{" + redis.prefix() + ":"));
        assertThat(store.keys().pool(2)).isEqualTo("{" + redis.prefix() + ":2}:pool");
        assertThat(store.keys().ready(1, "t")).isEqualTo("{" + redis.prefix() + ":1}:ready:t");
    }

    @Test
    void job_is_stored_in_the_shard_its_id_is_placed_in() {
        Job job = pushed(job(3, "t", T0));

        assertThat(redis.redis().hexists(store.keys().pool(3), job.id())).isTrue();
        assertThat(redis.redis().zscore(store.keys().bucket(3), job.id())).isEqualTo((double) T0);
        for (int s : List.of(0, 1, 2)) {
            assertThat(redis.redis().hexists(store.keys().pool(s), job.id())).isFalse();
        }
    }

    // ---- node numbers of generated ids ----

    @Test
    void each_claim_of_an_id_node_gets_a_number_no_other_claim_got() throws Exception {
        RedisJobStore other = redis.agreedStore(SHARDS, Duration.ofMillis(RETENTION));
        Set<Integer> claimed = ConcurrentHashMap.newKeySet();
        List<Thread> threads = new ArrayList<>();
        for (RedisJobStore instance : List.of(store, other, store, other)) {
            Thread t = new Thread(() -> {
                for (int i = 0; i < 100; i++) {
                    claimed.add(instance.claimIdNode());
                }
            });
            t.start();
            threads.add(t);
        }
        for (Thread t : threads) {
            t.join(10_000);
        }

        assertThat(claimed).hasSize(400).allSatisfy(n -> assertThat(n).isBetween(0, JobIds.NODES - 1));
        assertThat(redis.allKeys())
                .as("the counter is a key of the prefix (so clean-ups find it)")
                .contains(store.keys().idNode());
    }

    @Test
    void a_missing_id_node_counter_is_seeded_with_a_random_number() {
        Set<Integer> firstClaims = new HashSet<>();
        for (int i = 0; i < 5; i++) {
            redis.redis().del(store.keys().idNode());

            int first = store.claimIdNode();
            int second = store.claimIdNode();

            assertThat(first).isBetween(0, JobIds.NODES - 1);
            assertThat(second).isEqualTo((first + 1) % JobIds.NODES);
            firstClaims.add(first);
        }

        assertThat(firstClaims)
                .as("first claims after the counter was lost (a seed of 0 would give 1 each time)")
                .hasSizeGreaterThan(1);
    }

    @Test
    void an_existing_id_node_counter_is_counted_on_and_wraps_round_the_node_range() {
        redis.redis().set(store.keys().idNode(), "41");
        assertThat(store.claimIdNode()).isEqualTo(42);

        redis.redis().set(store.keys().idNode(), Integer.toString(JobIds.NODES - 2));
        assertThat(store.claimIdNode()).isEqualTo(JobIds.NODES - 1);
        assertThat(store.claimIdNode()).isZero();
        assertThat(store.claimIdNode()).isEqualTo(1);
    }

    @Test
    void claiming_an_id_node_while_redis_is_down_is_unavailable() throws Exception {
        int closedPort = ClosedPort.get();
        try (RedisJobStore down = new RedisJobStore(
                new JedisPooled("127.0.0.1", closedPort), "down", SHARDS, Duration.ofMinutes(1), true)) {
            assertThatThrownBy(down::claimIdNode)
                    .isInstanceOfSatisfying(DelayQueueException.Unavailable.class, e -> assertThat(e.httpStatus())
                            .isEqualTo(503));
        }
    }

    // ---- push ----

    @Test
    void pushing_an_existing_id_again_keeps_the_first_job_untouched() {
        Job first = job("order-1", "t", T0 + 100, 1_000, 3);
        Job second = new Job(
                "order-1", "other", null, null, "second body", T0 + 5, 1_000, 3, null, 0, T0, JobStatus.DELAY, 0);

        assertThat(store.push(List.of(first))).containsExactly(true);
        assertThat(store.push(List.of(second))).containsExactly(false);

        Job stored = store.find("order-1").orElseThrow();
        assertThat(stored.body()).isEqualTo(first.body());
        assertThat(stored.topic()).isEqualTo("t");
        assertThat(stored.executeAt()).isEqualTo(T0 + 100);
        int shard = JobIds.shardOf("order-1", SHARDS);
        assertThat(count(shard, JobStatus.DELAY)).isEqualTo(1);
        assertThat(store.stats(shard).bucketSize()).isEqualTo(1);
        assertThat(store.moveDue(shard, T0 + 5, 10, ALL_PUSH, DISPATCH_TIMEOUT).toDispatch())
                .isEmpty();
    }

    @Test
    void push_of_many_jobs_over_shards_reports_created_in_request_order() {
        Job existing = pushed(job(2, "t", T0));
        List<Job> batch = List.of(job(0, "t", T0), existing, job(3, "t", T0), job(2, "t", T0), job(1, "t", T0));

        assertThat(store.push(batch)).containsExactly(true, false, true, true, true);

        long total = 0;
        for (int s = 0; s < SHARDS; s++) {
            total += count(s, JobStatus.DELAY);
        }
        assertThat(total).isEqualTo(5);
    }

    @Test
    void stored_job_reads_back_with_every_field() {
        Job job = new Job(
                TestIds.inShard(1, SHARDS),
                "t.x-1",
                "tag",
                "order-9",
                "{\"a\":\"b|c\"}",
                T0 + 9,
                1234,
                7,
                "https://example.com/cb",
                5,
                T0 - 1,
                JobStatus.DELAY,
                0);
        pushed(job);

        assertThat(store.find(job.id())).contains(job);
        assertThat(PoolValues.decode(job.id(), PoolValues.encode(job))).isEqualTo(job);
    }

    @Test
    void the_counts_per_status_follow_every_job_when_one_call_moves_many() {
        List<Job> due = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            due.add(job(TestIds.inShard(0, SHARDS), "t", T0, 30_000, 3));
        }
        Job later = job(0, "t", T0 + 60_000);
        List<Job> all = new ArrayList<>(due);
        all.add(later);
        assertThat(store.push(all)).containsOnly(true);
        assertThat(count(0, JobStatus.DELAY)).isEqualTo(5);

        assertThat(store.moveDue(0, T0, 100, ALL_PUSH, DISPATCH_TIMEOUT).toDispatch())
                .hasSize(4);
        assertThat(count(0, JobStatus.DELAY)).isEqualTo(1);
        assertThat(count(0, JobStatus.RESERVED)).isEqualTo(4);

        store.finish(0, List.of(due.get(0).id(), due.get(1).id()), T0 + 1);
        assertThat(count(0, JobStatus.RESERVED)).isEqualTo(2);
        assertThat(count(0, JobStatus.FINISHED)).isEqualTo(2);

        deleteConfirmed(later.id(), T0 + 2);
        assertThat(count(0, JobStatus.DELAY)).isZero();
        assertThat(count(0, JobStatus.DELETED)).isEqualTo(1);
    }

    // ---- move due ----

    @Test
    void move_due_takes_jobs_due_at_now_and_leaves_later_ones() {
        Job due = pushed(job(0, "t", T0));
        Job later = pushed(job(0, "t", T0 + 1));

        DueBatch batch = store.moveDue(0, T0, 10, ALL_PUSH, DISPATCH_TIMEOUT);

        assertThat(batch.toDispatch()).extracting(Job::id).containsExactly(due.id());
        assertThat(batch.toDispatch().get(0).status()).isEqualTo(JobStatus.RESERVED);
        assertThat(batch.scanned()).isEqualTo(1);
        assertThat(batch.nextMoveAt()).hasValue(T0 + 1);
        assertThat(statusOf(due.id())).isEqualTo(JobStatus.RESERVED);
        assertThat(statusOf(later.id())).isEqualTo(JobStatus.DELAY);
        assertThat(redis.redis().zscore(store.keys().bucket(0), due.id()))
                .as("a dispatch reservation is held until now + dispatch timeout")
                .isEqualTo((double) (T0 + DISPATCH_TIMEOUT));
    }

    @Test
    void move_due_respects_its_limit_and_reports_the_next_due_time() {
        List<Job> jobs = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            jobs.add(pushed(job(1, "t", T0 + i)));
        }
        long now = T0 + 10;

        DueBatch first = store.moveDue(1, now, 2, ALL_PUSH, DISPATCH_TIMEOUT);
        assertThat(first.scanned()).isEqualTo(2);
        assertThat(first.toDispatch())
                .extracting(Job::id)
                .containsExactly(jobs.get(0).id(), jobs.get(1).id());
        assertThat(first.nextMoveAt()).hasValue(T0 + 3);

        DueBatch rest = store.moveDue(1, now, 10, ALL_PUSH, DISPATCH_TIMEOUT);
        assertThat(rest.scanned()).isEqualTo(3);
        assertThat(rest.toDispatch()).hasSize(3);
        assertThat(rest.nextMoveAt()).as("only the reservations are left").hasValue(now + DISPATCH_TIMEOUT);

        store.finish(1, jobs.stream().map(Job::id).toList(), now);
        DueBatch empty = store.moveDue(1, now, 10, ALL_PUSH, DISPATCH_TIMEOUT);
        assertThat(empty.scanned()).isZero();
        assertThat(empty.nextMoveAt()).isEmpty();
    }

    @Test
    void move_due_sends_pull_topics_to_their_ready_list_and_push_topics_to_dispatch() {
        Job pull = pushed(job(0, "pulled", T0));
        Job push = pushed(job(0, "pushed", T0));

        DueBatch batch = store.moveDue(0, T0, 10, new DueRouting(true, Set.of("pushed")), DISPATCH_TIMEOUT);

        assertThat(batch.madeReady()).containsExactly(new DueBatch.Moved(pull.id(), "pulled", T0));
        assertThat(batch.toDispatch()).extracting(Job::id).containsExactly(push.id());
        assertThat(statusOf(pull.id())).isEqualTo(JobStatus.READY);
        assertThat(redis.redis().lrange(store.keys().ready(0, "pulled"), 0, -1)).containsExactly(pull.id());
        assertThat(store.stats(0).readyByTopic()).isEqualTo(Map.of("pulled", 1L));
        assertThat(store.stats(0).bucketSize())
                .as("only the dispatch reservation")
                .isEqualTo(1);
    }

    @Test
    void move_due_with_a_lead_takes_push_jobs_due_within_it_and_nothing_else_early() {
        Job due = pushed(job(0, "pushed", T0));
        Job soon = pushed(job(0, "pushed", T0 + 3));
        Job pullSoon = pushed(job(0, "pulled", T0 + 2));
        Job later = pushed(job(0, "pushed", T0 + 6));
        DueRouting routing = new DueRouting(true, Set.of("pushed"));

        DueBatch batch = store.moveDue(0, T0, 5, 10, routing, DISPATCH_TIMEOUT);

        assertThat(batch.toDispatch())
                .as("the due job, and the push job due within the lead with its own due time")
                .extracting(Job::id, Job::executeAt)
                .containsExactly(tuple(due.id(), T0), tuple(soon.id(), T0 + 3));
        assertThat(batch.madeReady())
                .as("a pull job is never made ready before its due time")
                .isEmpty();
        assertThat(batch.scanned()).isEqualTo(2);
        assertThat(statusOf(soon.id())).isEqualTo(JobStatus.RESERVED);
        assertThat(statusOf(pullSoon.id())).isEqualTo(JobStatus.DELAY);
        assertThat(statusOf(later.id())).isEqualTo(JobStatus.DELAY);
        assertThat(redis.redis().zscore(store.keys().bucket(0), soon.id()))
                .as("reserved from its due time on")
                .isEqualTo((double) (T0 + 3 + DISPATCH_TIMEOUT));
        assertThat(batch.nextMoveAt())
                .as("the pull job left in the lead, at its due time")
                .hasValue(T0 + 2);

        DueBatch next = store.moveDue(0, T0 + 2, 5, 10, routing, DISPATCH_TIMEOUT);

        assertThat(next.madeReady()).extracting(DueBatch.Moved::id).containsExactly(pullSoon.id());
        assertThat(next.toDispatch()).extracting(Job::id).containsExactly(later.id());
        assertThat(store.moveDue(0, T0 + 2, 5, 10, routing, DISPATCH_TIMEOUT).nextMoveAt())
                .as("only reservations are left: the first one's deadline, less the lead")
                .hasValue(T0 + DISPATCH_TIMEOUT - 5);
    }

    @Test
    void each_script_run_or_pipeline_of_runs_is_one_round_trip_told_under_the_script_name() {
        List<String> told = new java.util.concurrent.CopyOnWriteArrayList<>();
        store.setListener((operation, nanos, failed) -> {
            assertThat(nanos).isPositive();
            told.add(operation + (failed ? " failed" : ""));
        });
        // two shards in one push: one pipeline, one round trip
        store.push(List.of(job(0, "t", T0), job(1, "t", T0)));
        store.moveDue(0, T0, 10, ALL_PUSH, DISPATCH_TIMEOUT);
        store.setListener(null);
        store.moveDue(1, T0, 10, ALL_PUSH, DISPATCH_TIMEOUT);

        assertThat(told).containsExactly("push", "move_due");
    }

    @Test
    void a_round_trip_that_fails_is_told_as_failed() throws Exception {
        List<String> told = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (RedisJobStore down = new RedisJobStore(
                new JedisPooled("127.0.0.1", ClosedPort.get()), "down", SHARDS, Duration.ofMinutes(1), true)) {
            down.setListener((operation, nanos, failed) -> told.add(operation + (failed ? " failed" : "")));
            assertThatThrownBy(() -> down.moveDue(0, T0, 10, ALL_PUSH, DISPATCH_TIMEOUT))
                    .isInstanceOf(DelayQueueException.Unavailable.class);
        }
        assertThat(told).containsExactly("move_due failed");
    }

    @Test
    void every_script_of_the_store_has_the_listener_so_none_goes_untimed() throws Exception {
        StoreListener listener = (operation, nanos, failed) -> {};
        store.setListener(listener);

        java.lang.reflect.Field scriptsField = RedisJobStore.class.getDeclaredField("scripts");
        scriptsField.setAccessible(true);
        StoreScripts storeScripts = (StoreScripts) scriptsField.get(store);
        int scripts = 0;
        for (java.lang.reflect.Field field : StoreScripts.class.getDeclaredFields()) {
            if (field.getType() == LuaScript.class) {
                LuaScript script = (LuaScript) field.get(storeScripts);
                assertThat(script.listener())
                        .as("listener of %s", script.name())
                        .isSameAs(listener);
                scripts++;
            }
        }
        assertThat(scripts).isGreaterThan(10);
    }

    @Test
    void expired_dispatch_reservation_is_dispatched_again_with_one_more_attempt() {
        Job job = pushed(job(0, "t", T0));
        store.moveDue(0, T0, 10, ALL_PUSH, DISPATCH_TIMEOUT);

        DueBatch early = store.moveDue(0, T0 + DISPATCH_TIMEOUT - 1, 10, ALL_PUSH, DISPATCH_TIMEOUT);
        DueBatch again = store.moveDue(0, T0 + DISPATCH_TIMEOUT, 10, ALL_PUSH, DISPATCH_TIMEOUT);

        assertThat(early.toDispatch()).isEmpty();
        assertThat(again.expired()).containsExactly(new DueBatch.Moved(job.id(), "t", T0 + DISPATCH_TIMEOUT));
        assertThat(again.toDispatch()).extracting(Job::id).containsExactly(job.id());
        assertThat(again.toDispatch().get(0).attempts()).isEqualTo(1);
        assertThat(count(0, JobStatus.RESERVED)).isEqualTo(1);
        assertThat(count(0, JobStatus.DELAY)).isZero();
    }

    @Test
    void expired_reservation_past_max_attempts_goes_dead_into_the_dead_list() {
        Job job = pushed(job(TestIds.inShard(0, SHARDS), "t", T0, 100, 1));
        store.moveDue(0, T0, 10, ALL_PULL, DISPATCH_TIMEOUT);
        store.reserve("t", 0, T0).orElseThrow();

        DueBatch batch = store.moveDue(0, T0 + 100, 10, ALL_PULL, DISPATCH_TIMEOUT);

        assertThat(batch.madeDead()).containsExactly(new DueBatch.Moved(job.id(), "t", T0 + 100));
        assertThat(batch.expired())
                .as("an expiry that made the job dead is an expiry all the same, with its topic")
                .containsExactly(new DueBatch.Moved(job.id(), "t", T0 + 100));
        assertThat(batch.madeReady()).isEmpty();
        assertThat(statusOf(job.id())).isEqualTo(JobStatus.DEAD);
        assertThat(redis.redis().zrange(store.keys().dead(0, "t"), 0, -1)).containsExactly(job.id());
        assertThat(store.stats(0).bucketSize()).isZero();
        assertThat(count(0, JobStatus.DEAD)).isEqualTo(1);
        assertThat(count(0, JobStatus.RESERVED)).isZero();
    }

    @Test
    void move_due_drops_bucket_entries_of_jobs_no_longer_in_the_pool() {
        redis.redis().zadd(store.keys().bucket(0), T0, "ghost");

        DueBatch batch = store.moveDue(0, T0, 10, ALL_PUSH, DISPATCH_TIMEOUT);

        assertThat(batch.toDispatch()).isEmpty();
        assertThat(batch.scanned()).isEqualTo(1);
        assertThat(store.stats(0).bucketSize()).isZero();
    }

    // ---- reserve ----

    @Test
    void reserve_holds_a_ready_job_until_now_plus_its_ttr() {
        Job job = pushed(job(TestIds.inShard(2, SHARDS), "t", T0, 5_000, 3));
        store.moveDue(2, T0, 10, ALL_PULL, DISPATCH_TIMEOUT);

        Optional<Job> reserved = store.reserve("t", 2, T0 + 7);

        assertThat(reserved).map(Job::id).contains(job.id());
        assertThat(reserved.get().status()).isEqualTo(JobStatus.RESERVED);
        assertThat(redis.redis().zscore(store.keys().bucket(2), job.id())).isEqualTo((double) (T0 + 7 + 5_000));
        assertThat(store.reserve("t", 2, T0 + 7)).isEmpty();
        assertThat(store.reserve("t", 1, T0 + 7))
                .as("other shards hold nothing")
                .isEmpty();
    }

    @Test
    void reserve_skips_stale_ready_list_entries_of_deleted_jobs() {
        Job a = pushed(job(0, "t", T0));
        Job b = pushed(job(0, "t", T0 + 1));
        Job c = pushed(job(0, "t", T0 + 2));
        store.moveDue(0, T0 + 2, 10, ALL_PULL, DISPATCH_TIMEOUT);
        assertThat(deleteConfirmed(a.id(), T0 + 3)).isEqualTo(new Outcome(Outcome.Result.APPLIED, JobStatus.DELETED));
        assertThat(deleteConfirmed(b.id(), T0 + 3).applied()).isTrue();

        Optional<Job> reserved = store.reserve("t", 0, T0 + 3);

        assertThat(reserved).map(Job::id).contains(c.id());
        assertThat(redis.redis().llen(store.keys().ready(0, "t")))
                .as("stale entries dropped on the way")
                .isZero();
        assertThat(store.reserve("t", 0, T0 + 3)).isEmpty();
        assertThat(statusOf(a.id())).isEqualTo(JobStatus.DELETED);
        assertThat(statusOf(b.id())).isEqualTo(JobStatus.DELETED);
    }

    // ---- finish ----

    @Test
    void finish_reports_an_outcome_per_id_in_order() {
        Job reserved = pushed(job(0, "t", T0));
        Job finishedBefore = pushed(job(0, "t", T0));
        Job waiting = pushed(job(0, "t", T0 + 1_000));
        store.moveDue(0, T0, 10, ALL_PUSH, DISPATCH_TIMEOUT);
        store.finish(0, List.of(finishedBefore.id()), T0);

        List<Outcome> outcomes =
                store.finish(0, List.of(reserved.id(), "0-unknown000000000", waiting.id(), finishedBefore.id()), T0);

        assertThat(outcomes)
                .containsExactly(
                        new Outcome(Outcome.Result.APPLIED, JobStatus.FINISHED),
                        new Outcome(Outcome.Result.NOT_FOUND, null),
                        new Outcome(Outcome.Result.CONFLICT, JobStatus.DELAY),
                        new Outcome(Outcome.Result.CONFLICT, JobStatus.FINISHED));
        assertThat(statusOf(reserved.id())).isEqualTo(JobStatus.FINISHED);
        assertThat(statusOf(waiting.id())).isEqualTo(JobStatus.DELAY);
        assertThat(count(0, JobStatus.FINISHED)).isEqualTo(2);
        assertThat(count(0, JobStatus.RESERVED)).isZero();
        assertThat(store.stats(0).bucketSize()).as("only the waiting job").isEqualTo(1);
    }

    @Test
    void finish_of_no_ids_is_no_outcomes() {
        assertThat(store.finish(0, List.of(), T0)).isEmpty();
    }

    // ---- delete ----

    @Test
    void delete_outcomes_tell_applied_not_found_and_conflict() {
        Job waiting = pushed(job(1, "t", T0 + 1_000));
        Job dispatched = pushed(job(1, "t", T0));
        store.moveDue(1, T0, 10, ALL_PUSH, DISPATCH_TIMEOUT);

        assertThat(store.beginDelete(waiting.id(), T0, null))
                .isEqualTo(new Outcome(Outcome.Result.APPLIED, JobStatus.DELETED));
        assertThat(store.beginDelete(waiting.id(), T0, null))
                .as("a delete still pending is begun again (a retried delete settles it)")
                .isEqualTo(new Outcome(Outcome.Result.APPLIED, JobStatus.DELETED));
        assertThat(store.confirmDeletes(1, List.of(waiting.id()), T0)).containsExactly(waiting.topic());
        assertThat(store.beginDelete(waiting.id(), T0, null))
                .isEqualTo(new Outcome(Outcome.Result.CONFLICT, JobStatus.DELETED));
        assertThat(store.beginDelete(dispatched.id(), T0, null))
                .isEqualTo(new Outcome(Outcome.Result.CONFLICT, JobStatus.RESERVED));
        assertThat(store.beginDelete("1-nosuchjob00000", T0, null))
                .isEqualTo(new Outcome(Outcome.Result.NOT_FOUND, null));
        assertThat(store.stats(1).bucketSize())
                .as("the deleted job left the bucket")
                .isEqualTo(1);
        assertThat(count(1, JobStatus.DELETED)).isEqualTo(1);
        assertThat(count(1, JobStatus.DELAY)).isZero();
    }

    @Test
    void a_pending_delete_holds_the_job_and_is_never_purged_until_confirmed() {
        Job job = pushed(job(0, "t", T0));
        store.beginDelete(job.id(), T0, null);

        assertThat(store.moveDue(0, T0 + 1, 10, ALL_PUSH, DISPATCH_TIMEOUT).toDispatch())
                .as("nothing delivers a job whose delete is pending")
                .isEmpty();
        store.moveDue(0, T0 + 10 * RETENTION, 10, ALL_PUSH, DISPATCH_TIMEOUT);
        assertThat(statusOf(job.id())).as("pending, past any retention").isEqualTo(JobStatus.DELETED);
        assertThat(store.pendingDeletes(0, T0 + 1, 10)).containsExactly(job.id());
        assertThat(store.pendingDeletes(0, T0, 10))
                .as("begun at T0, not before it")
                .isEmpty();
        assertThat(store.pendingDeletesAmong(List.of(job.id(), "0-nosuchjob00000")))
                .containsExactly(job.id());

        store.confirmDeletes(0, List.of(job.id()), T0 + 100);
        assertThat(store.pendingDeletes(0, Long.MAX_VALUE, 10)).isEmpty();
        assertThat(store.undoDeletes(0, List.of(job.id())))
                .as("a confirmed delete is not undone")
                .isEmpty();
        store.moveDue(0, T0 + 100 + RETENTION, 10, ALL_PUSH, DISPATCH_TIMEOUT);
        assertThat(store.find(job.id()))
                .as("purged once its retention after the confirmation ended")
                .isEmpty();
    }

    @Test
    void an_undone_delete_puts_a_delay_job_back_in_its_bucket_and_a_ready_job_back_on_its_list() {
        Job delayed = pushed(job(0, "t", T0 + 5_000));
        Job ready = pushed(job(0, "t", T0));
        store.moveDue(0, T0, 10, ALL_PULL, DISPATCH_TIMEOUT);
        store.beginDelete(delayed.id(), T0 + 1, null);
        store.beginDelete(ready.id(), T0 + 1, null);
        assertThat(store.reserve("t", 0, T0 + 2))
                .as("the pending READY job is not reserved")
                .isEmpty();

        Map<String, Long> undone = store.undoDeletes(0, List.of(delayed.id(), ready.id()));

        assertThat(undone).containsEntry(delayed.id(), T0 + 5_000).containsEntry(ready.id(), T0);
        assertThat(statusOf(delayed.id())).isEqualTo(JobStatus.DELAY);
        assertThat(redis.redis().zscore(store.keys().bucket(0), delayed.id())).isEqualTo((double) (T0 + 5_000));
        assertThat(statusOf(ready.id())).isEqualTo(JobStatus.READY);
        assertThat(store.reserve("t", 0, T0 + 3)).map(Job::id).contains(ready.id());
        assertThat(count(0, JobStatus.DELETED)).isZero();
        assertThat(count(0, JobStatus.DELAY)).isEqualTo(1);
        assertThat(store.pendingDeletes(0, Long.MAX_VALUE, 10)).isEmpty();
        assertThat(store.undoDeletes(0, List.of(delayed.id())))
                .as("undone once only")
                .isEmpty();
    }

    @Test
    void a_delete_held_by_two_deletes_is_put_back_only_when_both_let_go_and_confirmed_by_either() {
        Job held = pushed(job(0, "t", T0 + 5_000));
        Job confirmed = pushed(job(0, "t", T0 + 6_000));
        for (Job job : List.of(held, confirmed)) {
            store.beginDelete(job.id(), T0, null);
            assertThat(store.beginDelete(job.id(), T0 + 1, null))
                    .as("a second delete of a pending one holds it too")
                    .isEqualTo(new Outcome(Outcome.Result.APPLIED, JobStatus.DELETED));
        }

        assertThat(store.undoDeletes(0, List.of(held.id(), confirmed.id())))
                .as("the first refused commit lets go of its own hold only")
                .isEmpty();
        assertThat(statusOf(held.id())).isEqualTo(JobStatus.DELETED);
        assertThat(store.moveDue(0, T0 + 10_000, 10, ALL_PUSH, DISPATCH_TIMEOUT).toDispatch())
                .as("nothing hands over a job another delete still holds")
                .isEmpty();

        assertThat(store.confirmDeletes(0, List.of(confirmed.id()), T0 + 2)).hasSize(1);
        assertThat(store.undoDeletes(0, List.of(held.id(), confirmed.id())))
                .as("the last hold let go puts the job back; a confirmed one stays deleted")
                .containsOnlyKeys(held.id());
        assertThat(statusOf(held.id())).isEqualTo(JobStatus.DELAY);
        assertThat(statusOf(confirmed.id())).isEqualTo(JobStatus.DELETED);
    }

    @Test
    void the_reconciler_undoes_every_hold_of_an_abandoned_delete_but_not_one_begun_again_since() {
        Job abandoned = pushed(job(0, "t", T0 + 5_000));
        Job begunAgain = pushed(job(0, "t", T0 + 6_000));
        store.beginDelete(abandoned.id(), T0, null);
        store.beginDelete(abandoned.id(), T0 + 1, null);
        store.beginDelete(begunAgain.id(), T0, null);
        store.beginDelete(begunAgain.id(), T0 + 500, null);

        assertThat(store.undoAbandonedDeletes(0, List.of(abandoned.id(), begunAgain.id()), T0 + 100))
                .containsOnlyKeys(abandoned.id());
        assertThat(statusOf(abandoned.id())).isEqualTo(JobStatus.DELAY);
        assertThat(statusOf(begunAgain.id()))
                .as("its latest begin is not older than the cutoff: its commit may still be running")
                .isEqualTo(JobStatus.DELETED);
        assertThat(store.pendingDeletes(0, Long.MAX_VALUE, 10)).containsExactly(begunAgain.id());
    }

    @Test
    void a_tombstone_keeps_a_journal_only_job_out_and_is_removed_by_an_undo() {
        Job absent = job(0, "t", T0 + 1_000);

        assertThat(store.beginDelete(absent.id(), T0, absent))
                .isEqualTo(new Outcome(Outcome.Result.APPLIED, JobStatus.DELETED));
        assertThat(store.push(List.of(absent)))
                .as("a restore or late push finds the tombstone")
                .containsExactly(false);
        assertThat(store.find(absent.id()).orElseThrow().body()).isEqualTo(absent.body());
        assertThat(count(0, JobStatus.DELETED)).isEqualTo(1);

        assertThat(store.undoDeletes(0, List.of(absent.id()))).containsEntry(absent.id(), null);
        assertThat(store.find(absent.id())).isEmpty();
        assertThat(count(0, JobStatus.DELETED)).isZero();
    }

    // ---- retry ----

    @Test
    void retry_schedules_a_reserved_job_again_or_makes_it_dead_past_max_attempts() {
        Job job = pushed(job(TestIds.inShard(0, SHARDS), "t", T0, 30_000, 2));
        store.moveDue(0, T0, 10, ALL_PUSH, DISPATCH_TIMEOUT);

        assertThat(store.retry(job.id(), T0 + 500)).isEqualTo(new Outcome(Outcome.Result.APPLIED, JobStatus.DELAY));
        Job again = store.find(job.id()).orElseThrow();
        assertThat(again.attempts()).isEqualTo(1);
        assertThat(again.executeAt()).isEqualTo(T0 + 500);
        assertThat(redis.redis().zscore(store.keys().bucket(0), job.id())).isEqualTo((double) (T0 + 500));
        assertThat(store.retry(job.id(), T0 + 900))
                .as("only a RESERVED job can be retried")
                .isEqualTo(new Outcome(Outcome.Result.CONFLICT, JobStatus.DELAY));

        store.moveDue(0, T0 + 500, 10, ALL_PUSH, DISPATCH_TIMEOUT);
        assertThat(store.retry(job.id(), T0 + 1_000)).isEqualTo(new Outcome(Outcome.Result.APPLIED, JobStatus.DEAD));
        assertThat(store.find(job.id()).orElseThrow().attempts()).isEqualTo(2);
        assertThat(redis.redis().zrange(store.keys().dead(0, "t"), 0, -1)).containsExactly(job.id());
        assertThat(store.stats(0).bucketSize()).isZero();
        assertThat(store.retry("0-nosuchjob00000", T0)).isEqualTo(new Outcome(Outcome.Result.NOT_FOUND, null));
    }

    // ---- retention ----

    @Test
    void finished_and_deleted_jobs_are_purged_from_the_pool_once_their_retention_ends() {
        Job finished = pushed(job(0, "t", T0));
        Job deleted = pushed(job(0, "t", T0 + 60_000));
        Job dead = pushed(job(TestIds.inShard(0, SHARDS), "t", T0, 30_000, 1));
        store.moveDue(0, T0, 10, ALL_PUSH, DISPATCH_TIMEOUT);
        store.finish(0, List.of(finished.id()), T0 + 10);
        deleteConfirmed(deleted.id(), T0 + 20);
        store.retry(dead.id(), T0 + 30);

        store.moveDue(0, T0 + 10 + RETENTION - 1, 10, ALL_PUSH, DISPATCH_TIMEOUT);
        assertThat(statusOf(finished.id())).as("still within its retention").isEqualTo(JobStatus.FINISHED);

        store.moveDue(0, T0 + 10 + RETENTION, 10, ALL_PUSH, DISPATCH_TIMEOUT);
        assertThat(store.find(finished.id())).isEmpty();
        assertThat(statusOf(deleted.id())).isEqualTo(JobStatus.DELETED);

        store.moveDue(0, T0 + 20 + RETENTION, 10, ALL_PUSH, DISPATCH_TIMEOUT);
        assertThat(store.find(deleted.id())).isEmpty();

        assertThat(statusOf(dead.id())).as("dead letters stay until requeued").isEqualTo(JobStatus.DEAD);
        ShardStats stats = store.stats(0);
        assertThat(stats.byStatus())
                .containsEntry(JobStatus.FINISHED, 0L)
                .containsEntry(JobStatus.DELETED, 0L)
                .containsEntry(JobStatus.DEAD, 1L);
        assertThat(redis.redis().zcard(store.keys().done(0))).isZero();
        // the id is free again once purged
        assertThat(store.push(List.of(job(finished.id(), "t", T0 + RETENTION, 1, 1))))
                .containsExactly(true);
    }

    // ---- scripts ----

    @Test
    void store_keeps_working_after_the_server_forgot_its_scripts() {
        Job before = pushed(job(0, "t", T0));

        redis.redis().scriptFlush();

        Job after = pushed(job(0, "t", T0));
        DueBatch batch = store.moveDue(0, T0, 10, ALL_PUSH, DISPATCH_TIMEOUT);
        assertThat(batch.toDispatch()).extracting(Job::id).containsExactlyInAnyOrder(before.id(), after.id());
        redis.redis().scriptFlush();
        assertThat(store.finish(0, List.of(before.id(), after.id()), T0)).allMatch(Outcome::applied);
    }

    @Test
    void stats_of_an_empty_shard_are_zero_for_every_status() {
        ShardStats stats = store.stats(3);

        assertThat(stats.shard()).isEqualTo(3);
        assertThat(stats.byStatus()).hasSize(JobStatus.values().length).allSatisfy((s, n) -> assertThat(n)
                .isZero());
        assertThat(stats.bucketSize()).isZero();
        assertThat(stats.readyByTopic()).isEmpty();
    }

    /** Deletes as the engine does when the journal commits. */
    private Outcome deleteConfirmed(String id, long now) {
        Outcome outcome = store.beginDelete(id, now, null);
        if (outcome.applied()) {
            store.confirmDeletes(JobIds.shardOf(id, SHARDS), List.of(id), now);
        }
        return outcome;
    }
}
