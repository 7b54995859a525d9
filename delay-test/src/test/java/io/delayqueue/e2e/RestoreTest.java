package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayqueue.common.JobIds;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.RecordingDispatcherConfig;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.ServiceTest;
import io.delayqueue.queue.engine.EngineConfig;
import io.delayqueue.queue.testing.RecordingDispatcher;
import io.delayqueue.queue.testing.RecordingDispatcher.Delivery;
import io.delayqueue.queue.testing.RedisFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import redis.clients.jedis.Jedis;

/**
 * Redis lost, the MariaDB journal kept: {@code GET /reStore} brings back every pending job exactly once,
 * never a deleted or cleared one, and running it again changes nothing. Each test leaves its jobs in a
 * final state, so that the counts a restore reports belong to the test that asks.
 */
@ServiceTest(
        properties = {
            "delay.dispatch.default=" + RecordingDispatcher.NAME,
            "delay.dispatch.topics." + RestoreTest.PULL + "=pull",
            // the reconciler would heal the wiped Redis by itself; here only explicit restores may
            "delay.journal.reconcile-grace=10m",
            // and so would the tier loader, which reloads the horizon when Redis lost its watermark
            "delay.tier.horizon=0",
            // and the fail-over protocol, which replays the journal's recent past onto a Redis that lost its data
            "delay.scanner.replay-window=1ms"
        })
@Import(RecordingDispatcherConfig.class)
class RestoreTest {
    static final ServiceStores STORES = ServiceStores.redisAndJournal("restore");
    static final String PULL = "e2erestorepull";
    private static final Duration WAIT = Duration.ofSeconds(90);

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        STORES.register(registry);
    }

    @LocalServerPort
    int port;

    @Autowired
    RecordingDispatcher recorder;

    @Autowired
    EngineConfig engineConfig;

    @Test
    void ten_thousand_jobs_come_back_exactly_once_after_their_redis_is_wiped_and_a_second_restore_changes_nothing() {
        Api api = new Api(port);
        String topic = "e2e.restore.10k";
        int jobs = 10_000;
        Random random = new Random();
        List<CompletableFuture<Api.Response>> batches = new ArrayList<>();
        for (int b = 0; b < jobs / 1000; b++) {
            List<Map<String, Object>> batch = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                batch.add(job(topic, "job " + (b * 1000 + i), 10_000 + random.nextInt(2_001)));
            }
            batches.add(api.sendAsync("POST", "/push/batch", Api.toJson(batch)));
        }
        List<String> ids = new ArrayList<>();
        for (CompletableFuture<Api.Response> f : batches) {
            Api.Response r = f.join();
            assertThat(r.status()).as("batch push: %s", r).isEqualTo(200);
            r.data().forEach(id -> ids.add(id.asText()));
        }
        Set<String> idSet = Set.copyOf(ids);
        assertThat(idSet).hasSize(jobs);
        assertThat(STORES.journal().queryLong("SELECT COUNT(*) FROM delay_queue_job WHERE topic = '" + topic + "'"))
                .as("journaled rows once every push was answered")
                .isEqualTo(jobs);
        assertThat(recorder.deliveriesOf(idSet))
                .as("deliveries before the wipe (pushing 10,000 jobs took over 10 s?)")
                .isEmpty();

        // "FLUSHALL" of this test's Redis
        assertThat(STORES.redis().deleteAllKeys()).as("keys wiped").isPositive();
        assertThat(STORES.redis().allKeys()).isEmpty();

        Api.Response first = api.get("/reStore");
        assertThat(first.status()).as("first restore: %s", first).isEqualTo(200);
        assertThat(first.data().path("restored").asLong())
                .as("restored: %s", first)
                .isEqualTo(jobs);
        assertThat(first.data().path("alreadyPresent").asLong()).isZero();
        assertThat(first.message()).contains(jobs + " restored");

        Api.Response second = api.get("/reStore");
        assertThat(second.status()).as("second restore: %s", second).isEqualTo(200);
        assertThat(second.data().path("restored").asLong())
                .as("restored again: %s", second)
                .isZero();
        assertThat(second.data().path("alreadyPresent").asLong()).isEqualTo(jobs);

        await("all " + jobs + " restored jobs are delivered").atMost(WAIT).untilAsserted(() -> assertThat(
                        (RecordingDispatcher.countById(recorder.deliveriesOf(idSet))
                                        .size()
                                == jobs))
                .as(() -> "all " + jobs + " restored jobs are delivered" + " "
                        + (RecordingDispatcher.countById(recorder.deliveriesOf(idSet))
                                        .size() + " delivered"))
                .isTrue());
        await("the journal has all " + jobs + " FINISHED").atMost(WAIT).untilAsserted(() -> assertThat(
                        (countInDb(topic, "FINISHED") == jobs))
                .as(() -> "the journal has all " + jobs + " FINISHED" + " "
                        + (countInDb(topic, "FINISHED") + " finished"))
                .isTrue());
        Api.Response third = api.get("/reStore");
        assertThat(third.data().path("restored").asLong())
                .as("restore after delivery: %s", third)
                .isZero();
        assertThat(third.data().path("scanned").asLong())
                .as("non-final jobs left: %s", third)
                .isZero();

        List<Delivery> deliveries = recorder.deliveriesOf(idSet);
        Map<String, Integer> counts = RecordingDispatcher.countById(deliveries);
        Map<String, Integer> twice = counts.entrySet().stream()
                .filter(e -> e.getValue() > 1)
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
        assertThat(twice).as("jobs delivered more than once").isEmpty();
        assertThat(counts.keySet()).containsExactlyInAnyOrderElementsOf(idSet);
        assertThat(deliveries).as("deliveries before their due time").allSatisfy(d -> assertThat(d.wallMs())
                .isGreaterThanOrEqualTo(d.executeAt()));
        assertThat(events(api, ids.get(0))).containsExactly("CREATED", "RESTORED", "RESERVED", "FINISHED");
    }

    @Test
    void a_deleted_job_is_neither_restored_nor_delivered_after_redis_is_wiped() {
        Api api = new Api(port);
        String topic = "e2e.restore.deleted";
        List<String> ids = push(api, List.of(job(topic, "to delete", 2_000), job(topic, "to keep", 2_000)));
        String deleted = ids.get(0);
        String kept = ids.get(1);
        Api.Response delete = api.get("/delete?jobId=" + deleted);
        assertThat(delete.status()).as("delete: %s", delete).isEqualTo(200);
        assertThat(statusInDb(deleted))
                .as("journaled status once the delete is answered")
                .isEqualTo("DELETED");

        STORES.redis().deleteAllKeys();
        Api.Response restore = api.get("/reStore");
        assertThat(restore.status()).as("restore: %s", restore).isEqualTo(200);
        assertThat(restore.data().path("restored").asLong())
                .as("restored: %s", restore)
                .isEqualTo(1);
        assertThat(restore.data().path("scanned").asLong())
                .as("scanned: %s", restore)
                .isEqualTo(1);
        Api.Response one = api.get("/reStoreJob?jobId=" + deleted);
        assertThat(one.status()).as("restoreJob of the deleted job: %s", one).isEqualTo(409);
        assertThat(one.message()).contains("DELETED");
        Api.Response again = api.get("/reStoreJob?jobId=" + kept);
        assertThat(again.status()).as("restoreJob of the kept job: %s", again).isEqualTo(200);
        assertThat(again.data().path("restored").asLong())
                .as("restoreJob: %s", again)
                .isZero();
        assertThat(again.message()).isEqualTo("already in Redis");
        assertThat(inRedis(deleted))
                .as("deleted job in Redis after the restores")
                .isFalse();
        assertThat(inRedis(kept)).isTrue();

        await("the kept job is delivered").atMost(WAIT).until(() -> !recorder.deliveriesOf(Set.of(kept))
                .isEmpty());
        await("the kept job is FINISHED in the journal").atMost(WAIT).until(() -> "FINISHED".equals(statusInDb(kept)));
        assertThat(recorder.deliveriesOf(Set.of(deleted)))
                .as("deliveries of the deleted job")
                .isEmpty();
        assertThat(inRedis(deleted)).isFalse();
        assertThat(events(api, deleted)).containsExactly("CREATED", "DELETED");
    }

    @Test
    void clear_all_deletes_every_pending_job_and_a_later_restore_does_not_bring_them_back() {
        Api api = new Api(port);
        String topic = "e2e.restore.clear";
        List<String> ids =
                push(api, List.of(job(topic, "a", 3_600_000), job(topic, "b", 3_600_000), job(PULL, "c", 3_600_000)));

        Api.Response unconfirmed = api.get("/clearAll");
        assertThat(unconfirmed.status())
                .as("clearAll without confirm: %s", unconfirmed)
                .isEqualTo(400);
        assertThat(ids).allSatisfy(id -> assertThat(inRedis(id)).isTrue());

        Api.Response cleared = api.get("/clearAll?confirm=true");
        assertThat(cleared.status()).as("clearAll: %s", cleared).isEqualTo(200);
        assertThat(cleared.data().asLong()).as("deleted: %s", cleared).isEqualTo(3);
        for (String id : ids) {
            assertThat(statusInDb(id)).as("journaled status of %s", id).isEqualTo("DELETED");
            assertThat(api.get("/jobs/" + id).data().path("status").asText()).isEqualTo("DELETED");
        }

        STORES.redis().deleteAllKeys();
        Api.Response restore = api.get("/reStore");
        assertThat(restore.status()).isEqualTo(200);
        assertThat(restore.data().path("restored").asLong())
                .as("restored: %s", restore)
                .isZero();
        assertThat(ids)
                .allSatisfy(id -> assertThat(inRedis(id)).as("%s in Redis", id).isFalse());
        List<JsonNode> history = history(api, ids.get(0));
        JsonNode last = history.get(history.size() - 1);
        assertThat(last.path("event").asText()).isEqualTo("DELETED");
        assertThat(last.path("detail").asText()).isEqualTo("clearAll");
    }

    @Test
    void a_restore_with_expire_false_skips_jobs_already_due_and_a_plain_restore_brings_them_back() {
        Api api = new Api(port);
        List<String> ids = push(api, List.of(job(PULL, "due now", 0), job(PULL, "due later", 3_600_000)));
        String due = ids.get(0);
        String later = ids.get(1);
        await("the due job is READY in the journal").atMost(WAIT).until(() -> "READY".equals(statusInDb(due)));

        STORES.redis().deleteAllKeys();
        Api.Response skipping = api.get("/reStore?expire=false");
        assertThat(skipping.status()).as("restore: %s", skipping).isEqualTo(200);
        assertThat(skipping.data().path("restored").asLong())
                .as("restored: %s", skipping)
                .isEqualTo(1);
        assertThat(skipping.data().path("skippedExpired").asLong()).isEqualTo(1);
        assertThat(inRedis(due)).as("the due job after expire=false").isFalse();
        assertThat(inRedis(later)).isTrue();

        Api.Response all = api.get("/reStore?expire=true");
        assertThat(all.data().path("restored").asLong()).as("restored: %s", all).isEqualTo(1);
        assertThat(all.data().path("alreadyPresent").asLong()).isEqualTo(1);
        assertThat(inRedis(due)).isTrue();

        Api.Response got = api.get("/get/" + PULL + "?timeout=10000");
        assertThat(got.status()).as("pull: %s", got).isEqualTo(200);
        assertThat(got.data().path("id").asText()).isEqualTo(due);
        assertThat(api.get("/finish?jobId=" + due).status()).isEqualTo(200);
        assertThat(api.get("/delete?jobId=" + later).status()).isEqualTo(200);
        await("the due job is FINISHED in the journal").atMost(WAIT).until(() -> "FINISHED".equals(statusInDb(due)));
        assertRestoredHistory(events(api, due), 2, "CREATED", "READY", "READY", "RESERVED", "FINISHED");
    }

    @Test
    void the_history_of_a_job_shows_every_transition_from_creation_to_finish() {
        Api api = new Api(port);
        List<String> ids = push(api, List.of(job("e2e.restore.history", "pushed", 100), job(PULL, "pulled", 0)));
        String pushed = ids.get(0);
        String pulled = ids.get(1);
        Api.Response got = api.get("/get/" + PULL + "?timeout=10000");
        assertThat(got.data().path("id").asText()).as("pull: %s", got).isEqualTo(pulled);
        assertThat(api.post("/jobs/" + pulled + "/finish", null).status()).isEqualTo(200);

        await("both jobs are FINISHED in the journal")
                .atMost(WAIT)
                .until(() -> "FINISHED".equals(statusInDb(pushed)) && "FINISHED".equals(statusInDb(pulled)));
        assertThat(events(api, pushed)).containsExactly("CREATED", "RESERVED", "FINISHED");
        assertThat(events(api, pulled)).containsExactly("CREATED", "READY", "RESERVED", "FINISHED");
        List<JsonNode> history = history(api, pulled);
        assertThat(history.get(0).path("to").asText()).isEqualTo("DELAY");
        assertThat(history.get(1).path("from").asText()).isEqualTo("DELAY");
        assertThat(history.get(1).path("to").asText()).isEqualTo("READY");
        assertThat(history.get(3).path("from").asText()).isEqualTo("RESERVED");
        assertThat(history.get(3).path("to").asText()).isEqualTo("FINISHED");
        long previous = 0;
        for (JsonNode e : history) {
            assertThat(e.path("host").asText()).isNotBlank();
            assertThat(e.path("at").asLong()).as("times in order").isGreaterThanOrEqualTo(previous);
            previous = e.path("at").asLong();
        }
        Api.Response job = api.get("/jobs/" + pulled);
        assertThat(job.data().path("status").asText()).isEqualTo("FINISHED");
        assertThat(job.data().path("job").path("body").asText()).isEqualTo("pulled");
    }

    // ---- helpers ----

    private static Map<String, Object> job(String topic, String body, long delayMs) {
        Map<String, Object> job = new LinkedHashMap<>();
        job.put("topic", topic);
        job.put("body", body);
        job.put("delay", delayMs);
        return job;
    }

    private static List<String> push(Api api, List<Map<String, Object>> jobs) {
        Api.Response r = api.postJson("/push/batch", jobs);
        assertThat(r.status()).as("push: %s", r).isEqualTo(200);
        List<String> ids = new ArrayList<>();
        r.data().forEach(id -> ids.add(id.asText()));
        return ids;
    }

    private boolean inRedis(String id) {
        String pool = "{" + STORES.prefix() + ":" + JobIds.shardOf(id, engineConfig.shards()) + "}:pool";
        try (Jedis jedis = new Jedis(RedisFixture.HOST, RedisFixture.PORT)) {
            return jedis.hexists(pool, id);
        }
    }

    private static String statusInDb(String id) {
        List<String> s = STORES.journal().queryStrings("SELECT status FROM delay_queue_job WHERE id = '" + id + "'");
        return s.isEmpty() ? null : s.get(0);
    }

    private static long countInDb(String topic, String status) {
        return STORES.journal()
                .queryLong("SELECT COUNT(*) FROM delay_queue_job WHERE topic = '" + topic + "' AND status = '" + status
                        + "'");
    }

    static List<JsonNode> history(Api api, String id) {
        Api.Response r = api.get("/jobs/" + id);
        assertThat(r.status()).as("GET /jobs/%s: %s", id, r).isEqualTo(200);
        List<JsonNode> out = new ArrayList<>();
        r.data().path("history").forEach(out::add);
        return out;
    }

    static List<String> events(Api api, String id) {
        return eventsOf(history(api, id));
    }

    static List<String> eventsOf(Collection<JsonNode> history) {
        return history.stream().map(e -> e.path("event").asText()).toList();
    }

    /**
     * The history of a job restored when it was already due: one RESTORED after the first {@code before}
     * events, and otherwise {@code others} in order. (A scanner pass may hand the job over between its return
     * to Redis and the journaling of its RESTORED, so RESTORED may follow READY or RESERVED.)
     */
    static void assertRestoredHistory(List<String> events, int before, String... others) {
        assertThat(events).as("history").containsOnlyOnce("RESTORED");
        assertThat(events.indexOf("RESTORED"))
                .as("position of RESTORED in %s", events)
                .isGreaterThanOrEqualTo(before);
        List<String> rest = new ArrayList<>(events);
        rest.remove("RESTORED");
        assertThat(rest).as("history without RESTORED").containsExactly(others);
    }
}
