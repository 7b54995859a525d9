package io.delayqueue.queue.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.journal.JobCursor;
import io.delayqueue.queue.store.DueRouting;
import io.delayqueue.queue.store.JobStore;
import io.delayqueue.queue.store.StaleEpochException;
import io.delayqueue.queue.testing.RedisFixture;
import io.delayqueue.queue.testing.TestIds;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Moves fenced by the owner's epoch, on the real Redis: a move with an older owner's epoch moves nothing. */
class RedisJobStoreEpochTest {
    private static final int SHARDS = 2;
    private static final long T0 = 1_700_000_000_000L;
    private static final long DISPATCH_TIMEOUT = 5_000;
    private static final DueRouting ALL_PUSH = new DueRouting(false, Set.of());

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

    private Job pushed(long due) {
        String id = TestIds.inShard(0, SHARDS);
        Job job = new Job(id, "t", null, null, "body", due, 1_000, 5, null, 0, T0, JobStatus.DELAY, 0);
        assertThat(store.push(List.of(job))).containsExactly(true);
        return job;
    }

    @Test
    void each_epoch_taken_is_higher_than_the_last_and_lives_beside_the_shards_keys() {
        long first = store.takeEpoch(0);
        long second = store.takeEpoch(0);
        assertThat(second).isGreaterThan(first);
        assertThat(redis.keys().epoch(0)).startsWith(redis.keys().tag(0));
        assertThat(store.takeEpoch(1)).as("shards count apart").isEqualTo(1);
    }

    @Test
    void a_move_with_an_older_owners_epoch_is_refused_and_moves_nothing() {
        long stale = store.takeEpoch(0);
        Job reserved = pushed(T0);
        store.moveDue(0, T0, 0, 10, ALL_PUSH, DISPATCH_TIMEOUT, stale); // now RESERVED by the old owner
        Job due = pushed(T0 + 10);
        long current = store.takeEpoch(0); // a new owner took the shard

        assertThatThrownBy(() -> store.moveDue(0, T0 + DISPATCH_TIMEOUT, 0, 10, ALL_PUSH, DISPATCH_TIMEOUT, stale))
                .isInstanceOfSatisfying(StaleEpochException.class, e -> {
                    assertThat(e.epoch()).isEqualTo(stale);
                    assertThat(e.current()).isEqualTo(current);
                });
        assertThat(store.find(due.id()).orElseThrow().status()).isEqualTo(JobStatus.DELAY);
        assertThat(store.find(reserved.id()).orElseThrow().attempts())
                .as("its expired reservation was not counted")
                .isZero();

        assertThat(store.moveDue(0, T0 + DISPATCH_TIMEOUT, 0, 10, ALL_PUSH, DISPATCH_TIMEOUT, current)
                        .toDispatch())
                .extracting(Job::id)
                .containsExactlyInAnyOrder(reserved.id(), due.id());
    }

    @Test
    void an_epoch_above_the_stored_one_is_kept_so_a_lost_key_fences_again() {
        long taken = store.takeEpoch(0);
        redis.redis().del(redis.keys().epoch(0)); // Redis lost it
        pushed(T0);
        store.moveDue(0, T0, 0, 10, ALL_PUSH, DISPATCH_TIMEOUT, taken + 5);

        assertThatThrownBy(() -> store.moveDue(0, T0, 0, 10, ALL_PUSH, DISPATCH_TIMEOUT, taken))
                .isInstanceOf(StaleEpochException.class);
        assertThat(store.takeEpoch(0)).isGreaterThan(taken + 5);
    }

    @Test
    void a_not_owned_epoch_is_refused_by_every_fenced_script_even_on_a_shard_never_fenced() {
        Job due = pushed(T0);
        Job far = new Job(
                TestIds.inShard(0, SHARDS),
                "t",
                null,
                null,
                "far",
                T0 + 5_000,
                1_000,
                5,
                null,
                0,
                T0,
                JobStatus.DELAY,
                0);
        JobStore.TierMark mark = store.raiseTierIntent(0, T0 + 10_000, "token", 0);

        assertThatThrownBy(() -> store.moveDue(0, T0, 0, 10, ALL_PUSH, DISPATCH_TIMEOUT, -1))
                .as("a move")
                .isInstanceOfSatisfying(
                        StaleEpochException.class, e -> assertThat(e.epoch()).isEqualTo(-1));
        assertThatThrownBy(() -> store.raiseTierIntent(0, T0 + 20_000, "token", -1))
                .as("a raise of the load intent")
                .isInstanceOf(StaleEpochException.class);
        assertThatThrownBy(() -> store.loadTier(
                        0,
                        new JobStore.TierPage(mark, JobCursor.START, List.of(far), new JobCursor(T0 + 10_001, ""), T0),
                        T0,
                        30_000,
                        -1))
                .as("a load")
                .isInstanceOf(StaleEpochException.class);

        assertThat(store.find(due.id()).orElseThrow().status()).isEqualTo(JobStatus.DELAY);
        assertThat(store.find(far.id())).as("not loaded").isEmpty();
        assertThat(redis.redis().hget(redis.keys().tier(0), "intent")).isEqualTo(Long.toString(T0 + 10_000));
        assertThat(redis.redis().get(redis.keys().epoch(0)))
                .as("no epoch stored")
                .isNull();
        assertThat(store.moveDue(0, T0, 0, 10, ALL_PUSH, DISPATCH_TIMEOUT, 0).toDispatch())
                .as("0, unfenced (standalone), still moves")
                .extracting(Job::id)
                .containsExactly(due.id());
    }

    @Test
    void a_page_is_refused_when_the_watermark_it_was_read_under_is_gone() {
        Job far = new Job(
                TestIds.inShard(0, SHARDS),
                "t",
                null,
                null,
                "far",
                T0 + 5_000,
                1_000,
                5,
                null,
                0,
                T0,
                JobStatus.DELAY,
                0);
        JobCursor end = new JobCursor(T0 + 10_001, "");
        JobStore.TierMark mark = store.raiseTierIntent(0, T0 + 10_000, "first", 0);
        assertThat(mark.token()).isEqualTo("first");
        assertThat(store.raiseTierIntent(0, T0 + 9_000, "second", 0))
                .as("the token and intent in force are kept")
                .isEqualTo(new JobStore.TierMark(T0 + 10_000, "first", null));

        // a stale replica took over: it has the token, not the raise the page was read under
        redis.redis().hset(redis.keys().tier(0), "intent", Long.toString(T0 + 1_000));
        assertThat(load(new JobStore.TierPage(mark, JobCursor.START, List.of(far), end, T0)))
                .isEqualTo(JobStore.LoadOutcome.INTENT_LOST);
        // Redis restarted empty, and the next raise names a new life of the watermark
        redis.redis().del(redis.keys().tier(0));
        assertThat(load(new JobStore.TierPage(mark, JobCursor.START, List.of(far), end, T0)))
                .isEqualTo(JobStore.LoadOutcome.INTENT_LOST);
        JobStore.TierMark again = store.raiseTierIntent(0, T0 + 10_000, "third", 0);
        assertThat(again.token()).isEqualTo("third");
        assertThat(load(new JobStore.TierPage(mark, JobCursor.START, List.of(far), end, T0)))
                .as("read under the old life")
                .isEqualTo(JobStore.LoadOutcome.INTENT_LOST);
        assertThat(load(new JobStore.TierPage(again, new JobCursor(T0 + 1, "x"), List.of(far), end, T0)))
                .as("no cursor, and a page that does not start from the first row")
                .isEqualTo(JobStore.LoadOutcome.CURSOR_LOST);
        assertThat(load(new JobStore.TierPage(again, JobCursor.START, List.of(far), end, T0 - 30_001)))
                .isEqualTo(JobStore.LoadOutcome.STALE);
        assertThat(store.find(far.id())).as("nothing loaded by a refused page").isEmpty();
        assertThat(redis.redis().hget(redis.keys().tier(0), "loaded")).isNull();

        assertThat(load(new JobStore.TierPage(again, JobCursor.START, List.of(far), end, T0)))
                .isEqualTo(JobStore.LoadOutcome.LOADED);
        assertThat(store.find(far.id())).isPresent();
    }

    private JobStore.LoadOutcome load(JobStore.TierPage page) {
        return store.loadTier(0, page, T0, 30_000, 0).outcome();
    }
}
