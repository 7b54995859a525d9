package io.delayqueue.queue.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.store.DueRouting;
import io.delayqueue.queue.store.JobStore;
import io.delayqueue.queue.store.Outcome;
import io.delayqueue.queue.testing.RedisFixture;
import io.delayqueue.queue.testing.TestIds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Dead letters and put-backs of {@link RedisJobStore}, against the real Redis, one key prefix per test. */
class RedisJobStoreDeadLetterTest {
    private static final int SHARDS = 2;
    private static final long T0 = 1_700_000_000_000L;
    private static final long DISPATCH_TIMEOUT = 30_000;
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

    private Job reserved(int shard, String topic, long due, int maxAttempts) {
        Job job = new Job(
                TestIds.inShard(shard, SHARDS),
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
        assertThat(store.push(List.of(job))).containsExactly(true);
        List<Job> moved =
                store.moveDue(shard, due, 1_000, ALL_PUSH, DISPATCH_TIMEOUT).toDispatch();
        assertThat(moved).extracting(Job::id).contains(job.id());
        return job;
    }

    /** A job of {@code topic} whose only allowed send failed. */
    private Job dead(int shard, String topic, long due) {
        Job job = reserved(shard, topic, due, 1);
        assertThat(store.retry(job.id(), due + 1_000).status()).isEqualTo(JobStatus.DEAD);
        return job;
    }

    private JobStatus statusOf(String id) {
        return store.find(id).map(Job::status).orElse(null);
    }

    @Test
    void deferred_job_is_delay_again_at_the_given_time_without_an_attempt_and_keeps_its_due_time() {
        Job job = reserved(0, "t", T0, 3);

        Map<String, Outcome> outcomes = store.defer(0, Map.of(job.id(), T0 + 500));

        assertThat(outcomes.get(job.id()).applied()).isTrue();
        Job stored = store.find(job.id()).orElseThrow();
        assertThat(stored.status()).isEqualTo(JobStatus.DELAY);
        assertThat(stored.attempts()).isZero();
        assertThat(stored.executeAt()).as("due time kept").isEqualTo(T0);
        assertThat(redis.redis().zscore(store.keys().bucket(0), job.id())).isEqualTo((double) (T0 + 500));
        assertThat(store.moveDue(0, T0 + 499, 10, ALL_PUSH, DISPATCH_TIMEOUT).toDispatch())
                .isEmpty();
        assertThat(store.moveDue(0, T0 + 500, 10, ALL_PUSH, DISPATCH_TIMEOUT).toDispatch())
                .extracting(Job::id, Job::attempts)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(job.id(), 0));
    }

    @Test
    void deferring_a_job_that_is_no_longer_reserved_changes_nothing() {
        Job job = reserved(0, "t", T0, 3);
        store.finish(0, List.of(job.id()), T0);

        Map<String, Outcome> outcomes = store.defer(0, Map.of(job.id(), T0 + 500, "0-unknown", T0 + 500));

        assertThat(outcomes.get(job.id())).isEqualTo(new Outcome(Outcome.Result.CONFLICT, JobStatus.FINISHED));
        assertThat(outcomes.get("0-unknown")).isEqualTo(new Outcome(Outcome.Result.NOT_FOUND, null));
        assertThat(statusOf(job.id())).isEqualTo(JobStatus.FINISHED);
    }

    @Test
    void dead_jobs_are_listed_oldest_first_and_counted_per_topic() {
        Job second = dead(0, "orders", T0 + 20);
        Job first = dead(0, "orders", T0 + 10);
        Job other = dead(0, "mail", T0 + 5);

        assertThat(store.listDead("orders", 0, 10)).extracting(Job::id).containsExactly(first.id(), second.id());
        assertThat(store.listDead("orders", 0, 1)).extracting(Job::id).containsExactly(first.id());
        assertThat(store.listDead("orders", 0, 10))
                .allSatisfy(j -> assertThat(j.status()).isEqualTo(JobStatus.DEAD));
        assertThat(store.countDead("orders", 0)).isEqualTo(2);
        assertThat(store.countDead("mail", 0)).isEqualTo(1);
        assertThat(store.listDead("mail", 0, 10)).extracting(Job::id).containsExactly(other.id());
        assertThat(store.countDead("orders", 1)).isZero();
        assertThat(store.listDead("nothing", 1, 10)).isEmpty();
    }

    @Test
    void dead_jobs_of_many_topics_are_counted_over_every_shard_at_once() {
        dead(0, "orders", T0);
        dead(1, "orders", T0);
        dead(1, "mail", T0);

        assertThat(store.countDead(List.of("orders", "mail", "nothing")))
                .containsExactly(Map.entry("orders", 2L), Map.entry("mail", 1L), Map.entry("nothing", 0L));
    }

    @Test
    void requeued_dead_job_is_delay_at_now_with_attempts_from_zero_and_leaves_the_dead_set() {
        Job job = dead(1, "orders", T0);
        long now = T0 + 60_000;

        List<Outcome> outcomes = store.requeueDead("orders", 1, List.of(job.id()), now);

        assertThat(outcomes).containsExactly(new Outcome(Outcome.Result.APPLIED, JobStatus.DELAY));
        Job stored = store.find(job.id()).orElseThrow();
        assertThat(stored.status()).isEqualTo(JobStatus.DELAY);
        assertThat(stored.attempts()).isZero();
        assertThat(stored.executeAt()).isEqualTo(now);
        assertThat(store.countDead("orders", 1)).isZero();
        assertThat(store.stats(1).byStatus()).containsEntry(JobStatus.DEAD, 0L).containsEntry(JobStatus.DELAY, 1L);
        // and it is delivered again, with a whole ladder of attempts before it
        assertThat(store.moveDue(1, now, 10, ALL_PUSH, DISPATCH_TIMEOUT).toDispatch())
                .extracting(Job::id)
                .containsExactly(job.id());
    }

    @Test
    void requeue_by_id_leaves_jobs_that_are_not_dead_jobs_of_the_topic_alone() {
        Job deadOrder = dead(0, "orders", T0);
        Job deadMail = dead(0, "mail", T0);
        Job live = reserved(0, "orders", T0 + 1, 3);

        List<Outcome> outcomes =
                store.requeueDead("orders", 0, List.of(deadMail.id(), live.id(), "0-unknown", deadOrder.id()), T0);

        assertThat(outcomes)
                .containsExactly(
                        new Outcome(Outcome.Result.CONFLICT, JobStatus.DEAD),
                        new Outcome(Outcome.Result.CONFLICT, JobStatus.RESERVED),
                        new Outcome(Outcome.Result.NOT_FOUND, null),
                        new Outcome(Outcome.Result.APPLIED, JobStatus.DELAY));
        assertThat(statusOf(deadMail.id())).isEqualTo(JobStatus.DEAD);
        assertThat(store.countDead("mail", 0)).isEqualTo(1);
        assertThat(statusOf(live.id())).isEqualTo(JobStatus.RESERVED);
    }

    @Test
    void requeue_of_the_oldest_takes_a_bounded_batch_and_says_whether_more_may_be_left() {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(dead(0, "orders", T0 + i).id());
        }

        JobStore.Requeued first = store.requeueOldestDead("orders", 0, 3, T0 + 100);
        JobStore.Requeued rest = store.requeueOldestDead("orders", 0, 3, T0 + 100);
        JobStore.Requeued none = store.requeueOldestDead("orders", 0, 3, T0 + 100);

        assertThat(first.ids()).containsExactlyElementsOf(ids.subList(0, 3));
        assertThat(first.more()).isTrue();
        assertThat(rest.ids()).containsExactlyElementsOf(ids.subList(3, 5));
        assertThat(rest.more()).isFalse();
        assertThat(none.ids()).isEmpty();
        assertThat(none.more()).isFalse();
        assertThat(ids).allSatisfy(id -> assertThat(statusOf(id)).isEqualTo(JobStatus.DELAY));
    }

    @Test
    void job_that_dies_again_after_a_requeue_is_listed_once() {
        Job job = dead(0, "orders", T0);
        store.requeueDead("orders", 0, List.of(job.id()), T0 + 10);
        store.moveDue(0, T0 + 10, 10, ALL_PUSH, DISPATCH_TIMEOUT);

        assertThat(store.retry(job.id(), T0 + 20).status())
                .as("maxAttempts 1: the first failed send after the requeue kills it again")
                .isEqualTo(JobStatus.DEAD);

        assertThat(store.listDead("orders", 0, 10)).extracting(Job::id).containsExactly(job.id());
        assertThat(store.countDead("orders", 0)).isEqualTo(1);
    }

    @Test
    void jobs_whose_reservations_expire_past_max_attempts_are_listed_as_dead_too() {
        Job job = reserved(0, "orders", T0, 1);

        store.moveDue(0, T0 + DISPATCH_TIMEOUT, 10, ALL_PUSH, DISPATCH_TIMEOUT);

        assertThat(statusOf(job.id())).isEqualTo(JobStatus.DEAD);
        assertThat(store.listDead("orders", 0, 10)).extracting(Job::id).containsExactly(job.id());
    }

    @Test
    void a_dead_letter_deleted_is_out_of_its_dead_set_pending_and_its_refused_delete_puts_it_back() {
        Job kept = dead(0, "t", T0);
        Job deleted = dead(0, "t", T0 + 1);
        Job refused = dead(0, "t", T0 + 2);
        Job other = dead(0, "u", T0 + 3);

        List<Outcome> begun =
                store.beginDeadDeletes("t", 0, List.of(deleted.id(), refused.id(), other.id(), "unknown"), T0 + 10);

        assertThat(begun)
                .extracting(Outcome::result, Outcome::status)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(Outcome.Result.APPLIED, JobStatus.DELETED),
                        org.assertj.core.groups.Tuple.tuple(Outcome.Result.APPLIED, JobStatus.DELETED),
                        org.assertj.core.groups.Tuple.tuple(Outcome.Result.CONFLICT, JobStatus.DEAD),
                        org.assertj.core.groups.Tuple.tuple(Outcome.Result.NOT_FOUND, null));
        assertThat(store.listDead("t", 0, 10)).extracting(Job::id).containsExactly(kept.id());
        assertThat(store.countDead("t", 0)).isEqualTo(1);
        assertThat(store.pendingDeletesAmong(List.of(deleted.id(), refused.id())))
                .containsExactlyInAnyOrder(deleted.id(), refused.id());
        // nothing requeues a dead letter being deleted
        assertThat(store.requeueDead("t", 0, List.of(deleted.id()), T0 + 11)
                        .get(0)
                        .status())
                .isEqualTo(JobStatus.DELETED);

        assertThat(store.confirmDeletes(0, List.of(deleted.id()), T0 + 12)).containsExactly("t");
        assertThat(store.undoDeletes(0, List.of(refused.id()))).containsKey(refused.id());

        assertThat(statusOf(deleted.id())).isEqualTo(JobStatus.DELETED);
        assertThat(statusOf(refused.id())).isEqualTo(JobStatus.DEAD);
        assertThat(store.listDead("t", 0, 10)).extracting(Job::id).containsExactly(kept.id(), refused.id());
        // without a topic (DELETE /jobs/{id}), the job's own dead set is found
        assertThat(store.beginDeadDeletes(null, 0, List.of(other.id()), T0 + 20)
                        .get(0)
                        .applied())
                .isTrue();
        assertThat(store.countDead("u", 0)).isZero();
        assertThat(store.deadBefore("t", 0, T0 + 2, 10)).containsExactly(kept.id());
    }
}
