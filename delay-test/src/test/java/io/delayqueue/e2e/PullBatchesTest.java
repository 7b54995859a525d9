package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayqueue.common.JobIds;
import io.delayqueue.controller.ApiResponse;
import io.delayqueue.controller.CompletedFutureReturnValueHandler;
import io.delayqueue.controller.JobController;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.Jobs;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.ServiceTest;
import io.delayqueue.queue.engine.EngineConfig;
import io.delayqueue.sample.SampleConsumer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.MethodParameter;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.context.request.ServletWebRequest;
import org.springframework.web.context.request.async.StandardServletAsyncWebRequest;
import org.springframework.web.context.request.async.WebAsyncUtils;
import org.springframework.web.method.support.HandlerMethodReturnValueHandler;
import org.springframework.web.method.support.ModelAndViewContainer;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;

/**
 * Pull topics consumed in batches over HTTP: {@code GET /get/{topic}?count=N} reserves up to N jobs in one call,
 * {@code POST /jobs/finish} finishes many with an outcome per job.
 */
@ServiceTest(
        properties = {
            "delay.dispatch.topics." + PullBatchesTest.MANY + "=pull",
            "delay.dispatch.topics." + PullBatchesTest.OUTCOMES + "=pull",
            "delay.dispatch.topics." + PullBatchesTest.SAMPLE + "=pull",
            "delay.dispatch.topics." + PullBatchesTest.DUE + "=pull"
        })
class PullBatchesTest {
    static final ServiceStores STORES = ServiceStores.redisAndJournal("pullbatch");
    static final String MANY = "e2ebatch";
    static final String OUTCOMES = "e2eoutcomes";
    static final String SAMPLE = "e2esample";
    static final String DUE = "e2edue";
    private static final int JOBS = 3_000;
    private static final int CONSUMERS = 8;

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        STORES.register(registry);
    }

    @LocalServerPort
    int port;

    @Autowired
    RequestMappingHandlerAdapter adapter;

    @Test
    void consumers_reserving_and_finishing_in_batches_get_each_job_exactly_once_and_lose_none() throws Exception {
        Api api = new Api(port);
        Set<String> pushed = ConcurrentHashMap.newKeySet();
        Map<String, List<String>> received = new ConcurrentHashMap<>();
        List<String> problems = Collections.synchronizedList(new ArrayList<>());
        ExecutorService consumers = Executors.newFixedThreadPool(CONSUMERS);
        List<Future<?>> running = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        try {
            for (int c = 0; c < CONSUMERS; c++) {
                String name = "consumer-" + c;
                int count = 1 + 17 * c; // 1, 18, 35, ... 120: many batch sizes at once
                List<String> mine = Collections.synchronizedList(new ArrayList<>());
                received.put(name, mine);
                running.add(consumers.submit(() -> {
                    while (System.nanoTime() - deadline < 0) {
                        int total =
                                received.values().stream().mapToInt(List::size).sum();
                        if (total >= JOBS) {
                            return;
                        }
                        Api.Response r = api.get("/get/" + MANY + "?timeout=1000&count=" + count);
                        if (r.status() != 200 || !r.data().isArray()) {
                            problems.add(name + " GET /get: " + r);
                            return;
                        }
                        if (r.data().size() > count) {
                            problems.add(name + " asked for " + count + " and got "
                                    + r.data().size());
                        }
                        List<Map<String, Object>> finishes = new ArrayList<>();
                        for (JsonNode job : r.data()) {
                            if (!job.path("status").asText().equals("RESERVED")) {
                                problems.add(name + " got " + job.path("id") + " in status " + job.path("status"));
                            }
                            finishes.add(Map.of(
                                    "id",
                                    job.path("id").asText(),
                                    "attempts",
                                    job.path("attempts").asInt()));
                        }
                        if (finishes.isEmpty()) {
                            continue;
                        }
                        Api.Response f = api.postJson("/jobs/finish", finishes);
                        if (f.status() != 200) {
                            problems.add(name + " POST /jobs/finish: " + f);
                            return;
                        }
                        for (JsonNode outcome : f.data()) {
                            if (!outcome.path("outcome").asText().equals("FINISHED")) {
                                problems.add(name + " finish of " + outcome);
                            }
                        }
                        finishes.forEach(j -> mine.add((String) j.get("id")));
                    }
                    problems.add(name + " ran out of time");
                }));
            }
            // due over the next second: consumers are served both while waiting and from full ready lists
            Random random = new Random();
            pushed.addAll(Jobs.push(List.of(api), MANY, JOBS, i -> System.currentTimeMillis() + random.nextInt(1000)));
            assertThat(pushed).hasSize(JOBS);
            for (Future<?> f : running) {
                f.get(90, TimeUnit.SECONDS);
            }
        } finally {
            consumers.shutdownNow();
        }
        assertThat(problems).isEmpty();

        List<String> all = received.values().stream().flatMap(List::stream).toList();
        assertThat(all).as("jobs reserved by any consumer").doesNotHaveDuplicates();
        assertThat(new HashSet<>(all)).as("jobs reserved").isEqualTo(pushed);
        assertThat(received.values().stream().filter(l -> !l.isEmpty()).count())
                .as("consumers that got jobs")
                .isGreaterThan(1);
        for (String id : all.stream().limit(25).toList()) {
            Api.Response r = api.get("/jobs/" + id);
            assertThat(r.data().path("status").asText()).as("status of %s", id).isEqualTo("FINISHED");
            assertThat(r.data().path("history").toString()).contains("RESERVED", "FINISHED");
        }
        Api.Response none = api.get("/get/" + MANY + "?timeout=0&count=10");
        assertThat(none.data().isArray() && none.data().isEmpty())
                .as("nothing left: %s", none)
                .isTrue();
    }

    @Test
    void a_batch_is_answered_in_due_order_across_the_shards() {
        Api api = new Api(port);
        // five jobs due one after the other, the first in the highest of five shards and the last in the lowest:
        // the shards, taken in turn from any start, hand them over out of due order
        int jobs = 5;
        long due = System.currentTimeMillis() + 300;
        List<String> inDueOrder = new ArrayList<>();
        List<Map<String, Object>> batch = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            String id = idInShard(jobs - 1 - i);
            inDueOrder.add(id);
            batch.add(Map.of("id", id, "topic", DUE, "body", "due " + i, "executeAt", due + 50L * i));
        }
        assertThat(api.postJson("/push/batch", batch).status()).isEqualTo(200);
        await("the five jobs are ready").atMost(Duration.ofSeconds(10)).until(() -> inDueOrder.stream()
                .allMatch(id ->
                        api.get("/jobs/" + id).data().path("status").asText().equals("READY")));

        Api.Response r = api.get("/get/" + DUE + "?timeout=0&count=100");

        assertThat(r.status()).as("pull: %s", r).isEqualTo(200);
        List<String> answered = new ArrayList<>();
        r.data().forEach(job -> answered.add(job.path("id").asText()));
        assertThat(answered).as("one batch, in due order").containsExactlyElementsOf(inDueOrder);
    }

    /** A client id of the given shard. */
    private static String idInShard(int shard) {
        while (true) {
            String id = "due-" + UUID.randomUUID();
            if (JobIds.shardOf(id, EngineConfig.DEFAULT_SHARDS) == shard) {
                return id;
            }
        }
    }

    @Test
    void a_batch_finish_answers_each_job_and_refuses_a_stale_attempt_for_its_job_alone() {
        Api api = new Api(port);
        List<Map<String, Object>> jobs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            jobs.add(Map.of("topic", OUTCOMES, "body", "outcome " + i));
        }
        assertThat(api.postJson("/push/batch", jobs).status()).isEqualTo(200);
        List<JsonNode> reserved = new ArrayList<>();
        await("three jobs reserved").atMost(Duration.ofSeconds(10)).until(() -> {
            api.get("/get/" + OUTCOMES + "?timeout=500&count=3").data().forEach(reserved::add);
            return reserved.size() == 3;
        });
        String a = reserved.get(0).path("id").asText();
        String b = reserved.get(1).path("id").asText();
        String c = reserved.get(2).path("id").asText();
        assertThat(api.post("/jobs/" + c + "/finish", null).status()).isEqualTo(200);

        Api.Response r = api.postJson(
                "/jobs/finish",
                List.of(
                        Map.of("id", a, "attempts", 0),
                        Map.of("id", b, "attempts", 4),
                        Map.of("id", "never-pushed-" + System.nanoTime(), "attempts", 0),
                        Map.of("id", c)));

        assertThat(r.status()).as("batch finish: %s", r).isEqualTo(200);
        List<String> outcomes = new ArrayList<>();
        r.data()
                .forEach(o -> outcomes.add(
                        o.path("id").asText() + " " + o.path("outcome").asText()));
        assertThat(outcomes.get(0)).isEqualTo(a + " FINISHED");
        assertThat(outcomes.get(1)).isEqualTo(b + " STALE");
        assertThat(outcomes.get(2)).endsWith(" NOT_FOUND");
        assertThat(outcomes.get(3))
                .as("finished before: finishing again is fine")
                .isEqualTo(c + " FINISHED");
        assertThat(api.get("/jobs/" + a).data().path("status").asText()).isEqualTo("FINISHED");
        assertThat(api.get("/jobs/" + b).data().path("status").asText())
                .as("the stale attempt's job keeps its reservation")
                .isEqualTo("RESERVED");
        assertThat(api.postJson("/jobs/finish", List.of(Map.of("id", b, "attempts", 0)))
                        .data()
                        .get(0)
                        .path("outcome")
                        .asText())
                .isEqualTo("FINISHED");
    }

    @Test
    void count_without_and_with_the_parameter_keeps_each_answer_shape() {
        Api api = new Api(port);
        Api.Response single = api.get("/get/" + OUTCOMES + "?timeout=0");
        assertThat(single.status()).isEqualTo(200);
        assertThat(single.data().isNull())
                .as("no count: one job or null: %s", single)
                .isTrue();
        Api.Response list = api.get("/get/" + OUTCOMES + "?timeout=0&count=1");
        assertThat(list.status()).isEqualTo(200);
        assertThat(list.data().isArray()).as("count given: a list: %s", list).isTrue();
    }

    @Test
    void bad_counts_and_bad_finish_bodies_are_refused_naming_the_field() {
        Api api = new Api(port);
        for (String count : List.of("0", "1001", "-3", "many")) {
            Api.Response r = api.get("/get/" + OUTCOMES + "?timeout=0&count=" + count);
            assertThat(r.status()).as("count=%s: %s", count, r).isEqualTo(400);
            assertThat(r.message()).as("count=%s", count).startsWith("count");
        }
        Map<String, String> badBodies = new LinkedHashMap<>();
        badBodies.put("[]", "jobs");
        badBodies.put("[{\"id\":\"no spaces allowed\"}]", "[0].id");
        badBodies.put("[{\"id\":\"a\"},{\"attempts\":0}]", "[1].id");
        badBodies.put("[{\"id\":\"a\",\"attempts\":-1}]", "[0].attempts");
        badBodies.put("[{\"id\":\"a\",\"attempts\":\"x\"}]", "[0].attempts");
        badBodies.put("[{\"id\":\"a\",\"colour\":1}]", "[0].colour");
        badBodies.put("{\"id\":\"a\"}", "body");
        StringBuilder tooMany = new StringBuilder("[");
        for (int i = 0; i <= 1000; i++) {
            tooMany.append(i == 0 ? "" : ",").append("{\"id\":\"j").append(i).append("\"}");
        }
        badBodies.put(tooMany.append(']').toString(), "jobs");
        badBodies.forEach((body, field) -> {
            Api.Response r = api.send("POST", "/jobs/finish", body);
            assertThat(r.status())
                    .as("%s: %s", body.length() > 80 ? body.substring(0, 80) : body, r)
                    .isEqualTo(400);
            assertThat(r.message()).as("message of %s", field).startsWith(field);
        });
        Api.Response tooLarge = api.send("POST", "/jobs/finish", "[" + " ".repeat(300 * 1024) + "]");
        assertThat(tooLarge.status()).as("over 256 KiB: %s", tooLarge).isEqualTo(413);
    }

    @Test
    void the_sample_consumer_pulls_and_finishes_in_batches() throws Exception {
        Api api = new Api(port);
        List<Map<String, Object>> jobs = new ArrayList<>();
        for (int i = 0; i < 250; i++) {
            jobs.add(Map.of("topic", SAMPLE, "body", "sample " + i));
        }
        Set<String> pushed = new HashSet<>();
        api.postJson("/push/batch", jobs).data().forEach(id -> pushed.add(id.asText()));
        Set<String> delivered = ConcurrentHashMap.newKeySet();
        List<String> twice = Collections.synchronizedList(new ArrayList<>());

        try (AutoCloseable consumer = SampleConsumer.pull("http://127.0.0.1:" + port, SAMPLE, 100, d -> {
            if (!delivered.add(d.jobId())) {
                twice.add(d.jobId());
            }
        })) {
            await("every job delivered to the sample consumer and finished")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> delivered.equals(pushed)
                            && pushed.stream().allMatch(id -> api.get("/jobs/" + id)
                                    .data()
                                    .path("status")
                                    .asText()
                                    .equals("FINISHED")));
        }
        assertThat(twice).as("jobs delivered twice").isEmpty();
    }

    @Test
    void a_pull_answered_at_once_is_written_on_the_request_thread_and_a_waiting_one_goes_async() throws Exception {
        MethodParameter returnType = new MethodParameter(
                JobController.class.getMethod("reserve", String.class, String.class, String.class), -1);
        assertThat(adapter.getReturnValueHandlers().get(0)).isInstanceOf(CompletedFutureReturnValueHandler.class);
        HandlerMethodReturnValueHandler handler =
                adapter.getReturnValueHandlers().get(0);

        MockHttpServletRequest atOnce = new MockHttpServletRequest("GET", "/get/t");
        atOnce.setAsyncSupported(true);
        MockHttpServletResponse written = new MockHttpServletResponse();
        handler.handleReturnValue(
                CompletableFuture.completedFuture(ApiResponse.ok(List.of(), "0 reserved")),
                returnType,
                new ModelAndViewContainer(),
                asyncCapable(atOnce, written));
        assertThat(atOnce.isAsyncStarted())
                .as("async started for a complete future")
                .isFalse();
        assertThat(written.getContentAsString()).contains("\"data\":[]", "\"message\":\"0 reserved\"");

        MockHttpServletRequest waiting = new MockHttpServletRequest("GET", "/get/t");
        waiting.setAsyncSupported(true);
        handler.handleReturnValue(
                new CompletableFuture<>(),
                returnType,
                new ModelAndViewContainer(),
                asyncCapable(waiting, new MockHttpServletResponse()));
        assertThat(waiting.isAsyncStarted())
                .as("async started for a future not complete")
                .isTrue();
    }

    private static ServletWebRequest asyncCapable(MockHttpServletRequest request, MockHttpServletResponse response) {
        ServletWebRequest web = new ServletWebRequest(request, response);
        WebAsyncUtils.getAsyncManager(web).setAsyncWebRequest(new StandardServletAsyncWebRequest(request, response));
        return web;
    }
}
