package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayqueue.common.JobStatus;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.CallbackServer;
import io.delayqueue.e2e.support.CallbackServer.Call;
import io.delayqueue.e2e.support.RecordingJournal;
import io.delayqueue.e2e.support.RecordingJournalConfig;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.ServiceTest;
import io.delayqueue.queue.journal.JobEvent;
import io.delayqueue.queue.journal.Transition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.autoconfigure.actuate.observability.AutoConfigureObservability;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * HTTP-callback dispatch against a local HTTP server, with retry ladders of milliseconds: failed calls
 * follow the ladder, a job that never gets a 2xx ends DEAD after its max attempts, and the dead-letter
 * API lists it and brings it back. A burst far larger than the topic's in-flight limit (20) and the host's
 * connections (4) waits for slots: every job is called back once, none is put back.
 */
@AutoConfigureObservability(tracing = false) // a Boot test turns metrics export off unless asked
@ServiceTest(
        properties = {
            "delay.dispatch.topics.cb-flaky=http",
            "delay.dispatch.topics.cb-broken=http",
            "delay.dispatch.topics.cb-burst=http",
            "delay.dispatch.max-in-flight-per-topic=20",
            "delay.http.max-connections-per-host=4",
            "delay.retry.topics.cb-flaky.backoff=50ms,100ms",
            "delay.retry.topics.cb-broken.backoff=20ms,40ms",
            "delay.retry.topics.cb-broken.max-attempts=3",
            "delay.http.read-timeout=5s"
        })
@Import(RecordingJournalConfig.class)
class HttpCallbackDispatchTest {
    static final ServiceStores STORES = ServiceStores.redisOnly("callback");
    static final CallbackServer CALLBACKS = CallbackServer.started();

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        STORES.register(registry);
    }

    @LocalServerPort
    int port;

    @Autowired
    RecordingJournal journal;

    private String push(Api api, String topic, String path) {
        Api.Response r = api.postJson(
                "/push", Map.of("topic", topic, "body", "callback to " + path, "delay", 0, "url", CALLBACKS.url(path)));
        assertThat(r.status()).as("push: %s", r).isEqualTo(200);
        return r.data().asText();
    }

    private String statusOf(Api api, String id) {
        return api.get("/jobs/" + id).data().path("status").asText();
    }

    @Test
    void callback_that_answers_500_twice_then_200_is_called_three_times_on_the_ladder_and_the_job_finishes() {
        Api api = new Api(port);
        String path = "/flaky/" + UUID.randomUUID();
        CALLBACKS.script(path, n -> n <= 2 ? 500 : 200);

        String id = push(api, "cb-flaky", path);

        await("the job is FINISHED").atMost(Duration.ofSeconds(30)).until(() -> statusOf(api, id)
                .equals("FINISHED"));
        List<Call> calls = CALLBACKS.calls(path);
        assertThat(calls).extracting(Call::status).containsExactly(500, 500, 200);
        assertThat(calls).allSatisfy(c -> assertThat(c.jobId()).isEqualTo(id));
        JsonNode job = api.get("/jobs/" + id).data().path("job");
        assertThat(job.path("attempts").asInt()).isEqualTo(2);

        // each failed attempt is journaled with its error, and the next call waits its ladder step
        List<Transition> failed = journal.of(id).stream()
                .filter(t -> t.from() == JobStatus.RESERVED && t.to() == JobStatus.DELAY)
                .toList();
        assertThat(failed).hasSize(2);
        assertThat(failed.get(0).detail()).startsWith("attempt 1:").contains("HTTP 500");
        assertThat(failed.get(1).detail()).startsWith("attempt 2:").contains("HTTP 500");
        assertThat(calls.get(1).at()).isGreaterThanOrEqualTo(failed.get(0).at() + 50);
        assertThat(calls.get(2).at()).isGreaterThanOrEqualTo(failed.get(1).at() + 100);
        assertThat(journal.statusOf(id)).isEqualTo(JobStatus.FINISHED);
    }

    @Test
    void callback_that_always_fails_ends_dead_after_max_attempts_and_is_requeued_by_the_api() {
        Api api = new Api(port);
        String path = "/broken/" + UUID.randomUUID();
        AtomicBoolean repaired = new AtomicBoolean();
        CALLBACKS.script(path, n -> repaired.get() ? 204 : 503);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ids.add(push(api, "cb-broken", path));
        }

        await("every job is DEAD").atMost(Duration.ofSeconds(30)).until(() -> ids.stream()
                .allMatch(id -> statusOf(api, id).equals("DEAD")));

        assertThat(CALLBACKS.calls(path)).hasSize(9).allSatisfy(c -> assertThat(c.status())
                .isEqualTo(503));
        ids.forEach(id -> assertThat(api.get("/jobs/" + id)
                        .data()
                        .path("job")
                        .path("attempts")
                        .asInt())
                .isEqualTo(3));
        Api.Response dead = api.get("/dead/cb-broken?limit=10");
        assertThat(dead.status()).as("GET /dead: %s", dead).isEqualTo(200);
        assertThat(dead.data().path("total").asLong()).isEqualTo(3);
        List<String> listed = new ArrayList<>();
        dead.data().path("jobs").forEach(j -> listed.add(j.path("id").asText()));
        assertThat(listed).containsExactlyInAnyOrderElementsOf(ids);

        repaired.set(true);
        // one by id (an unknown id is reported, not an error) ...
        Api.Response one = api.postJson("/dead/cb-broken/requeue", Map.of("ids", List.of(ids.get(0), "0-unknown")));
        assertThat(one.status()).as("requeue by id: %s", one).isEqualTo(200);
        assertThat(one.data().path("requeued").asInt()).isEqualTo(1);
        assertThat(one.data().path("notRequeued").path("0-unknown").asText()).isEqualTo("NOT_FOUND");
        await("the requeued job is FINISHED").atMost(Duration.ofSeconds(30)).until(() -> statusOf(api, ids.get(0))
                .equals("FINISHED"));
        assertThat(statusOf(api, ids.get(1))).isEqualTo("DEAD");
        assertThat(api.get("/dead/cb-broken").data().path("total").asLong()).isEqualTo(2);

        // ... then all of the topic's
        Api.Response all = api.post("/dead/cb-broken/requeue", null);
        assertThat(all.status()).as("requeue all: %s", all).isEqualTo(200);
        assertThat(all.data().path("requeued").asInt()).isEqualTo(2);
        await("every requeued job is FINISHED").atMost(Duration.ofSeconds(30)).until(() -> ids.stream()
                .allMatch(id -> statusOf(api, id).equals("FINISHED")));
        assertThat(api.get("/dead/cb-broken").data().path("total").asLong()).isZero();
        assertThat(CALLBACKS.calls(path)).hasSize(12);
        ids.forEach(id -> assertThat(api.get("/jobs/" + id)
                        .data()
                        .path("job")
                        .path("attempts")
                        .asInt())
                .as("attempts count from zero after a requeue")
                .isZero());
    }

    @Test
    void a_burst_past_the_topics_in_flight_limit_is_called_back_once_each_without_a_put_back_and_counted_once() {
        Api api = new Api(port);
        String path = "/burst/" + UUID.randomUUID();
        CALLBACKS.script(path, n -> 200);
        long dueAt = System.currentTimeMillis() + 1_500;
        List<Map<String, Object>> jobs = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            jobs.add(Map.of("topic", "cb-burst", "body", "burst " + i, "executeAt", dueAt, "url", CALLBACKS.url(path)));
        }
        Api.Response pushed = api.postJson("/push/batch", jobs);
        assertThat(pushed.status()).as("push/batch: %s", pushed).isEqualTo(200);
        List<String> ids = new ArrayList<>();
        pushed.data().forEach(id -> ids.add(id.asText()));

        await("every job of the burst is FINISHED")
                .atMost(Duration.ofSeconds(60))
                .until(() -> journal.count(ids, JobStatus.FINISHED) == ids.size());

        assertThat(CALLBACKS.calls(path))
                .extracting(Call::jobId)
                .as("each job called back once")
                .containsExactlyInAnyOrderElementsOf(ids);
        assertThat(ids).allSatisfy(id -> assertThat(journal.of(id))
                .extracting(Transition::event)
                .as("transitions of %s", id)
                .doesNotContain(JobEvent.DEFERRED));
        assertThat(api.get("/actuator/prometheus").raw())
                .as("one hand-over per job")
                .contains("delay_jobs_handed_over_total{topic=\"cb-burst\"} 1000.0");
    }

    @Test
    void dead_letter_api_rejects_bad_input_naming_the_field() {
        Api api = new Api(port);

        Api.Response badTopic = api.get("/dead/no%20spaces");
        Api.Response badLimit = api.get("/dead/cb-broken?limit=0");
        Api.Response badBody = api.post("/dead/cb-broken/requeue", "{\"ids\": \"one\"}");
        Api.Response noIds = api.post("/dead/cb-broken/requeue", "{}");
        Api.Response missingUrl = api.postJson("/push", Map.of("topic", "cb-flaky", "body", "b"));

        assertThat(badTopic.status()).isEqualTo(400);
        assertThat(badTopic.message()).startsWith("topic");
        assertThat(badLimit.status()).isEqualTo(400);
        assertThat(badLimit.message()).startsWith("limit");
        assertThat(badBody.status()).isEqualTo(400);
        assertThat(badBody.message()).startsWith("ids");
        assertThat(noIds.status()).isEqualTo(400);
        assertThat(noIds.message()).startsWith("ids");
        assertThat(missingUrl.status()).isEqualTo(400);
        assertThat(missingUrl.message()).startsWith("url");
    }
}
