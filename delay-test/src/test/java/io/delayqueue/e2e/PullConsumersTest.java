package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.ServiceTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** Pull topics consumed over HTTP: {@code GET /get/{topic}} long-polls, {@code POST /jobs/{id}/finish} acks. */
@ServiceTest(
        properties = {
            "delay.dispatch.topics." + PullConsumersTest.SHARED + "=pull",
            "delay.dispatch.topics." + PullConsumersTest.TTR + "=pull",
            "delay.dispatch.topics." + PullConsumersTest.GONE + "=pull"
        })
class PullConsumersTest {
    static final ServiceStores STORES = ServiceStores.redisAndJournal("pull");
    static final String SHARED = "e2epull";
    static final String TTR = "e2ettr";
    static final String GONE = "e2egone";
    private static final int JOBS = 500;

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        STORES.register(registry);
    }

    @LocalServerPort
    int port;

    @Test
    void two_consumers_long_polling_one_topic_never_receive_the_same_reservation() throws Exception {
        Api api = new Api(port);
        Set<String> pushed = ConcurrentHashMap.newKeySet();
        Map<String, List<String>> received = new ConcurrentHashMap<>();
        List<String> problems = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch bothPolling = new CountDownLatch(2);
        ExecutorService consumers = Executors.newFixedThreadPool(2);
        List<Future<?>> running = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        try {
            for (String name : List.of("consumer-a", "consumer-b")) {
                List<String> mine = Collections.synchronizedList(new ArrayList<>());
                received.put(name, mine);
                running.add(consumers.submit(() -> {
                    bothPolling.countDown();
                    while (System.nanoTime() - deadline < 0) {
                        int total =
                                received.values().stream().mapToInt(List::size).sum();
                        if (total >= JOBS && !pushed.isEmpty()) {
                            return;
                        }
                        Api.Response r = api.get("/get/" + SHARED + "?timeout=1000");
                        if (r.status() != 200 || !r.success()) {
                            problems.add(name + " GET /get: " + r);
                            return;
                        }
                        JsonNode job = r.data();
                        if (job.isNull()) {
                            continue;
                        }
                        String id = job.path("id").asText();
                        if (!job.path("status").asText().equals("RESERVED")) {
                            problems.add(name + " got " + id + " in status " + job.path("status"));
                        }
                        mine.add(id);
                        Api.Response f = api.post("/jobs/" + id + "/finish", null);
                        if (f.status() != 200) {
                            problems.add(name + " could not finish " + id + ": " + f);
                        }
                    }
                    problems.add(name + " ran out of time");
                }));
            }
            assertThat(bothPolling.await(10, TimeUnit.SECONDS)).isTrue();

            // due over the next second, so consumers are served both from waiting and from a full ready list
            Random random = new Random();
            for (int from = 0; from < JOBS; from += 100) {
                List<Map<String, Object>> batch = new ArrayList<>();
                for (int i = from; i < from + 100; i++) {
                    Map<String, Object> job = new LinkedHashMap<>();
                    job.put("topic", SHARED);
                    job.put("body", "pull " + i);
                    job.put("delay", (long) random.nextInt(1000));
                    batch.add(job);
                }
                Api.Response r = api.postJson("/push/batch", batch);
                assertThat(r.status()).as("batch push: %s", r).isEqualTo(200);
                r.data().forEach(id -> pushed.add(id.asText()));
            }
            assertThat(pushed).hasSize(JOBS);
            for (Future<?> f : running) {
                f.get(40, TimeUnit.SECONDS);
            }
        } finally {
            consumers.shutdownNow();
        }
        assertThat(problems).isEmpty();

        List<String> a = received.get("consumer-a");
        List<String> b = received.get("consumer-b");
        System.out.println("E2E pull: consumer-a got " + a.size() + ", consumer-b got " + b.size());
        assertThat(a).as("consumer-a's jobs").doesNotHaveDuplicates();
        assertThat(b).as("consumer-b's jobs").doesNotHaveDuplicates();
        Set<String> both = new HashSet<>(a);
        both.retainAll(b);
        assertThat(both).as("jobs reserved by both consumers").isEmpty();
        Set<String> union = new HashSet<>(a);
        union.addAll(b);
        assertThat(union).as("jobs reserved by either consumer").isEqualTo(pushed);
        assertThat(a).as("consumer-a's jobs").isNotEmpty();
        assertThat(b).as("consumer-b's jobs").isNotEmpty();

        for (String id : union.stream().limit(25).toList()) {
            Api.Response r = api.get("/jobs/" + id);
            assertThat(r.data().path("status").asText()).as("status of %s", id).isEqualTo("FINISHED");
            assertThat(r.data().path("job").path("attempts").asInt()).isZero();
        }
        // nothing left to hand out
        assertThat(api.get("/get/" + SHARED + "?timeout=0").data().isNull()).isTrue();
    }

    @Test
    void a_reserved_job_that_is_not_finished_comes_back_after_its_ttr_with_one_attempt_counted() {
        Api api = new Api(port);
        Api.Response pushedResponse = api.postJson("/push", Map.of("topic", TTR, "body", "take me twice", "ttr", 500));
        assertThat(pushedResponse.status()).as("push: %s", pushedResponse).isEqualTo(200);
        String id = pushedResponse.data().asText();

        long beforeFirst = System.currentTimeMillis();
        Api.Response first = api.get("/get/" + TTR + "?timeout=5000");
        assertThat(first.status()).isEqualTo(200);
        assertThat(first.data().path("id").asText())
                .as("first reservation: %s", first)
                .isEqualTo(id);
        assertThat(first.data().path("attempts").asInt()).isZero();
        assertThat(first.data().path("ttr").asLong()).isEqualTo(500);
        assertThat(api.get("/jobs/" + id).data().path("status").asText()).isEqualTo("RESERVED");

        // not finished: while the reservation holds, nobody else gets it
        Api.Response meanwhile = api.get("/get/" + TTR + "?timeout=0");
        assertThat(meanwhile.status()).isEqualTo(200);
        assertThat(meanwhile.data().isNull())
                .as("reservation handed out twice: %s", meanwhile)
                .isTrue();

        Api.Response second = api.get("/get/" + TTR + "?timeout=5000");
        long secondAt = System.currentTimeMillis();
        assertThat(second.status()).isEqualTo(200);
        assertThat(second.data().path("id").asText())
                .as("second reservation: %s", second)
                .isEqualTo(id);
        assertThat(second.data().path("attempts").asInt()).isEqualTo(1);
        assertThat(second.data().path("body").asText()).isEqualTo("take me twice");
        assertThat(secondAt - beforeFirst).as("ms until the job came back").isGreaterThanOrEqualTo(500);

        Api.Response finish = api.post("/jobs/" + id + "/finish", null);
        assertThat(finish.status()).as("finish: %s", finish).isEqualTo(200);
        Api.Response after = api.get("/jobs/" + id);
        assertThat(after.data().path("status").asText()).isEqualTo("FINISHED");
        assertThat(after.data().path("job").path("attempts").asInt()).isEqualTo(1);
        // finishing twice is fine, and a finished job does not come back
        assertThat(api.get("/finish?jobId=" + id).status()).isEqualTo(200);
        assertThat(api.get("/get/" + TTR + "?timeout=1200").data().isNull()).isTrue();
    }

    @Test
    void a_ready_job_that_is_deleted_is_never_handed_to_aconsumer() {
        Api api = new Api(port);
        Api.Response pushed = api.postJson("/push", Map.of("topic", GONE, "body", "cancel me"));
        assertThat(pushed.status()).as("push: %s", pushed).isEqualTo(200);
        String id = pushed.data().asText();
        await("the job is READY in its topic's list")
                .atMost(Duration.ofSeconds(5))
                .until(() ->
                        api.get("/jobs/" + id).data().path("status").asText().equals("READY"));

        Api.Response deleted = api.delete("/jobs/" + id);

        assertThat(deleted.status()).as("delete: %s", deleted).isEqualTo(200);
        assertThat(api.get("/jobs/" + id).data().path("status").asText()).isEqualTo("DELETED");
        Api.Response polled = api.get("/get/" + GONE + "?timeout=500");
        assertThat(polled.status()).isEqualTo(200);
        assertThat(polled.data().isNull())
                .as("a consumer got the deleted job: %s", polled)
                .isTrue();
        assertThat(api.get("/jobs/" + id).data().path("status").asText()).isEqualTo("DELETED");
    }
}
