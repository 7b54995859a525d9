package io.delayqueue.queue.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.store.Attempt;
import io.delayqueue.queue.store.DueBatch;
import io.delayqueue.queue.store.DueRouting;
import io.delayqueue.queue.store.Outcome;
import io.delayqueue.queue.testing.RedisFixture;
import io.delayqueue.queue.testing.TestIds;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Outcomes fenced by attempt, on the real Redis: a finish, failed send or put-back of an attempt whose
 * reservation ended (and whose job was reserved again) is ignored, and the later attempt's outcome counts.
 */
class RedisJobStoreAttemptTest {
    private static final int SHARDS = 2;
    private static final long T0 = 1_700_000_000_000L;
    private static final long TTR = 1_000;
    private static final long DISPATCH_TIMEOUT = 5_000;
    private static final DueRouting ALL_PUSH = new DueRouting(false, Set.of());
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

    private Job pushed(String topic) {
        String id = TestIds.inShard(0, SHARDS);
        Job job = new Job(id, topic, null, null, "body", T0, TTR, 5, null, 0, T0, JobStatus.DELAY, 0);
        assertThat(store.push(List.of(job))).containsExactly(true);
        return job;
    }

    private Job stored(String id) {
        return store.find(id).orElseThrow();
    }

    @Test
    void a_finish_of_a_pulled_attempt_whose_ttr_expired_is_ignored_once_the_job_is_reserved_again() {
        Job job = pushed("pulled");
        store.moveDue(0, T0, 10, ALL_PULL, DISPATCH_TIMEOUT);
        Job first = store.reserve("pulled", 0, T0).orElseThrow();
        assertThat(first.attempts()).isZero();
        // the first consumer's TTR expires: an attempt is counted and the job is ready, then reserved again
        assertThat(store.moveDue(0, T0 + TTR, 10, ALL_PULL, DISPATCH_TIMEOUT).expired())
                .containsExactly(new DueBatch.Moved(job.id(), "pulled", T0 + TTR));
        Job second = store.reserve("pulled", 0, T0 + TTR).orElseThrow();
        assertThat(second.attempts()).isEqualTo(1);

        Attempt late = new Attempt(job.id(), first.attempts());
        assertThat(store.finishAttempts(0, List.of(late), T0 + TTR + 1))
                .containsExactly(new Outcome(Outcome.Result.STALE, JobStatus.RESERVED));
        assertThat(store.retry(late, T0 + 50_000)).isEqualTo(new Outcome(Outcome.Result.STALE, JobStatus.RESERVED));
        assertThat(store.deferAttempts(0, Map.of(late, T0 + 50_000)))
                .containsEntry(job.id(), new Outcome(Outcome.Result.STALE, JobStatus.RESERVED));
        assertThat(stored(job.id()).status()).isEqualTo(JobStatus.RESERVED);
        assertThat(stored(job.id()).attempts())
                .as("the stale failure counted no attempt")
                .isEqualTo(1);

        assertThat(store.finishAttempts(0, List.of(new Attempt(job.id(), second.attempts())), T0 + TTR + 2))
                .containsExactly(new Outcome(Outcome.Result.APPLIED, JobStatus.FINISHED));
        assertThat(store.finishAttempts(0, List.of(late), T0 + TTR + 3))
                .as("the first attempt's finish after the second finished")
                .containsExactly(new Outcome(Outcome.Result.STALE, JobStatus.FINISHED));
    }

    @Test
    void a_late_send_failure_of_a_dispatched_attempt_adds_no_attempt_after_the_next_attempt_was_dispatched() {
        Job job = pushed("pushed");
        Job first = store.moveDue(0, T0, 10, ALL_PUSH, DISPATCH_TIMEOUT)
                .toDispatch()
                .get(0);
        // the first send is never confirmed in time: its reservation expires and the job is dispatched again
        Job second = store.moveDue(0, T0 + DISPATCH_TIMEOUT, 10, ALL_PUSH, DISPATCH_TIMEOUT)
                .toDispatch()
                .get(0);
        assertThat(second.id()).isEqualTo(job.id());
        assertThat(second.attempts()).isEqualTo(first.attempts() + 1);

        assertThat(store.retry(new Attempt(job.id(), first.attempts()), T0 + 60_000))
                .isEqualTo(new Outcome(Outcome.Result.STALE, JobStatus.RESERVED));
        assertThat(stored(job.id()).attempts()).isEqualTo(second.attempts());
        assertThat(stored(job.id()).status()).isEqualTo(JobStatus.RESERVED);

        assertThat(store.finishAttempts(0, List.of(new Attempt(job.id(), second.attempts())), T0 + DISPATCH_TIMEOUT))
                .containsExactly(new Outcome(Outcome.Result.APPLIED, JobStatus.FINISHED));
    }

    @Test
    void an_outcome_of_the_current_attempt_or_of_any_attempt_applies() {
        Job failing = pushed("pushed");
        Job finishing = pushed("pushed");
        store.moveDue(0, T0, 10, ALL_PUSH, DISPATCH_TIMEOUT);

        assertThat(store.retry(new Attempt(failing.id(), 0), T0 + 100))
                .isEqualTo(new Outcome(Outcome.Result.APPLIED, JobStatus.DELAY));
        assertThat(stored(failing.id()).attempts()).isEqualTo(1);
        assertThat(store.finishAttempts(0, List.of(Attempt.any(finishing.id())), T0))
                .containsExactly(new Outcome(Outcome.Result.APPLIED, JobStatus.FINISHED));
        assertThat(store.finishAttempts(0, List.of(new Attempt(failing.id(), 1)), T0))
                .as("the current attempt of a job that is not reserved")
                .containsExactly(new Outcome(Outcome.Result.CONFLICT, JobStatus.DELAY));
    }
}
