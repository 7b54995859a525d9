package io.delayqueue.client;

import static io.delayqueue.client.ScriptedServer.envelope;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The client against a local HTTP server that answers as scripted: retries, back-off, deadline, answers. */
class DelayQueueClientTest {
    private static final RetryPolicy FAST =
            new RetryPolicy(4, Duration.ofMillis(20), Duration.ofMillis(200), Duration.ofSeconds(10));

    private ScriptedServer server;

    @BeforeEach
    void startServer() throws Exception {
        server = new ScriptedServer();
    }

    @AfterEach
    void stopServer() {
        server.close();
    }

    private DelayQueueClient client(RetryPolicy policy) {
        return DelayQueueClient.builder(server.url())
                .token("s3cret")
                .retryPolicy(policy)
                .requestTimeout(Duration.ofSeconds(2))
                .build();
    }

    private static String idOf(ScriptedServer.Call call) {
        try {
            return Transport.JSON.readTree(call.body()).path("id").asText();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void a_push_after_a_503_and_a_504_is_sent_again_under_the_same_client_made_id_and_ends_durable() {
        server.then(c -> envelope(503, "\"" + idOf(c) + "\"", "journal refused"))
                .then(c -> envelope(504, "\"" + idOf(c) + "\"", "commit under way"))
                .then(c -> envelope(200, "\"" + idOf(c) + "\"", "a job with this id already exists"));

        PushResult result = client(FAST).push("order", "close 42", Duration.ofMinutes(30));

        assertThat(result.outcome()).isEqualTo(PushOutcome.DURABLE);
        assertThat(result.calls()).isEqualTo(3);
        List<String> ids =
                server.calls().stream().map(DelayQueueClientTest::idOf).toList();
        assertThat(ids).hasSize(3).containsOnly(result.id());
        assertThat(result.id()).matches("[A-Za-z0-9._:-]{1,128}").doesNotMatch("[0-9a-z]{14}");
        JsonNode sent = read(server.calls().get(0).body());
        assertThat(sent.path("topic").asText()).isEqualTo("order");
        assertThat(sent.path("delay").asLong()).isEqualTo(1_800_000L);
        assertThat(sent.has("executeAt")).as("unset fields are left out").isFalse();
    }

    @Test
    void every_call_carries_the_token_as_a_bearer_and_a_json_content_type() {
        server.then(200, "\"x\"", "created");
        client(FAST).push(PushRequest.builder("t", "b").id("x").build());
        ScriptedServer.Call call = server.calls().get(0);
        assertThat(call.header("Authorization")).isEqualTo("Bearer s3cret");
        assertThat(call.header("Content-Type")).isEqualTo("application/json");
        assertThat(call.path()).isEqualTo("/push");
    }

    @Test
    void a_push_that_stays_unavailable_ends_unknown_after_the_attempts_with_the_id_to_retry_with() {
        server.otherwise(c -> envelope(503, "\"" + idOf(c) + "\"", "journal refused"));

        PushResult result =
                client(FAST).push(PushRequest.builder("t", "b").id("order-7").build());

        assertThat(result.outcome()).isEqualTo(PushOutcome.UNKNOWN);
        assertThat(result.id()).isEqualTo("order-7");
        assertThat(result.status()).isEqualTo(503);
        assertThat(result.calls()).isEqualTo(4);
        assertThat(server.calls()).hasSize(4);
    }

    @Test
    void the_waits_between_calls_double_from_the_initial_backoff() {
        server.otherwise(c -> envelope(503, "null", "busy"));
        RetryPolicy policy = new RetryPolicy(4, Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ofSeconds(10));

        client(policy).push("t", "b", Duration.ZERO);

        List<ScriptedServer.Call> calls = server.calls();
        assertThat(calls).hasSize(4);
        List<Long> gaps = new ArrayList<>();
        for (int i = 1; i < calls.size(); i++) {
            gaps.add(TimeUnit.NANOSECONDS.toMillis(
                    calls.get(i).atNanos() - calls.get(i - 1).atNanos()));
        }
        // 100, 200, 400 ms, less up to a fifth of jitter
        assertThat(gaps.get(0)).isBetween(80L, 1_000L);
        assertThat(gaps.get(1)).isBetween(160L, 1_000L);
        assertThat(gaps.get(2)).isBetween(320L, 1_500L);
    }

    @Test
    void the_total_deadline_cuts_the_retries_and_each_call_s_timeout() {
        // every answer comes after 3 s; the deadline is 1 s: one call, timed out at the deadline
        server.otherwise(c -> envelope(200, "null", "late", 3_000));
        RetryPolicy policy = new RetryPolicy(10, Duration.ofMillis(10), Duration.ofMillis(10), Duration.ofSeconds(1));
        long start = System.nanoTime();

        PushResult result = DelayQueueClient.builder(server.url())
                .retryPolicy(policy)
                .requestTimeout(Duration.ofSeconds(5))
                .build()
                .push("t", "b", Duration.ZERO);

        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(result.outcome()).isEqualTo(PushOutcome.UNKNOWN);
        assertThat(result.status()).as("no answer").isZero();
        assertThat(result.message()).contains("no answer");
        assertThat(tookMs).as("ms until the push gave up").isBetween(900L, 2_500L);
    }

    @Test
    void a_service_not_listening_is_unknown_after_the_attempts() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        PushResult result = DelayQueueClient.builder("http://127.0.0.1:" + closedPort)
                .retryPolicy(FAST)
                .build()
                .push("t", "b", Duration.ZERO);
        assertThat(result.outcome()).isEqualTo(PushOutcome.UNKNOWN);
        assertThat(result.calls()).isEqualTo(4);
        assertThat(result.id()).isNotBlank();
    }

    @Test
    void each_answer_is_classified_and_only_unavailability_is_retried() {
        server.then(202, "\"a\"", "journaled")
                .then(400, "\"b\"", "ttr must be between 1 and 31536000000 ms")
                .then(409, "\"c\"", "body: id 'c' already names another job (its body differs)")
                .then(401, "null", "token is missing or wrong")
                .then(500, "\"e\"", "boom")
                .then(200, "\"e\"", "a job with this id already exists");
        DelayQueueClient client = client(FAST);

        PushResult journaled = client.push(PushRequest.builder("t", "b").id("a").build());
        PushResult refused = client.push(PushRequest.builder("t", "b").id("b").build());
        PushResult conflict = client.push(PushRequest.builder("t", "b").id("c").build());
        PushResult unauthorized =
                client.push(PushRequest.builder("t", "b").id("d").build());
        PushResult afterError =
                client.push(PushRequest.builder("t", "b").id("e").build());

        assertThat(journaled.outcome()).isEqualTo(PushOutcome.JOURNALED);
        assertThat(journaled.isAccepted()).isTrue();
        assertThat(refused.outcome()).isEqualTo(PushOutcome.REFUSED);
        assertThat(refused.field()).isEqualTo("ttr");
        assertThat(refused.calls()).isEqualTo(1);
        assertThat(conflict.outcome()).isEqualTo(PushOutcome.CONFLICT);
        assertThat(conflict.field()).isEqualTo("body");
        assertThat(conflict.calls()).isEqualTo(1);
        assertThat(unauthorized.outcome()).isEqualTo(PushOutcome.REFUSED);
        assertThat(unauthorized.status()).isEqualTo(401);
        assertThat(afterError.outcome()).isEqualTo(PushOutcome.DURABLE);
        assertThat(afterError.calls()).isEqualTo(2);
        assertThat(server.calls()).hasSize(6);
    }

    @Test
    void a_400_names_its_field_from_its_data_and_a_batch_the_job_at_fault() {
        server.then(400, "{\"field\":\"[2].ttr\",\"index\":2,\"id\":\"c\"}", "[2].ttr must be positive")
                .then(400, "{\"field\":\"executeAt\"}", "the job is due too far ahead");
        DelayQueueClient client = client(FAST);

        List<PushResult> batch = client.pushAll(List.of(
                PushRequest.builder("t", "a").id("a").build(),
                PushRequest.builder("t", "b").id("b").build(),
                PushRequest.builder("t", "c").id("c").build()));
        PushResult single = client.push(PushRequest.builder("t", "d").id("d").build());

        assertThat(batch).allSatisfy(r -> assertThat(r.outcome()).isEqualTo(PushOutcome.REFUSED));
        assertThat(batch.get(2).field()).isEqualTo("[2].ttr");
        assertThat(single.field()).as("from data, not the message's first word").isEqualTo("executeAt");
    }

    @Test
    void push_all_sends_batches_of_at_most_1000_each_job_under_an_id() {
        server.otherwise(c -> {
            JsonNode jobs = read(c.body());
            List<String> ids = new ArrayList<>();
            jobs.forEach(j -> ids.add("\"" + j.path("id").asText() + "\""));
            return envelope(200, ids.toString(), ids.size() + " created");
        });
        List<PushRequest> jobs = IntStream.range(0, 2_500)
                .mapToObj(i -> PushRequest.of("t", "job " + i, Duration.ofSeconds(1)))
                .toList();

        List<PushResult> results = client(FAST).pushAll(jobs);

        assertThat(results).hasSize(2_500).allMatch(r -> r.outcome() == PushOutcome.DURABLE);
        assertThat(results.stream().map(PushResult::id).distinct().count()).isEqualTo(2_500);
        assertThat(server.calls()).extracting(c -> read(c.body()).size()).containsExactly(1000, 1000, 500);
        assertThat(server.calls()).allMatch(c -> c.path().equals("/push/batch"));
    }

    @Test
    void a_batch_409_marks_the_jobs_it_names_conflicting_and_the_others_pushed() {
        server.then(
                409,
                "[\"a\",\"b\",\"c\"]",
                "[1].body: id 'b' already names another job (its body differs). Those jobs were kept as they are;"
                        + " the batch's other jobs were pushed (2 created, 0 already existed)");
        List<PushResult> results = client(FAST)
                .pushAll(List.of(
                        PushRequest.builder("t", "1").id("a").build(),
                        PushRequest.builder("t", "2").id("b").build(),
                        PushRequest.builder("t", "3").id("c").build()));
        assertThat(results)
                .extracting(PushResult::outcome)
                .containsExactly(PushOutcome.DURABLE, PushOutcome.CONFLICT, PushOutcome.DURABLE);
    }

    @Test
    void get_reads_the_job_with_its_history_and_a_404_is_empty() {
        server.then(
                        200,
                        "{\"job\":{\"id\":\"j1\",\"topic\":\"t\",\"body\":\"b\",\"executeAt\":5,\"ttr\":30000,"
                                + "\"maxAttempts\":10,\"priority\":0,\"createTime\":1,\"status\":\"FINISHED\","
                                + "\"attempts\":1,\"newField\":true},\"status\":\"FINISHED\",\"tier\":\"redis\","
                                + "\"history\":[{\"event\":\"CREATED\",\"from\":null,\"to\":\"DELAY\",\"at\":1},"
                                + "{\"event\":\"FINISHED\",\"from\":\"RESERVED\",\"to\":\"FINISHED\",\"at\":6}]}",
                        null)
                .then(404, "null", "no job j2");
        DelayQueueClient client = client(FAST);

        JobDetails details = client.get("j1").orElseThrow();
        assertThat(details.status()).isEqualTo("FINISHED");
        assertThat(details.job().attempts()).isEqualTo(1);
        assertThat(details.history()).extracting(JobDetails.HistoryEntry::event).containsExactly("CREATED", "FINISHED");
        assertThat(client.get("j2")).isEmpty();
        assertThat(server.calls()).extracting(ScriptedServer.Call::path).containsExactly("/jobs/j1", "/jobs/j2");
    }

    @Test
    void a_look_up_that_stays_unavailable_throws_with_the_status() {
        server.otherwise(c -> envelope(503, "null", "Redis is unavailable"));
        assertThatThrownBy(() -> client(FAST).get("j1"))
                .isInstanceOf(DelayQueueClientException.class)
                .hasMessageContaining("Redis is unavailable")
                .satisfies(e ->
                        assertThat(((DelayQueueClientException) e).status()).isEqualTo(503));
    }

    @Test
    void a_delete_is_retried_after_a_504_and_each_answer_says_what_became_of_the_job() {
        server.then(504, "\"j1\"", "unknown").then(200, "\"j1\"", "deleted").then(409, "null", "being delivered");
        DelayQueueClient client = client(FAST);
        DeleteResult deleted = client.delete("j1");
        DeleteResult conflict = client.delete("j2");
        assertThat(deleted.outcome()).isEqualTo(DeleteResult.Outcome.DELETED);
        assertThat(conflict.outcome()).isEqualTo(DeleteResult.Outcome.CONFLICT);
        assertThat(server.calls())
                .extracting(c -> c.method() + " " + c.path())
                .containsExactly("DELETE /jobs/j1", "DELETE /jobs/j1", "DELETE /jobs/j2");
    }

    @Test
    void a_single_finish_answered_409_for_an_expired_reservation_is_stale() {
        server.then(
                        409,
                        "null",
                        "job j1 is RESERVED: its reservation of attempt 0 is over (it expired and the job"
                                + " was handed over again); the finish was ignored")
                .then(409, "null", "job j1 is FINISHED: only a RESERVED job can be finished");
        DelayQueueClient client = client(FAST);
        assertThat(client.finish("j1", 0).outcome()).isEqualTo(FinishOutcome.Outcome.STALE);
        assertThat(client.finish("j1", 0).outcome()).isEqualTo(FinishOutcome.Outcome.NOT_RESERVED);
        assertThat(server.calls().get(0).path()).isEqualTo("/jobs/j1/finish?attempts=0");
    }

    @Test
    void finish_all_sends_each_reservation_s_attempts_and_reads_an_outcome_per_job() {
        server.then(
                200,
                "[{\"id\":\"a\",\"outcome\":\"FINISHED\",\"status\":\"FINISHED\"},"
                        + "{\"id\":\"b\",\"outcome\":\"STALE\",\"status\":\"RESERVED\"}]",
                "1 FINISHED, 1 STALE");
        List<FinishOutcome> outcomes = client(FAST).finishAll(List.of(job("a", 0), job("b", 2)));
        assertThat(outcomes)
                .extracting(FinishOutcome::outcome)
                .containsExactly(FinishOutcome.Outcome.FINISHED, FinishOutcome.Outcome.STALE);
        assertThat(read(server.calls().get(0).body()).toString())
                .isEqualTo("[{\"id\":\"a\",\"attempts\":0},{\"id\":\"b\",\"attempts\":2}]");
    }

    @Test
    void restore_reads_the_counts() {
        server.then(
                200,
                "{\"scanned\":3,\"restored\":2,\"alreadyPresent\":1,\"skippedExpired\":0,\"inJournalTier\":0}",
                "2 restored");
        RestoreReport report = client(FAST).restore();
        assertThat(report.restored()).isEqualTo(2);
        assertThat(server.calls().get(0).path()).isEqualTo("/reStore?expire=true");
    }

    @Test
    void a_base_url_with_a_path_keeps_it() {
        server.then(200, "\"x\"", "created");
        DelayQueueClient.builder(server.url() + "/queue/")
                .build()
                .push(PushRequest.builder("t", "b").id("x").build());
        assertThat(server.calls().get(0).path()).isEqualTo("/queue/push");
    }

    @Test
    void health_reads_the_status_of_an_up_or_down_service_and_throws_without_an_answer() {
        server.then(c -> new ScriptedServer.Answer(200, "{\"status\":\"UP\"}", 0))
                .then(c -> new ScriptedServer.Answer(503, "{\"status\":\"DOWN\"}", 0))
                .then(c -> new ScriptedServer.Answer(502, "bad gateway", 0));
        DelayQueueClient client = client(FAST);
        assertThat(client.health()).isEqualTo("UP");
        assertThat(client.health()).isEqualTo("DOWN");
        assertThatThrownBy(client::health)
                .isInstanceOf(DelayQueueClientException.class)
                .hasMessageContaining("502");
        assertThat(server.calls()).hasSize(3).allMatch(c -> c.path().equals("/actuator/health"));
    }

    static Job job(String id, int attempts) {
        return new Job(id, "t", null, null, "b", 0, 30_000, 10, null, 0, 0, "RESERVED", attempts);
    }

    private static JsonNode read(String json) {
        try {
            return Transport.JSON.readTree(json);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
