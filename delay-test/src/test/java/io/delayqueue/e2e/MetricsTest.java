package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.FreePorts;
import io.delayqueue.e2e.support.RecordingDispatcherConfig;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.ServiceTest;
import io.delayqueue.queue.testing.RecordingDispatcher;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.autoconfigure.actuate.observability.AutoConfigureObservability;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * {@code /actuator/prometheus} counts what happens to jobs per topic, with the topic labels bounded, and exports
 * every metric the Grafana dashboard in {@code delay-core/grafana} queries.
 */
@AutoConfigureObservability(tracing = false) // a Boot test turns metrics export off unless asked
@ServiceTest(
        properties = {
            "delay.dispatch.default=" + RecordingDispatcher.NAME,
            "delay.dispatch.topics.metrics.pull=pull",
            "delay.dispatch.topics.metrics.http=http",
            "delay.retry.backoff=100ms",
            "delay.metrics.max-topics=4"
        })
@Import(RecordingDispatcherConfig.class)
class MetricsTest {
    static final ServiceStores STORES = ServiceStores.redisAndJournal("metrics");
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Path DASHBOARD = Path.of("..", "delay-core", "grafana", "delay-queue.json");
    /** A metric name in PromQL: an identifier followed by a label matcher, a range or the end of a term. */
    private static final Pattern METRIC = Pattern.compile("\\b((?:delay|http_server)_[a-z_]+)\\b");

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        STORES.register(registry);
    }

    @LocalServerPort
    int port;

    @Autowired
    RecordingDispatcher recorder;

    @Test
    void jobs_are_counted_per_topic_with_bounded_labels_and_every_metric_the_dashboard_queries_is_exported()
            throws IOException {
        Api api = new Api(port);
        assertThat(api.postJson("/push", Map.of("topic", "", "delay", 0)).status())
                .as("a push with an empty topic")
                .isEqualTo(400);
        String delivered = push(api, "metrics.orders", 0, null);
        String deleted = push(api, "metrics.orders", 600_000, null);
        assertThat(api.delete("/jobs/" + deleted).status()).isEqualTo(200);
        String dead = push(api, "metrics.pull", 0, 1);
        // sent to a port nobody listens on: it fails, is retried once, fails again and is dead
        Map<String, Object> callback = new LinkedHashMap<>();
        callback.put("topic", "metrics.http");
        callback.put("body", "metrics");
        callback.put("url", "http://127.0.0.1:" + FreePorts.free() + "/callback");
        callback.put("maxAttempts", 2);
        Api.Response failing = api.postJson("/push", callback);
        assertThat(failing.status()).as("push: %s", failing).isEqualTo(200);
        String failingId = failing.data().asText();
        await("the callback job is dead after two failed sends").atMost(WAIT).until(() -> "DEAD"
                .equals(api.get("/jobs/" + failingId).data().path("status").asText()));
        await("the push job is delivered").atMost(WAIT).until(() -> !recorder.deliveriesOf(Set.of(delivered))
                .isEmpty());
        await("the pull job is reserved").atMost(WAIT).until(() -> {
            Api.Response r = api.get("/get/metrics.pull?timeout=1000");
            return r.status() == 200 && dead.equals(r.data().path("id").asText());
        });
        await("the unfinished pull job is dead").atMost(WAIT).until(() -> "DEAD"
                .equals(api.get("/jobs/" + dead).data().path("status").asText()));

        // every gauge the test reads: a refresh (every 5 s) may be half-way through its rows while a scrape reads
        await("the gauges show the dead jobs").atMost(WAIT).until(() -> {
            String gauges = scrape(api);
            return gauges.contains("delay_jobs{status=\"DEAD\"} 2.0")
                    && gauges.contains("delay_dead_jobs{topic=\"metrics.pull\"} 1.0")
                    && gauges.contains("delay_dead_jobs{topic=\"metrics.http\"} 1.0");
        });
        String exported = scrape(api);
        assertThat(exported)
                .contains("delay_jobs_pushed_total{topic=\"metrics.orders\"} 2.0")
                .contains("delay_jobs_pushed_total{topic=\"metrics.pull\"} 1.0")
                .contains("delay_jobs_handed_over_total{topic=\"metrics.orders\"} 1.0")
                .contains("delay_jobs_dead_total{topic=\"metrics.pull\"} 1.0")
                .contains("delay_sends_failed_total{topic=\"metrics.http\"} 2.0")
                .contains("delay_jobs_retried_total{topic=\"metrics.http\"} 1.0")
                .contains("delay_jobs_dead_total{topic=\"metrics.http\"} 1.0")
                .contains("delay_jobs_deleted_total{topic=\"metrics.orders\"} 1.0")
                .contains("delay_dead_jobs{topic=\"metrics.pull\"} 1.0")
                .contains("delay_dead_jobs{topic=\"metrics.http\"} 1.0")
                .contains("delay_handover_lateness_max_by_topic_seconds{topic=\"metrics.orders\"}")
                .contains("delay_ha_role{role=\"standalone\"} 1.0")
                .contains("delay_ha_owned_shards")
                .contains("delay_pending_jobs{tier=\"redis\"}");
        // the pull job's one reservation expired unfinished: one TTR expiry of its topic
        assertThat(sample(exported, "delay_jobs_ttr_expired_total", "topic=\"metrics.pull\""))
                .isEqualTo(1.0);
        // histograms: each has its count and its bucket series for Prometheus's histogram_quantile
        assertThat(sample(exported, "delay_journal_commit_seconds_count"))
                .as("journal commits recorded (every push commits)")
                .isGreaterThanOrEqualTo(4.0);
        assertThat(sample(exported, "delay_journal_commit_rows_sum"))
                .as("rows the commits wrote: at least a job row and a log row per push")
                .isGreaterThanOrEqualTo(8.0);
        // /push is answered outside the dispatcher (DirectPushFilter): its requests keep their uri tag
        assertThat(sample(
                        exported,
                        "http_server_requests_seconds_count",
                        "method=\"POST\"",
                        "status=\"200\"",
                        "uri=\"/push\""))
                .as("one-job pushes answered 200, under uri /push")
                .isGreaterThanOrEqualTo(4.0);
        assertThat(sample(
                        exported,
                        "http_server_requests_seconds_count",
                        "method=\"POST\"",
                        "status=\"400\"",
                        "uri=\"/push\""))
                .as("the push refused for its topic, under uri /push")
                .isEqualTo(1.0);
        assertThat(sample(exported, "delay_push_seconds_count", "outcome=\"success\""))
                .as("pushes answered")
                .isGreaterThanOrEqualTo(4.0);
        assertThat(sample(exported, "delay_redis_script_seconds_count", "script=\"move_due\"", "outcome=\"success\""))
                .isPositive();
        assertThat(sample(exported, "delay_redis_script_seconds_count", "script=\"push\"", "outcome=\"success\""))
                .isGreaterThanOrEqualTo(4.0);
        for (String histogram : List.of(
                "delay_journal_commit_seconds_bucket",
                "delay_journal_commit_rows_bucket",
                "delay_push_seconds_bucket",
                "delay_redis_script_seconds_bucket",
                "delay_handover_lateness_seconds_bucket")) {
            assertThat(exported.lines()
                            .filter(l -> l.startsWith(histogram + "{"))
                            .count())
                    .as("bucket series of %s", histogram)
                    .isGreaterThan(5);
        }
        assertThat(sample(exported, "delay_journal_lag_seconds"))
                .as("the journal's lag, once everything is committed")
                .isGreaterThanOrEqualTo(0.0);
        assertThat(sample(exported, "delay_journal_queued_rows")).isGreaterThanOrEqualTo(0.0);

        JsonNode dashboard = Api.JSON.readTree(Files.readString(DASHBOARD));
        Set<String> queried = new TreeSet<>();
        for (JsonNode panel : dashboard.path("panels")) {
            for (JsonNode target : panel.path("targets")) {
                Matcher m = METRIC.matcher(target.path("expr").asText());
                while (m.find()) {
                    queried.add(m.group(1));
                }
            }
        }
        assertThat(queried).as("metrics the dashboard queries").hasSizeGreaterThan(10);
        Set<String> names = new TreeSet<>();
        for (String line : exported.split("\n")) {
            if (!line.startsWith("#") && !line.isBlank()) {
                names.add(line.split("[{ ]", 2)[0]);
            }
        }
        assertThat(names).as("metrics exported").containsAll(queried);

        // topics past delay.metrics.max-topics (4) share one label
        for (int i = 0; i < 6; i++) {
            push(api, "metrics.many" + i, 600_000, null);
        }
        exported = scrape(api);
        long topicLabels = exported.lines()
                .filter(l -> l.startsWith("delay_jobs_pushed_total{"))
                .count();
        assertThat(topicLabels)
                .as("pushed counters: at most 4 topics and _other")
                .isLessThanOrEqualTo(5);
        assertThat(exported).contains("delay_jobs_pushed_total{topic=\"_other\"}");
    }

    /**
     * The value of the one sample of {@code name} whose labels include {@code labels} ({@code key="value"}), in
     * Prometheus's text format; fails when there is none.
     */
    private static double sample(String exported, String name, String... labels) {
        return exported.lines()
                .filter(l -> l.startsWith(name + "{") || l.startsWith(name + " "))
                .filter(l -> java.util.Arrays.stream(labels).allMatch(l::contains))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .findFirst()
                .orElseThrow(() -> new AssertionError(
                        "no sample of " + name + " with " + java.util.Arrays.toString(labels) + " in:\n" + exported));
    }

    private static String scrape(Api api) {
        Api.Response r = api.get("/actuator/prometheus");
        assertThat(r.status()).as("/actuator/prometheus: %s", r).isEqualTo(200);
        return r.raw();
    }

    private static String push(Api api, String topic, long delayMs, Integer maxAttempts) {
        Map<String, Object> job = new LinkedHashMap<>();
        job.put("topic", topic);
        job.put("body", "metrics");
        job.put("delay", delayMs);
        if (maxAttempts != null) {
            job.put("maxAttempts", maxAttempts);
            job.put("ttr", 200);
        }
        Api.Response r = api.postJson("/push", job);
        assertThat(r.status()).as("push: %s", r).isEqualTo(200);
        return r.data().asText();
    }
}
