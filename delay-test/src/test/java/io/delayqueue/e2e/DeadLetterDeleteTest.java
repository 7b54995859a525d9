package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.RecordingDispatcherConfig;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.ServiceTest;
import io.delayqueue.queue.testing.RecordingDispatcher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Dead letters deleted by an operator, against the service on Redis and MariaDB: one ({@code DELETE /jobs/{id}}),
 * chosen ones and all of a topic ({@code POST /dead/{topic}/delete}), each {@code DELETED} in the journal when it is
 * answered, so that neither a requeue nor a restore after Redis lost everything brings one back.
 */
@ServiceTest(properties = {"delay.dispatch.default=" + RecordingDispatcher.NAME})
@Import(RecordingDispatcherConfig.class)
class DeadLetterDeleteTest {
    static final ServiceStores STORES = ServiceStores.redisAndJournal("dead-delete");
    private static final Duration WAIT = Duration.ofSeconds(30);

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        STORES.register(registry);
    }

    @LocalServerPort
    int port;

    @Autowired
    RecordingDispatcher recorder;

    @BeforeEach
    void everySendFails() {
        recorder.failSends(true);
    }

    /** Jobs of {@code topic} with one attempt each, pushed and left to die. */
    static List<String> deadLetters(Api api, String topic, int n, long executeAt) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Map<String, Object> job = new LinkedHashMap<>();
            job.put("topic", topic);
            job.put("body", "dead letter " + i);
            job.put("executeAt", executeAt);
            job.put("maxAttempts", 1);
            Api.Response r = api.postJson("/push", job);
            assertThat(r.status()).as("push: %s", r).isEqualTo(200);
            ids.add(r.data().asText());
        }
        await("every job of " + topic + " is dead").atMost(WAIT).until(() -> ids.stream()
                .allMatch(id -> statusOf(api, id).equals("DEAD")));
        return ids;
    }

    static String statusOf(Api api, String id) {
        return api.get("/jobs/" + id).data().path("job").path("status").asText();
    }

    static String journaled(String id) {
        return journaled(STORES, id);
    }

    /** The job's status in the journal of {@code stores}. */
    static String journaled(ServiceStores stores, String id) {
        return stores.journal()
                .queryStrings("SELECT status FROM delay_queue_job WHERE id = '" + id + "'")
                .get(0);
    }

    @Test
    void an_operator_deletes_one_chosen_and_all_dead_letters_and_none_comes_back_after_a_restore() {
        Api api = new Api(port);
        String topic = "dead.delete";
        List<String> ids = deadLetters(api, topic, 6, System.currentTimeMillis());
        assertThat(api.get("/dead/" + topic).data().path("total").asLong()).isEqualTo(6);

        // one, as any job is deleted
        Api.Response one = api.delete("/jobs/" + ids.get(0));
        assertThat(one.status()).as("DELETE a dead job: %s", one).isEqualTo(200);
        assertThat(journaled(ids.get(0)))
                .as("committed in the journal when answered")
                .isEqualTo("DELETED");
        assertThat(statusOf(api, ids.get(0))).isEqualTo("DELETED");
        assertThat(api.delete("/jobs/" + ids.get(0)).status())
                .as("deleting it again")
                .isEqualTo(200);

        // chosen ones; an id that is no dead job of the topic is named, not an error
        Api.Response chosen = api.postJson(
                "/dead/" + topic + "/delete", Map.of("ids", List.of(ids.get(1), ids.get(2), ids.get(0), "0-unknown")));
        assertThat(chosen.status()).as("delete chosen: %s", chosen).isEqualTo(200);
        assertThat(chosen.data().path("deleted").asInt()).isEqualTo(2);
        assertThat(chosen.data().path("notDeleted").path("0-unknown").asText()).isEqualTo("NOT_FOUND");
        assertThat(chosen.data().path("notDeleted").path(ids.get(0)).asText()).isEqualTo("DELETED");
        assertThat(chosen.message()).isEqualTo("2 deleted, 2 not dead jobs of " + topic);
        assertThat(api.get("/dead/" + topic).data().path("total").asLong()).isEqualTo(3);

        // a requeue cannot bring a deleted one back
        Api.Response requeue = api.postJson("/dead/" + topic + "/requeue", Map.of("ids", List.of(ids.get(1))));
        assertThat(requeue.data().path("requeued").asInt()).isZero();
        assertThat(requeue.data().path("notRequeued").path(ids.get(1)).asText()).isEqualTo("DELETED");

        // all of the topic's
        Api.Response all = api.post("/dead/" + topic + "/delete", null);
        assertThat(all.status()).as("delete all: %s", all).isEqualTo(200);
        assertThat(all.data().path("deleted").asInt()).isEqualTo(3);
        assertThat(api.get("/dead/" + topic).data().path("total").asLong()).isZero();
        ids.forEach(id -> assertThat(journaled(id)).as(id).isEqualTo("DELETED"));

        // Redis loses everything; the journal restores nothing of them
        assertThat(STORES.redis().deleteAllKeys()).isPositive();
        Api.Response restore = api.get("/reStore?expire=true");
        assertThat(restore.status()).as("restore: %s", restore).isEqualTo(200);
        assertThat(api.get("/dead/" + topic).data().path("total").asLong()).isZero();
        ids.forEach(id -> assertThat(statusOf(api, id)).as(id).isEqualTo("DELETED"));
        Api.Response requeueAll = api.post("/dead/" + topic + "/requeue", null);
        assertThat(requeueAll.data().path("requeued").asInt()).isZero();
        assertThat(recorder.deliveriesOf(java.util.Set.copyOf(ids))).hasSize(ids.size());
    }

    @Test
    void a_delete_of_dead_letters_names_bad_input() {
        Api api = new Api(port);
        Api.Response badTopic = api.post("/dead/no%20spaces/delete", null);
        assertThat(badTopic.status()).as("%s", badTopic).isEqualTo(400);
        assertThat(badTopic.message()).startsWith("topic ");
        for (String body : List.of("{}", "{\"ids\": []}", "{\"ids\": [\" \"]}", "{\"ids\": \"one\"}")) {
            Api.Response r = api.post("/dead/dead.bad/delete", body);
            assertThat(r.status()).as("%s: %s", body, r).isEqualTo(400);
            assertThat(r.message()).as(body).startsWith("ids");
        }
    }
}
