package io.delayqueue.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.client.ConsumerListener;
import io.delayqueue.client.DelayQueueClient;
import io.delayqueue.client.DeleteResult;
import io.delayqueue.client.FinishOutcome;
import io.delayqueue.client.Job;
import io.delayqueue.client.JobDetails;
import io.delayqueue.client.PullConsumer;
import io.delayqueue.client.PushOutcome;
import io.delayqueue.client.PushRequest;
import io.delayqueue.client.PushResult;
import io.delayqueue.client.RestoreReport;
import io.delayqueue.client.RetryPolicy;
import io.delayqueue.common.JobIds;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.ServiceTest;
import io.delayqueue.queue.engine.EngineConfig;
import io.delayqueue.queue.testing.JournalDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The Java client ({@code delay-client}) against the real service on MariaDB and Redis: push, look up, delete and
 * restore; a push retried across the journal's unavailability is one job; a {@link PullConsumer} handles and
 * finishes batches, leaves a job whose handler threw to come back after its ttr, reports a stale finish, and on
 * {@code close()} finishes what its running handlers handled.
 */
@ServiceTest(
        properties = {
            "delay.dispatch.topics." + ClientEndToEndTest.BATCH + "=pull",
            "delay.dispatch.topics." + ClientEndToEndTest.THROWS + "=pull",
            "delay.dispatch.topics." + ClientEndToEndTest.STALE + "=pull",
            "delay.dispatch.topics." + ClientEndToEndTest.CLOSE + "=pull",
            "delay.journal.commit-timeout=2s",
            // the round trip's restore, not the reconciler, puts the job back
            "delay.journal.reconcile-interval=1h"
        })
class ClientEndToEndTest {
    static final ServiceStores STORES = ServiceStores.redisAndJournal("client");
    static final String BATCH = "cl-batch";
    static final String THROWS = "cl-throws";
    static final String STALE = "cl-stale";
    static final String CLOSE = "cl-close";
    private static final Duration WAIT = Duration.ofSeconds(30);

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        STORES.register(registry);
    }

    @LocalServerPort
    int port;

    private DelayQueueClient client() {
        return DelayQueueClient.builder("http://127.0.0.1:" + port)
                .retryPolicy(
                        new RetryPolicy(10, Duration.ofMillis(100), Duration.ofMillis(500), Duration.ofSeconds(20)))
                .build();
    }

    @Test
    void a_job_pushed_by_the_client_is_looked_up_with_its_history_restored_once_redis_lost_it_and_deleted() {
        DelayQueueClient client = client();
        assertThat(client.health()).isEqualTo("UP");
        PushResult pushed = client.push("cl-roundtrip", "close order 42", Duration.ofMinutes(10));
        assertThat(pushed.outcome()).as("push: %s", pushed).isEqualTo(PushOutcome.DURABLE);

        JobDetails details = client.get(pushed.id()).orElseThrow();
        assertThat(details.status()).isEqualTo("DELAY");
        assertThat(details.job().body()).isEqualTo("close order 42");
        assertThat(details.history()).extracting(JobDetails.HistoryEntry::event).containsExactly("CREATED");

        // Redis loses the job; the journal has it
        int shard = JobIds.shardOf(pushed.id(), EngineConfig.DEFAULT_SHARDS);
        String tag = "{" + STORES.prefix() + ":" + shard + "}";
        assertThat(STORES.redis().redis().hdel(tag + ":pool", pushed.id())).isEqualTo(1);
        STORES.redis().redis().zrem(tag + ":bucket", pushed.id());
        RestoreReport report = client.restore();
        assertThat(report.restored()).as("restore: %s", report).isGreaterThanOrEqualTo(1);
        assertThat(client.get(pushed.id()).orElseThrow().tier()).isEqualTo("redis");

        DeleteResult deleted = client.delete(pushed.id());
        assertThat(deleted.outcome()).as("delete: %s", deleted).isEqualTo(DeleteResult.Outcome.DELETED);
        assertThat(client.get(pushed.id()).orElseThrow().status()).isEqualTo("DELETED");
        assertThat(STORES.journalStatus(pushed.id())).isEqualTo("DELETED");
        assertThat(client.delete("cl-no-such-job").outcome()).isEqualTo(DeleteResult.Outcome.NOT_FOUND);
        assertThat(client.get("cl-no-such-job")).isEmpty();
    }

    @Test
    void a_push_retried_while_the_journal_cannot_commit_is_exactly_one_job() throws Exception {
        DelayQueueClient client = client();
        String body = "one job " + UUID.randomUUID();
        PushResult result;
        try (Connection locker = DriverManager.getConnection(
                        STORES.journal().jdbcUrl(), JournalDatabase.MARIADB_USER, JournalDatabase.MARIADB_PASSWORD);
                Statement lock = locker.createStatement()) {
            lock.execute("LOCK TABLES delay_queue_job READ, delay_queue_job_log READ");
            CompletableFuture<PushResult> push =
                    CompletableFuture.supplyAsync(() -> client.push("cl-retried", body, Duration.ofMinutes(10)));
            // the first call waits out the commit timeout (2 s) and is answered 503 or 504; the client calls again
            Thread.sleep(5_000);
            assertThat(push).as("the push is still being retried").isNotDone();
            lock.execute("UNLOCK TABLES");
            result = push.get(30, TimeUnit.SECONDS);
        }

        assertThat(result.outcome()).as("push: %s", result).isEqualTo(PushOutcome.DURABLE);
        assertThat(result.calls()).as("calls made").isGreaterThanOrEqualTo(2);
        assertThat(STORES.journal().queryStrings("SELECT id FROM delay_queue_job WHERE body = '" + body + "'"))
                .as("jobs of this body in the journal")
                .containsExactly(result.id());
    }

    @Test
    void a_consumer_handles_batches_and_finishes_each_job_with_its_reservation() {
        DelayQueueClient client = client();
        List<PushResult> pushed = client.pushAll(IntStream.range(0, 50)
                .mapToObj(i -> PushRequest.of(BATCH, "mail " + i, Duration.ZERO))
                .toList());
        assertThat(pushed).allMatch(r -> r.outcome() == PushOutcome.DURABLE, "pushed 200");
        Set<String> ids = pushed.stream().map(PushResult::id).collect(Collectors.toSet());
        Map<String, Integer> handled = new ConcurrentHashMap<>();
        List<FinishOutcome> finishes = new CopyOnWriteArrayList<>();

        try (PullConsumer consumer = client.consumer(BATCH, job -> handled.merge(job.id(), 1, Integer::sum))
                .concurrency(4)
                .batchSize(10)
                .pollTimeout(Duration.ofMillis(500))
                .listener(new ConsumerListener() {
                    @Override
                    public void onFinished(Job job, FinishOutcome outcome) {
                        finishes.add(outcome);
                    }
                })
                .start()) {
            await("every job finished").atMost(WAIT).until(() -> finishes.size() >= ids.size());
        }

        assertThat(handled.keySet()).isEqualTo(ids);
        assertThat(handled.values()).as("each handled once").containsOnly(1);
        assertThat(finishes).extracting(FinishOutcome::outcome).containsOnly(FinishOutcome.Outcome.FINISHED);
        await("the journal has every job FINISHED").atMost(WAIT).until(() -> ids.stream()
                .allMatch(id -> "FINISHED".equals(STORES.journalStatus(id))));
    }

    @Test
    void a_job_whose_handler_throws_comes_back_after_its_ttr_and_is_handled_again() {
        DelayQueueClient client = client();
        PushResult pushed = client.push(PushRequest.builder(THROWS, "flaky")
                .ttr(Duration.ofSeconds(1))
                .maxAttempts(3)
                .build());
        List<Integer> attemptsSeen = new CopyOnWriteArrayList<>();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        CountDownLatch finished = new CountDownLatch(1);

        try (PullConsumer consumer = client.consumer(THROWS, job -> {
                    attemptsSeen.add(job.attempts());
                    if (job.attempts() == 0) {
                        throw new IllegalStateException("the mail server is down");
                    }
                })
                .pollTimeout(Duration.ofMillis(500))
                .listener(new ConsumerListener() {
                    @Override
                    public void onHandlerFailed(Job job, Throwable error) {
                        failures.add(error);
                    }

                    @Override
                    public void onFinished(Job job, FinishOutcome outcome) {
                        if (outcome.outcome() == FinishOutcome.Outcome.FINISHED) {
                            finished.countDown();
                        }
                    }
                })
                .start()) {
            await("handled again and finished").atMost(WAIT).until(() -> finished.getCount() == 0);
        }

        assertThat(attemptsSeen).containsExactly(0, 1);
        assertThat(failures).singleElement().satisfies(e -> assertThat(e).hasMessage("the mail server is down"));
        assertThat(client.get(pushed.id()).orElseThrow().status()).isEqualTo("FINISHED");
        await("the journal has the expired reservation and the finish")
                .atMost(WAIT)
                .untilAsserted(
                        () -> assertThat(client.get(pushed.id()).orElseThrow().history())
                                .extracting(JobDetails.HistoryEntry::event)
                                .contains("TTR_EXPIRED", "FINISHED"));
    }

    @Test
    void a_finish_after_the_reservation_ran_out_is_reported_stale_and_the_new_holder_finishes_the_job()
            throws Exception {
        DelayQueueClient client = client();
        PushResult pushed = client.push(
                PushRequest.builder(STALE, "slow").ttr(Duration.ofSeconds(1)).build());
        CountDownLatch secondReservation = new CountDownLatch(1);
        CountDownLatch firstFinished = new CountDownLatch(1);
        Map<Integer, FinishOutcome> outcomeByAttempt = new ConcurrentHashMap<>();

        try (PullConsumer consumer = client.consumer(STALE, job -> {
                    if (job.attempts() == 0) {
                        // outlives its reservation: the job is handed over again meanwhile
                        assertThat(secondReservation.await(20, TimeUnit.SECONDS))
                                .isTrue();
                    } else {
                        secondReservation.countDown();
                        assertThat(firstFinished.await(20, TimeUnit.SECONDS)).isTrue();
                    }
                })
                .concurrency(2)
                .pollTimeout(Duration.ofMillis(500))
                .listener(new ConsumerListener() {
                    @Override
                    public void onFinished(Job job, FinishOutcome outcome) {
                        outcomeByAttempt.put(job.attempts(), outcome);
                        if (job.attempts() == 0) {
                            firstFinished.countDown();
                        }
                    }
                })
                .start()) {
            await("both reservations finished").atMost(WAIT).until(() -> outcomeByAttempt.size() == 2);
        }

        assertThat(outcomeByAttempt.get(0).outcome()).isEqualTo(FinishOutcome.Outcome.STALE);
        assertThat(outcomeByAttempt.get(1).outcome()).isEqualTo(FinishOutcome.Outcome.FINISHED);
        assertThat(client.get(pushed.id()).orElseThrow().status()).isEqualTo("FINISHED");
    }

    @Test
    void a_single_finish_of_an_expired_reservation_is_answered_409_and_reported_stale() {
        DelayQueueClient client = client();
        PushResult pushed = client.push(PushRequest.builder(STALE, "reserved twice")
                .ttr(Duration.ofMillis(500))
                .build());
        List<Job> first = client.reserve(STALE, 1, Duration.ofSeconds(5));
        assertThat(first).extracting(Job::id).containsExactly(pushed.id());
        List<Job> second = new ArrayList<>();
        await("the job comes back after its ttr")
                .atMost(WAIT)
                .until(() -> second.addAll(client.reserve(STALE, 1, Duration.ofSeconds(2))));
        assertThat(second.get(0).attempts()).isEqualTo(1);

        assertThat(client.finish(pushed.id(), 0).outcome()).isEqualTo(FinishOutcome.Outcome.STALE);
        assertThat(client.finish(pushed.id(), 1).outcome()).isEqualTo(FinishOutcome.Outcome.FINISHED);
    }

    @Test
    void close_lets_a_running_handler_return_finishes_its_job_and_takes_no_new_one() throws Exception {
        DelayQueueClient client = client();
        PushResult running = client.push(CLOSE, "running at close", Duration.ZERO);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<String> handled = new CopyOnWriteArrayList<>();
        PullConsumer consumer = client.consumer(CLOSE, job -> {
                    started.countDown();
                    assertThat(release.await(20, TimeUnit.SECONDS)).isTrue();
                    handled.add(job.id());
                })
                .pollTimeout(Duration.ofMillis(500))
                .shutdownGrace(Duration.ofSeconds(20))
                .start();
        assertThat(started.await(20, TimeUnit.SECONDS))
                .as("the handler started")
                .isTrue();

        CompletableFuture<Void> closing = CompletableFuture.runAsync(consumer::close);
        Thread.sleep(1_000);
        assertThat(closing).as("close waits for the running handler").isNotDone();
        PushResult afterClose = client.push(CLOSE, "pushed after close", Duration.ZERO);
        release.countDown();
        closing.get(30, TimeUnit.SECONDS);

        assertThat(handled).containsExactly(running.id());
        assertThat(client.get(running.id()).orElseThrow().status())
                .as("finished before close returned")
                .isEqualTo("FINISHED");
        assertThat(consumer.isRunning()).isFalse();
        Thread.sleep(1_000);
        assertThat(client.get(afterClose.id()).orElseThrow().status())
                .as("a job due after close is left for other consumers")
                .isEqualTo("READY");
    }
}
