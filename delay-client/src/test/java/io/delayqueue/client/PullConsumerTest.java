package io.delayqueue.client;

import static io.delayqueue.client.ScriptedServer.envelope;
import static org.assertj.core.api.Assertions.assertThat;

import io.delayqueue.client.micrometer.MicrometerConsumerListener;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A {@link PullConsumer} against a local HTTP server that hands out scripted reservations. */
class PullConsumerTest {
    private ScriptedServer server;
    /** The answers of the next reserves, as data JSON; [] once they are used up. */
    private final Queue<String> reservations = new ConcurrentLinkedQueue<>();
    /** The answers of the next finishes, as data JSON; every job FINISHED once they are used up. */
    private final Queue<String> finishes = new ConcurrentLinkedQueue<>();

    @BeforeEach
    void startServer() throws Exception {
        server = new ScriptedServer().otherwise(call -> {
            if (call.path().startsWith("/get/")) {
                String next = reservations.poll();
                return envelope(200, next == null ? "[]" : next, "reserved", next == null ? 100 : 0);
            }
            if (call.path().equals("/jobs/finish")) {
                String next = finishes.poll();
                if (next == null) {
                    StringBuilder all = new StringBuilder("[");
                    readTree(call.body()).forEach(j -> all.append(all.length() > 1 ? "," : "")
                            .append("{\"id\":\"")
                            .append(j.path("id").asText())
                            .append("\",\"outcome\":\"FINISHED\",\"status\":\"FINISHED\"}"));
                    next = all.append("]").toString();
                }
                return envelope(200, next, "finished");
            }
            return envelope(404, "null", "unknown path");
        });
    }

    @AfterEach
    void stopServer() {
        server.close();
    }

    private DelayQueueClient client() {
        return DelayQueueClient.builder(server.url())
                .retryPolicy(new RetryPolicy(3, Duration.ofMillis(10), Duration.ofMillis(50), Duration.ofSeconds(5)))
                .build();
    }

    private static String job(String id, int attempts) {
        return "{\"id\":\"" + id + "\",\"topic\":\"mail\",\"body\":\"b\",\"executeAt\":1,\"ttr\":30000,"
                + "\"maxAttempts\":10,\"priority\":0,\"createTime\":1,\"status\":\"RESERVED\",\"attempts\":" + attempts
                + "}";
    }

    private static com.fasterxml.jackson.databind.JsonNode readTree(String json) {
        try {
            return Transport.JSON.readTree(json);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private List<ScriptedServer.Call> finishCalls() {
        return server.calls().stream()
                .filter(c -> c.path().equals("/jobs/finish"))
                .toList();
    }

    @Test
    void handled_jobs_are_finished_with_their_attempts_and_a_throwing_handler_s_job_is_left_and_counted()
            throws Exception {
        reservations.add("[" + job("ok", 2) + "," + job("bad", 0) + "]");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        CountDownLatch done = new CountDownLatch(2);
        List<FinishOutcome> outcomes = new CopyOnWriteArrayList<>();

        try (PullConsumer consumer = client().consumer("mail", job -> {
                    done.countDown();
                    if (job.id().equals("bad")) {
                        throw new IllegalStateException("not now");
                    }
                })
                .concurrency(2)
                .batchSize(10)
                .pollTimeout(Duration.ofMillis(100))
                .metrics(false)
                .listener(new MicrometerConsumerListener(registry, "mail"))
                .listener(new ConsumerListener() {
                    @Override
                    public void onFinished(Job job, FinishOutcome outcome) {
                        outcomes.add(outcome);
                    }
                })
                .start()) {
            assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
        }

        assertThat(server.calls().get(0).path())
                .as("the first poll asks for as many jobs as there are free handlers")
                .isEqualTo("/get/mail?count=2&timeout=100");
        assertThat(finishCalls())
                .extracting(ScriptedServer.Call::body)
                .containsExactly("[{\"id\":\"ok\",\"attempts\":2}]");
        assertThat(outcomes).extracting(FinishOutcome::id).containsExactly("ok");
        assertThat(registry.counter("delay.client.handled", "topic", "mail").count())
                .isEqualTo(1);
        assertThat(registry.counter("delay.client.failed", "topic", "mail").count())
                .isEqualTo(1);
        assertThat(registry.counter("delay.client.finished", "topic", "mail", "outcome", "FINISHED")
                        .count())
                .isEqualTo(1);
    }

    @Test
    void a_finish_whose_outcome_is_unknown_is_sent_again_while_the_reservation_lasts() throws Exception {
        reservations.add("[" + job("j", 0) + "]");
        finishes.add("[{\"id\":\"j\",\"outcome\":\"UNKNOWN\"}]");
        CompletableFuture<FinishOutcome> finished = new CompletableFuture<>();

        try (PullConsumer consumer = client().consumer("mail", job -> {})
                .pollTimeout(Duration.ofMillis(100))
                .metrics(false)
                .listener(new ConsumerListener() {
                    @Override
                    public void onFinished(Job job, FinishOutcome outcome) {
                        finished.complete(outcome);
                    }
                })
                .start()) {
            assertThat(finished.get(5, TimeUnit.SECONDS).outcome()).isEqualTo(FinishOutcome.Outcome.FINISHED);
        }
        assertThat(finishCalls()).hasSize(2);
    }

    @Test
    void close_waits_for_the_running_handler_then_finishes_its_job_and_polls_no_more() throws Exception {
        reservations.add("[" + job("slow", 0) + "]");
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        PullConsumer consumer = client().consumer("mail", job -> {
                    started.countDown();
                    release.await();
                })
                .pollTimeout(Duration.ofMillis(100))
                .shutdownGrace(Duration.ofSeconds(10))
                .metrics(false)
                .start();
        assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();

        CompletableFuture<Void> closing = CompletableFuture.runAsync(consumer::close);
        Thread.sleep(300);
        assertThat(closing).isNotDone();
        assertThat(finishCalls()).isEmpty();
        int pollsAtRelease = (int) server.calls().stream()
                .filter(c -> c.path().startsWith("/get/"))
                .count();
        release.countDown();
        closing.get(5, TimeUnit.SECONDS);

        assertThat(finishCalls())
                .extracting(ScriptedServer.Call::body)
                .containsExactly("[{\"id\":\"slow\",\"attempts\":0}]");
        Thread.sleep(300);
        assertThat(server.calls().stream()
                        .filter(c -> c.path().startsWith("/get/"))
                        .count())
                .as("polls after close")
                .isEqualTo(pollsAtRelease);
    }

    @Test
    void a_handler_running_past_the_grace_is_interrupted_and_its_job_not_finished() throws Exception {
        reservations.add("[" + job("stuck", 0) + "]");
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<Throwable> failure = new CompletableFuture<>();
        PullConsumer consumer = client().consumer("mail", job -> {
                    started.countDown();
                    Thread.sleep(60_000);
                })
                .pollTimeout(Duration.ofMillis(100))
                .shutdownGrace(Duration.ofMillis(300))
                .metrics(false)
                .listener(new ConsumerListener() {
                    @Override
                    public void onHandlerFailed(Job job, Throwable error) {
                        failure.complete(error);
                    }
                })
                .start();
        assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
        long start = System.nanoTime();
        consumer.close();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(3_000);
        assertThat(failure.get(1, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        assertThat(finishCalls()).isEmpty();
    }
}
