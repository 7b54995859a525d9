package io.delayqueue.queue.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.journal.JobCursor;
import io.delayqueue.queue.store.DueRouting;
import io.delayqueue.queue.store.JobStore;
import io.delayqueue.queue.testing.RedisFixture;
import io.delayqueue.queue.testing.TestIds;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Every key a script touches is one it was given in KEYS (Redis Cluster and proxies require it): each script run
 * goes through a client that takes a copy ({@code DUMP}) of every key of the test's prefix before and after the
 * run, and every key that appeared, went away or changed must be among the run's KEYS. One shard, so that no run
 * goes through a pipeline (which this client does not see).
 */
class RedisJobStoreKeysTest {
    private static final int SHARDS = 1;
    private static final long T0 = 1_700_000_000_000L;
    private static final long DISPATCH_TIMEOUT = 30_000;
    private static final Set<String> ALL_SCRIPTS = Set.of(
            "push",
            "move_due",
            "reserve",
            "finish",
            "delete",
            "retry",
            "clear",
            "confirm_delete",
            "undo_delete",
            "defer",
            "requeue_dead",
            "tier_intent",
            "tier_load",
            "tier_admit",
            "run_now");

    private RedisFixture redis;
    private KeyCheckingJedis checking;
    private final List<String> ran = new CopyOnWriteArrayList<>();

    @BeforeEach
    void setUp() {
        redis = new RedisFixture();
        checking = new KeyCheckingJedis(redis.keys().allKeysPattern());
    }

    @AfterEach
    void tearDown() {
        checking.close();
        redis.close();
    }

    /** A store on the test's prefix, as another instance of the queue: it has met no topic yet. */
    private RedisJobStore instance() {
        redis.agreedStore(SHARDS, Duration.ofMinutes(1));
        RedisJobStore store = new RedisJobStore(checking, redis.prefix(), SHARDS, Duration.ofMinutes(1), false);
        store.setListener((operation, nanos, failed) -> ran.add(operation));
        return store;
    }

    private static Job job(String topic, long due, int maxAttempts) {
        return new Job(
                TestIds.inShard(0, SHARDS),
                topic,
                null,
                null,
                "body",
                due,
                30_000,
                maxAttempts,
                null,
                0,
                T0,
                JobStatus.DELAY,
                0);
    }

    @Test
    void every_script_touches_only_the_keys_it_is_given_also_on_an_instance_that_has_not_met_the_topics() {
        JobStore pusher = instance();
        Job pulledA = job("pull", T0, 3);
        Job pulledB = job("pull", T0, 3);
        Job dies = job("push", T0, 1);
        Job deferred = job("push", T0, 3);
        Job retried = job("retried", T0, 1);
        Job restoredDead = job("gone", T0, 3).withState(JobStatus.DEAD, 3, T0);
        assertThat(pusher.push(List.of(pulledA, pulledB, dies, deferred, retried, restoredDead)))
                .containsOnly(true);

        DueRouting routing = new DueRouting(false, Set.of("pull"));
        JobStore mover = instance();
        assertThat(mover.moveDue(0, T0, 100, routing, DISPATCH_TIMEOUT).madeReady())
                .hasSize(2);
        assertThat(mover.retry(retried.id(), T0 + 1).status()).isEqualTo(JobStatus.DEAD);
        assertThat(mover.defer(0, Map.of(deferred.id(), T0 + DISPATCH_TIMEOUT))
                        .get(deferred.id())
                        .applied())
                .isTrue();
        // the dispatch of `dies` expires: its only attempt is spent, so it goes into the dead set of its topic
        assertThat(mover.moveDue(0, T0 + DISPATCH_TIMEOUT, 100, routing, DISPATCH_TIMEOUT)
                        .madeDead())
                .extracting(m -> m.id())
                .containsExactly(dies.id());

        Job reserved = instance().reserve("pull", 0, T0).orElseThrow();
        assertThat(instance().finish(0, List.of(reserved.id()), T0).get(0).applied())
                .isTrue();

        String ready = reserved.id().equals(pulledA.id()) ? pulledB.id() : pulledA.id();
        assertThat(instance().beginDelete(ready, T0, null).applied()).isTrue();
        assertThat(instance().undoDeletes(0, List.of(ready))).containsKey(ready);
        assertThat(instance().beginDelete(ready, T0, null).applied()).isTrue();
        assertThat(instance().confirmDeletes(0, List.of(ready), T0)).containsExactly("pull");
        Job journalOnly = job("journal", T0, 3);
        assertThat(instance().beginDelete(journalOnly.id(), T0, journalOnly).applied())
                .isTrue();

        assertThat(instance()
                        .requeueDead("push", 0, List.of(dies.id()), T0)
                        .get(0)
                        .applied())
                .isTrue();
        assertThat(instance().requeueOldestDead("gone", 0, 10, T0).ids()).containsExactly(restoredDead.id());

        JobStore tier = instance();
        JobStore.TierMark mark = tier.raiseTierIntent(0, T0 + 10_000, "token", 0);
        Job loaded = job("far", T0 + 5_000, 3);
        assertThat(tier.loadTier(
                                0,
                                new JobStore.TierPage(
                                        mark,
                                        JobCursor.START,
                                        List.of(loaded),
                                        new JobCursor(T0 + 5_000, loaded.id()),
                                        T0),
                                T0,
                                60_000,
                                0)
                        .loaded())
                .containsExactly(loaded.id());
        assertThat(tier.admit(List.of(job("admitted", T0 + 6_000, 3)))).containsExactly(JobStore.Admission.ADMITTED);

        // a far DELAY job made due now
        Job later = job("later", T0 + 60_000, 3);
        pusher.push(List.of(later));
        assertThat(instance().runNow(0, List.of(later.id()), T0).get(0).applied())
                .isTrue();

        // a ready job of a topic the clearing instance has not met, and the jobs left in the bucket
        Job readyForClear = job("pull-late", T0, 3);
        pusher.push(List.of(readyForClear));
        instance().moveDue(0, T0, 100, new DueRouting(true, Set.of()), DISPATCH_TIMEOUT);
        JobStore.ClearBatch cleared = instance().clear(0, 0, 100, T0);
        assertThat(cleared.deleted()).contains(readyForClear.id());

        assertThat(new TreeSet<>(ran)).containsAll(ALL_SCRIPTS);
        assertThat(checking.runs()).isGreaterThan(ALL_SCRIPTS.size());
        assertThat(checking.violations()).isEmpty();
    }

    @Test
    void a_move_is_run_again_only_for_a_topic_not_used_recently_in_the_shard() {
        DueRouting allPull = new DueRouting(true, Set.of());
        RedisJobStore pusher = instance();
        RedisJobStore other = instance();
        List<String> runs = new CopyOnWriteArrayList<>();
        pusher.setListener((operation, nanos, failed) -> runs.add("pusher " + operation));
        other.setListener((operation, nanos, failed) -> runs.add("other " + operation));

        // pushing a topic does not make its keys part of every move: only a move that needs them does
        pusher.push(List.of(job("pull", T0, 3)));
        assertThat(pusher.moveDue(0, T0, 100, allPull, DISPATCH_TIMEOUT).madeReady())
                .hasSize(1);
        pusher.push(List.of(job("pull", T0, 3)));
        assertThat(other.moveDue(0, T0, 100, allPull, DISPATCH_TIMEOUT).madeReady())
                .hasSize(1);
        pusher.push(List.of(job("pull", T0, 3)));
        assertThat(other.moveDue(0, T0, 100, allPull, DISPATCH_TIMEOUT).madeReady())
                .hasSize(1);
        pusher.push(List.of(job("pull", T0, 3)));
        assertThat(pusher.moveDue(0, T0, 100, allPull, DISPATCH_TIMEOUT).madeReady())
                .hasSize(1);

        assertThat(runs)
                .containsExactly(
                        "pusher push",
                        "pusher move_due",
                        "pusher move_due",
                        "pusher push",
                        "other move_due",
                        "other move_due",
                        "pusher push",
                        "other move_due",
                        "pusher push",
                        "pusher move_due");
        assertThat(checking.violations()).isEmpty();
    }

    @Test
    void a_script_asked_to_touch_a_key_it_was_not_given_fails_and_changes_nothing() {
        RedisKeys keys = redis.keys();
        Job dead = job("gone", T0, 3).withState(JobStatus.DEAD, 3, T0);
        List<String> withoutDeadSet =
                List.of(keys.pool(0), keys.bucket(0), keys.counts(0), keys.done(0), keys.topics(0));

        assertThatThrownBy(() -> LuaScript.load("push")
                        .run(checking, withoutDeadSet, List.of(dead.id(), PoolValues.encode(dead), Long.toString(T0))))
                .isInstanceOf(JedisDataException.class)
                .hasMessageContaining("dead key of topic gone is not declared in KEYS");
        assertThat(redis.allKeys()).isEmpty();
        assertThat(checking.violations()).isEmpty();
    }

    @Test
    void the_check_sees_a_script_that_writes_a_key_it_was_not_given() {
        String declared = redis.keys().pool(0);
        checking.eval("redis.call('SET', KEYS[1] .. ':other', '1')", List.of(declared), List.of());

        assertThat(checking.violations()).singleElement().asString().contains(declared + ":other");
    }
}
