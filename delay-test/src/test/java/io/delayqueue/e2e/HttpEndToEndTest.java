package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.RecordingDispatcherConfig;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.ServiceTest;
import io.delayqueue.queue.testing.RecordingDispatcher;
import io.delayqueue.queue.testing.RecordingDispatcher.Delivery;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The service as a client sees it: jobs pushed over HTTP come back through a dispatcher at their due time. */
@ServiceTest(properties = "delay.dispatch.default=" + RecordingDispatcher.NAME)
@Import(RecordingDispatcherConfig.class)
class HttpEndToEndTest {
    static final ServiceStores STORES = ServiceStores.redisAndJournal("http");
    private static final String TOPIC = "e2e.http";
    private static final int JOBS = 1000;
    private static final int MAX_DELAY_MS = 3000;
    private static final String BURST_TOPIC = "e2e.burst";
    private static final int BURST = 5000;

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        STORES.register(registry);
    }

    @LocalServerPort
    int port;

    @Autowired
    RecordingDispatcher recorder;

    /** What the client knows about a job it pushed: its delay and when the push was sent. */
    private record Pushed(long delayMs, long sentAtMs) {}

    @Test
    void thousand_jobs_pushed_over_http_are_each_delivered_exactly_once_and_never_before_their_due_time() {
        Api api = new Api(port);
        long finishedBefore = api.countOf("FINISHED");
        long seed = System.nanoTime();
        Random random = new Random(seed);
        List<Map<String, Object>> requests = new ArrayList<>();
        for (int i = 0; i < JOBS; i++) {
            Map<String, Object> job = new LinkedHashMap<>();
            job.put("topic", TOPIC);
            job.put("body", "job " + i);
            job.put("bizKey", "biz-" + i);
            job.put("delay", (long) random.nextInt(MAX_DELAY_MS + 1));
            requests.add(job);
        }

        // chunks of 100: even chunks go one job per POST /push (16 in flight), odd ones as one POST /push/batch
        Map<String, Pushed> pushed = new ConcurrentHashMap<>();
        List<String> failures = new ArrayList<>();
        Semaphore inFlight = new Semaphore(16);
        List<CompletableFuture<Void>> singles = new ArrayList<>();
        int singlePushes = 0;
        int batchPushes = 0;
        for (int chunk = 0; chunk * 100 < JOBS; chunk++) {
            List<Map<String, Object>> part = requests.subList(chunk * 100, Math.min(JOBS, chunk * 100 + 100));
            if (chunk % 2 == 0) {
                for (Map<String, Object> job : part) {
                    inFlight.acquireUninterruptibly();
                    long sentAt = System.currentTimeMillis();
                    singlePushes++;
                    singles.add(api.sendAsync("POST", "/push", Api.toJson(job)).handle((r, error) -> {
                        inFlight.release();
                        if (error != null || r.status() != 200 || !r.success()) {
                            synchronized (failures) {
                                failures.add(error != null ? error.toString() : r.toString());
                            }
                        } else {
                            pushed.put(r.data().asText(), new Pushed((Long) job.get("delay"), sentAt));
                        }
                        return null;
                    }));
                }
            } else {
                long sentAt = System.currentTimeMillis();
                batchPushes++;
                Api.Response r = api.postJson("/push/batch", part);
                assertThat(r.status()).as("batch push answer %s", r).isEqualTo(200);
                assertThat(r.data()).hasSize(part.size());
                for (int i = 0; i < part.size(); i++) {
                    pushed.put(
                            r.data().get(i).asText(),
                            new Pushed((Long) part.get(i).get("delay"), sentAt));
                }
            }
        }
        CompletableFuture.allOf(singles.toArray(CompletableFuture[]::new)).join();
        assertThat(failures).as("failed pushes").isEmpty();
        assertThat(pushed).as("distinct job ids answered by the pushes").hasSize(JOBS);
        assertThat(singlePushes).isEqualTo(500);
        assertThat(batchPushes).isEqualTo(5);

        Set<String> ids = pushed.keySet();
        await("every pushed job was delivered")
                .atMost(Duration.ofMillis(MAX_DELAY_MS + 15_000))
                .untilAsserted(() -> assertThat((RecordingDispatcher.countById(recorder.deliveriesOf(ids))
                                        .size()
                                == JOBS))
                        .as(() -> "every pushed job was delivered" + " "
                                + ("(delivered "
                                        + RecordingDispatcher.countById(recorder.deliveriesOf(ids))
                                                .size() + " of " + JOBS + ")"))
                        .isTrue());
        // every delivery is acknowledged: nothing is left in flight that could be delivered a second time
        await("every job is FINISHED in /stats").atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                        (api.countOf("FINISHED") == finishedBefore + JOBS && nothingPending(api)))
                .as(() -> "every job is FINISHED in /stats" + " "
                        + (api.get("/stats").raw()))
                .isTrue());

        List<Delivery> deliveries = recorder.deliveriesOf(ids);
        Map<String, Integer> counts = RecordingDispatcher.countById(deliveries);
        assertThat(counts.keySet()).isEqualTo(ids);
        assertThat(counts)
                .allSatisfy((id, n) -> assertThat(n).as("deliveries of %s", id).isEqualTo(1));
        assertThat(recorder.deliveries().stream().filter(d -> d.topic().equals(TOPIC)))
                .as("deliveries of any job of the topic")
                .hasSize(JOBS);
        for (Delivery d : deliveries) {
            Pushed p = pushed.get(d.id());
            assertThat(d.topic()).isEqualTo(TOPIC);
            assertThat(d.attempts()).isZero();
            assertThat(d.wallMs())
                    .as("wall time of delivery of %s vs its executeAt", d.id())
                    .isGreaterThanOrEqualTo(d.executeAt());
            // independent of the server's own executeAt: never earlier than the client asked for
            assertThat(d.wallMs())
                    .as("wall time of delivery of %s vs push sent + delay", d.id())
                    .isGreaterThanOrEqualTo(p.sentAtMs() + p.delayMs());
            assertThat(d.executeAt()).as("executeAt of %s", d.id()).isGreaterThanOrEqualTo(p.sentAtMs() + p.delayMs());
        }

        long[] lateness =
                deliveries.stream().mapToLong(Delivery::latenessMs).sorted().toArray();
        long p50 = percentile(lateness, 50);
        long p99 = percentile(lateness, 99);
        long max = lateness[lateness.length - 1];
        System.out.println("E2E lateness ms: p50=" + p50 + " p99=" + p99 + " max=" + max + " (jobs=" + JOBS
                + ", delays 0.." + MAX_DELAY_MS + " ms, seed=" + seed + ")");
        // the scanners sleep until the earliest due time; 1-second polling would put the median near 500 ms
        assertThat(p50).as("median lateness in ms").isLessThan(250);

        // the job record agrees
        Map<String, Integer> checked = new HashMap<>();
        ids.stream().limit(50).forEach(id -> {
            Api.Response r = api.get("/jobs/" + id);
            assertThat(r.status()).as("GET /jobs/%s: %s", id, r).isEqualTo(200);
            JsonNode data = r.data();
            assertThat(data.path("status").asText()).isEqualTo("FINISHED");
            assertThat(data.path("job").path("id").asText()).isEqualTo(id);
            assertThat(data.path("job").path("topic").asText()).isEqualTo(TOPIC);
            assertThat(data.path("job").path("attempts").asInt()).isZero();
            checked.merge(data.path("status").asText(), 1, Integer::sum);
        });
        assertThat(checked).containsEntry("FINISHED", 50);
    }

    private static long percentile(long[] sorted, int pct) {
        int index = (int) Math.ceil(pct / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    @Test
    void five_thousand_jobs_due_in_the_same_millisecond_are_all_delivered_exactly_once() {
        // more than a scan batch (500) per shard is due at once: the scanners must come back for the rest
        // at once instead of sleeping
        Api api = new Api(port);
        long finishedBefore = api.countOf("FINISHED");
        // room for the sync journal on a busy machine: a due time already past when a job arrives is "now"
        long dueAt = System.currentTimeMillis() + 4000;
        Set<String> ids = new HashSet<>();
        List<CompletableFuture<Api.Response>> batches = new ArrayList<>();
        for (int from = 0; from < BURST; from += 1000) {
            List<Map<String, Object>> batch = new ArrayList<>();
            for (int i = from; i < from + 1000; i++) {
                batch.add(Map.of("topic", BURST_TOPIC, "body", "burst " + i, "executeAt", dueAt));
            }
            batches.add(api.sendAsync("POST", "/push/batch", Api.toJson(batch)));
        }
        for (CompletableFuture<Api.Response> f : batches) {
            Api.Response r = f.join();
            assertThat(r.status()).as("batch push: %s", r).isEqualTo(200);
            r.data().forEach(id -> ids.add(id.asText()));
        }
        assertThat(System.currentTimeMillis())
                .as("pushes answered before the burst's due time (the machine is too busy)")
                .isLessThan(dueAt);
        assertThat(ids).hasSize(BURST);

        await("every job of the burst was delivered and acknowledged")
                .atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat((RecordingDispatcher.countById(recorder.deliveriesOf(ids))
                                                .size()
                                        == BURST
                                && api.countOf("FINISHED") == finishedBefore + BURST
                                && nothingPending(api)))
                        .as(() -> "every job of the burst was delivered and acknowledged" + " "
                                + ("(delivered "
                                        + RecordingDispatcher.countById(recorder.deliveriesOf(ids))
                                                .size() + " of " + BURST + "; "
                                        + api.get("/stats").raw() + ")"))
                        .isTrue());

        List<Delivery> deliveries = recorder.deliveriesOf(ids);
        assertThat(RecordingDispatcher.countById(deliveries))
                .allSatisfy((id, n) -> assertThat(n).as("deliveries of %s", id).isEqualTo(1));
        assertThat(deliveries).hasSize(BURST);
        assertThat(deliveries).allSatisfy(d -> {
            assertThat(d.executeAt()).isEqualTo(dueAt);
            assertThat(d.wallMs()).isGreaterThanOrEqualTo(dueAt);
        });
        long last = deliveries.stream().mapToLong(Delivery::wallMs).max().orElseThrow();
        System.out.println("E2E burst: " + BURST + " jobs due in one ms, the last handed over " + (last - dueAt)
                + " ms after their due time");
    }

    @Test
    void an_id_reused_with_another_job_is_a_conflict_naming_the_id_and_the_field_and_changes_nothing() {
        Api api = new Api(port);
        String id = "order-" + UUID.randomUUID();
        long due = System.currentTimeMillis() + 600_000;
        Map<String, Object> job = Map.of("id", id, "topic", "e2e.conflict", "body", "close order", "executeAt", due);
        assertThat(api.postJson("/push", job).message()).isEqualTo("created");

        Api.Response same = api.postJson("/push", job);
        assertThat(same.status()).as("the same job again: %s", same).isEqualTo(200);
        assertThat(same.data().asText()).isEqualTo(id);
        assertThat(same.message()).isEqualTo("a job with this id already exists");

        Map<String, Object> otherBody = new LinkedHashMap<>(job);
        otherBody.put("body", "cancel order");
        Api.Response body = api.postJson("/push", otherBody);
        assertThat(body.status()).as("another body: %s", body).isEqualTo(409);
        assertThat(body.data().asText()).isEqualTo(id);
        assertThat(body.message()).startsWith("body: ").contains("'" + id + "'");

        Map<String, Object> otherDue = new LinkedHashMap<>(job);
        otherDue.put("executeAt", due + 1000);
        Api.Response dueTime = api.postJson("/push", otherDue);
        assertThat(dueTime.status()).as("another due time: %s", dueTime).isEqualTo(409);
        assertThat(dueTime.message()).startsWith("executeAt: ").contains("'" + id + "'");

        // a batch: a new job, the same job again, and the id with another topic; each job in order in data
        String fresh = "order-" + UUID.randomUUID();
        Map<String, Object> otherTopic = new LinkedHashMap<>(job);
        otherTopic.put("topic", "e2e.conflict.other");
        Api.Response batch = api.postJson(
                "/push/batch",
                List.of(
                        Map.of("id", fresh, "topic", "e2e.conflict", "body", "new order", "delay", 600_000),
                        job,
                        otherTopic));
        assertThat(batch.status())
                .as("a batch with a conflicting job: %s", batch)
                .isEqualTo(409);
        List<String> ids = new ArrayList<>();
        batch.data().forEach(d -> ids.add(d.asText()));
        assertThat(ids).containsExactly(fresh, id, id);
        assertThat(batch.message()).startsWith("[2].topic: id '" + id + "'").contains("1 created, 1 already existed");
        assertThat(api.get("/jobs/" + fresh).data().path("job").path("body").asText())
                .as("the batch's other jobs are pushed")
                .isEqualTo("new order");

        JsonNode kept = api.get("/jobs/" + id).data().path("job");
        assertThat(kept.path("body").asText())
                .as("the job the id names is kept")
                .isEqualTo("close order");
        assertThat(kept.path("topic").asText()).isEqualTo("e2e.conflict");
        assertThat(kept.path("executeAt").asLong()).isEqualTo(due);
        api.delete("/jobs/" + id);
        api.delete("/jobs/" + fresh);
    }

    @Test
    void pushing_the_same_client_id_twice_makes_one_job_that_is_delivered_once() {
        Api api = new Api(port);
        String id = "order-" + UUID.randomUUID();
        Map<String, Object> job = Map.of("id", id, "topic", "e2e.idempotent", "body", "close order", "delay", 300);

        Api.Response first = api.postJson("/push", job);
        // a retry: the same job, its due time again a delay from now
        Api.Response second = api.postJson("/push", job);

        assertThat(first.status()).as("first push: %s", first).isEqualTo(200);
        assertThat(first.data().asText()).isEqualTo(id);
        assertThat(first.message()).isEqualTo("created");
        assertThat(second.status()).as("second push: %s", second).isEqualTo(200);
        assertThat(second.data().asText()).isEqualTo(id);
        assertThat(second.message()).isEqualTo("a job with this id already exists");

        await("the job is FINISHED")
                .atMost(Duration.ofSeconds(10))
                .until(() ->
                        api.get("/jobs/" + id).data().path("status").asText().equals("FINISHED"));
        List<Delivery> deliveries = recorder.deliveriesOf(Set.of(id));
        assertThat(deliveries).hasSize(1);
        // the first push won: its body and its delay
        assertThat(api.get("/jobs/" + id).data().path("job").path("body").asText())
                .isEqualTo("close order");
        assertThat(deliveries.get(0).wallMs() - deliveries.get(0).executeAt()).isNotNegative();
    }

    private static boolean nothingPending(Api api) {
        return api.countOf("RESERVED") == 0 && api.countOf("DELAY") == 0 && api.countOf("READY") == 0;
    }
}
