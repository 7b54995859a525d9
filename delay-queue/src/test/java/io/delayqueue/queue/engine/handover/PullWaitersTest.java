package io.delayqueue.queue.engine.handover;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link PullWaiters} on its own, with a scripted reserve function. The periodic recheck is set to a minute,
 * so a waiter served within the test's bounds was served because of a signal.
 */
class PullWaitersTest {
    private static final long NO_RECHECK_MS = 60_000;
    private static final Job JOB =
            new Job("0-abcdefghijkl", "t", null, null, "b", 0, 1_000, 3, null, 0, 0, JobStatus.RESERVED, 0);

    private PullWaiters waiters;

    @AfterEach
    void close() {
        if (waiters != null) {
            waiters.close();
        }
    }

    @Test
    void signal_that_arrives_while_the_waiter_is_being_served_is_not_lost() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        AtomicBoolean jobReady = new AtomicBoolean();
        CountDownLatch serverInReserve = new CountDownLatch(1);
        CountDownLatch releaseServer = new CountDownLatch(1);
        waiters = new PullWaiters(
                (topic, count) -> {
                    int call = calls.incrementAndGet();
                    if (call == 2) {
                        // the server's first look, started by the waiter's arrival: it saw nothing
                        serverInReserve.countDown();
                        await(releaseServer);
                        return List.<Job>of();
                    }
                    return jobReady.get() ? List.of(JOB) : List.<Job>of();
                },
                NO_RECHECK_MS);

        CompletableFuture<List<Job>> waiting = waiters.await("t", 1, 30_000);
        assertThat(serverInReserve.await(5, TimeUnit.SECONDS)).isTrue();
        // a scanner makes a job ready and signals while the only waiter is out of the queue being served
        jobReady.set(true);
        waiters.signal("t");
        releaseServer.countDown();

        assertThat(waiting.get(5, TimeUnit.SECONDS)).contains(JOB);
    }

    @Test
    void waiter_arriving_when_a_job_is_ready_gets_it_at_once() {
        waiters = new PullWaiters((topic, count) -> List.of(JOB), NO_RECHECK_MS);

        CompletableFuture<List<Job>> got = waiters.await("t", 1, 30_000);

        assertThat(got).isCompletedWithValue(List.of(JOB));
    }

    @Test
    void waiter_asking_for_many_is_served_with_what_the_reservation_found_up_to_its_count() throws Exception {
        AtomicBoolean jobsReady = new AtomicBoolean();
        List<Integer> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
        waiters = new PullWaiters(
                (topic, count) -> {
                    asked.add(count);
                    return jobsReady.get() ? List.of(JOB, JOB) : List.<Job>of();
                },
                NO_RECHECK_MS);
        CompletableFuture<List<Job>> waiting = waiters.await("t", 100, 30_000);
        assertThat(waiting).isNotDone();

        jobsReady.set(true);
        waiters.signal("t");

        assertThat(waiting.get(5, TimeUnit.SECONDS)).containsExactly(JOB, JOB);
        assertThat(asked).as("counts asked of the store").containsOnly(100);
    }

    @Test
    void waiter_with_zero_timeout_does_not_wait() {
        waiters = new PullWaiters((topic, count) -> List.<Job>of(), NO_RECHECK_MS);

        assertThat(waiters.await("t", 1, 0)).isCompletedWithValue(List.<Job>of());
        assertThat(waiters.waiting()).isZero();
    }

    @Test
    void signal_serves_the_oldest_waiter_first() throws Exception {
        AtomicBoolean jobReady = new AtomicBoolean();
        AtomicInteger handedOut = new AtomicInteger();
        waiters = new PullWaiters(
                (topic, count) -> jobReady.get() && handedOut.incrementAndGet() == 1 ? List.of(JOB) : List.<Job>of(),
                NO_RECHECK_MS);
        CompletableFuture<List<Job>> first = waiters.await("t", 1, 2_000);
        CompletableFuture<List<Job>> second = waiters.await("t", 1, 2_000);

        jobReady.set(true);
        waiters.signal("t");

        assertThat(first.get(5, TimeUnit.SECONDS)).contains(JOB);
        assertThat(second.get(5, TimeUnit.SECONDS)).isEmpty();
    }

    @Test
    void failing_reserve_fails_the_waiter_instead_of_hanging_it() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        waiters = new PullWaiters(
                (topic, count) -> {
                    if (calls.incrementAndGet() > 1) {
                        throw new IllegalStateException("redis down");
                    }
                    return List.<Job>of();
                },
                NO_RECHECK_MS);

        CompletableFuture<List<Job>> waiting = waiters.await("t", 1, 30_000);

        assertThat(waiting)
                .failsWithin(5, TimeUnit.SECONDS)
                .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .withCauseInstanceOf(IllegalStateException.class);
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
