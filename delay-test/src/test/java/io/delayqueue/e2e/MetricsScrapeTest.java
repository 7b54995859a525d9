package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.FreePorts;
import io.delayqueue.e2e.support.ServiceProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /actuator/prometheus} of the packaged service as {@code bin/run} starts it: on the first scrape after the
 * start, every metric the Grafana dashboard queries and the alerting rules beside it name is there (counters at 0,
 * histograms empty), and the label
 * values docs/operating.md lists are the ones exported; after a realistic mix of requests (pushes to more topics
 * than get a label, callbacks that fail and die, pulls, deletes, a stream of 404s and refused pushes), a scrape is
 * under 100 KB.
 */
class MetricsScrapeTest {
    private static final Duration START = Duration.ofMinutes(3);
    private static final Path DASHBOARD = Path.of("..", "delay-core", "grafana", "delay-queue.json");
    private static final Path ALERT_RULES = Path.of("..", "delay-core", "grafana", "delay-queue.rules.yml");
    private static final Path OPERATING = Path.of("..", "docs", "operating.md");
    private static final Pattern METRIC = Pattern.compile("\\b((?:delay|http_server)_[a-z_]+)\\b");
    /** In the labels cell of the metrics table: {@code `label` (`a`, `b`)}. */
    private static final Pattern LABEL_VALUES = Pattern.compile("`([a-z_]+)` \\(([^)]*)\\)");

    private static final int MAX_SCRAPE_BYTES = 100_000;
    /** More topics than get a label of their own (delay.metrics.max-topics, 100 by default). */
    private static final int TOPICS = 150;

    @TempDir
    Path workDir;

    @Test
    void the_first_scrape_has_every_metric_the_dashboard_queries_and_a_scrape_after_a_mix_stays_under_100_kb()
            throws Exception {
        List<String> args = List.of(
                "--delay.dispatch.topics.mix.pull=pull",
                "--delay.dispatch.topics.mix.http=http",
                "--delay.retry.backoff=100ms");
        try (ServiceProcess service =
                ServiceProcess.start("metrics-scrape", args, ServiceProcess.newCounts(), workDir)) {
            service.awaitUp(START);
            Api api = service.api();

            String first = scrape(api);
            String bare;
            try (ServiceProcess plain = ServiceProcess.start(
                    "metrics-scrape-bare",
                    List.of(),
                    ServiceProcess.newCounts(),
                    Files.createDirectories(workDir.resolve("bare")))) {
                plain.awaitUp(START);
                bare = scrape(plain.api());
            }

            Set<String> queried = dashboardMetrics();
            assertThat(queried).as("metrics the dashboard queries").hasSizeGreaterThan(20);
            assertThat(names(first)).as("metrics on the first scrape").containsAll(queried);
            assertThat(names(bare))
                    .as("metrics on the first scrape of a service started with nothing configured (bin/run)")
                    .containsAll(queried);
            Set<String> alerted = alertRuleMetrics();
            assertThat(alerted).as("metrics the alerting rules name").hasSizeGreaterThanOrEqualTo(8);
            assertThat(names(first)).as("metrics on the first scrape").containsAll(alerted);
            assertThat(names(bare))
                    .as("metrics on the first scrape of a service started with nothing configured (bin/run)")
                    .containsAll(alerted);
            for (String counter : List.of(
                    "delay_jobs_pushed_total",
                    "delay_jobs_handed_over_total",
                    "delay_jobs_dead_total",
                    "delay_jobs_deleted_total",
                    "delay_sends_failed_total",
                    "delay_jobs_retried_total",
                    "delay_jobs_ttr_expired_total")) {
                assertThat(first)
                        .contains(counter + "{topic=\"_other\"} 0.0")
                        .contains(counter + "{topic=\"mix.http\"} 0.0");
            }
            documentedLabelValuesAreExported(first);

            mix(api);

            String after = scrape(api);
            Files.writeString(Path.of("target", "metrics-scrape-after-mix.txt"), after);
            int bytes = after.getBytes(StandardCharsets.UTF_8).length;
            System.out.printf(
                    "MetricsScrapeTest: first scrape %,d bytes, %,d lines; after the mix %,d bytes, %,d lines%n",
                    first.length(), first.lines().count(), bytes, after.lines().count());
            assertThat(after).contains("delay_jobs_pushed_total{topic=\"_other\"}");
            assertThat(bytes)
                    .as("bytes of a scrape after the mix; the largest metrics: %s", largest(after))
                    .isLessThan(MAX_SCRAPE_BYTES);
        }
    }

    /** Pushes to {@link #TOPICS} topics, failing callbacks to their death, a pull, deletes, 404s and refusals. */
    private static void mix(Api api) {
        for (int t = 0; t < TOPICS; t++) {
            for (int i = 0; i < 2; i++) {
                Api.Response r = api.post("/push", "{\"topic\":\"mix.t" + t + "\",\"body\":\"b\",\"delay\":0}");
                assertThat(r.status()).as("push: %s", r).isEqualTo(200);
            }
            Api.Response later = api.post("/push", "{\"topic\":\"mix.t" + t + "\",\"body\":\"b\",\"delay\":600000}");
            assertThat(api.delete("/jobs/" + later.data().asText()).status()).isEqualTo(200);
        }
        List<String> dying = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Map<String, Object> callback = new LinkedHashMap<>();
            callback.put("topic", "mix.http");
            callback.put("body", "b");
            callback.put("url", "http://127.0.0.1:" + FreePorts.free() + "/nobody");
            callback.put("maxAttempts", 2);
            Api.Response r = api.postJson("/push", callback);
            assertThat(r.status()).as("push: %s", r).isEqualTo(200);
            dying.add(r.data().asText());
        }
        api.post("/push", "{\"topic\":\"mix.pull\",\"body\":\"b\",\"delay\":0}");
        await("a pull")
                .atMost(Duration.ofSeconds(30))
                .until(() -> api.get("/get/mix.pull?timeout=1000").status() == 200);
        for (int i = 0; i < 300; i++) {
            api.get("/jobs/no-such-job-" + i);
            api.delete("/jobs/no-such-job-" + i);
            api.get("/no/such/endpoint/" + i);
            api.post("/push", "{\"topic\":\"bad topic\",\"body\":\"b\"}");
        }
        await("the failing callbacks are dead").atMost(Duration.ofSeconds(60)).until(() -> dying.stream()
                .allMatch(id -> "DEAD"
                        .equals(api.get("/jobs/" + id).data().path("status").asText())));
    }

    /**
     * For each row of docs/operating.md's metrics table whose labels cell lists a label's values ({@code `outcome`
     * (`success`, `failure`)}), the values exported are among them, and all of them are exported unless the row says
     * a series is absent until something happens.
     */
    private static void documentedLabelValuesAreExported(String exported) throws Exception {
        SoftAssertions softly = new SoftAssertions();
        int checked = 0;
        for (String row : Files.readAllLines(OPERATING)) {
            String[] cells = row.split("\\s*\\|\\s*");
            if (cells.length < 4 || !cells[1].startsWith("`delay_")) {
                continue;
            }
            Map<String, Set<String>> documented = new TreeMap<>();
            Matcher m = LABEL_VALUES.matcher(cells[2]);
            while (m.find()) {
                Set<String> values = new TreeSet<>();
                Matcher code = Pattern.compile("`([^`]+)`").matcher(m.group(2));
                while (code.find()) {
                    values.add(code.group(1));
                }
                if (!values.isEmpty()) {
                    documented.put(m.group(1), values);
                }
            }
            for (String metric : backticked(cells[1])) {
                for (Map.Entry<String, Set<String>> label : documented.entrySet()) {
                    Set<String> exportedValues = labelValues(exported, metric, label.getKey());
                    if (exportedValues.isEmpty()) {
                        continue; // a histogram's series appear with their first observation (the row says so)
                    }
                    checked++;
                    softly.assertThat(label.getValue())
                            .as("documented values of %s's %s", metric, label.getKey())
                            .containsAll(exportedValues);
                    if (!row.contains("absent until") && !row.contains("appear with")) {
                        softly.assertThat(exportedValues)
                                .as("exported values of %s's %s", metric, label.getKey())
                                .containsAll(label.getValue());
                    }
                }
            }
        }
        softly.assertThat(checked).as("labels checked").isGreaterThanOrEqualTo(6);
        softly.assertAll();
    }

    private static List<String> backticked(String cell) {
        List<String> out = new ArrayList<>();
        Matcher m = Pattern.compile("`([a-z_]+)`").matcher(cell);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    /** The values of {@code label} on the samples of {@code metric} (and of its {@code _count} for histograms). */
    private static Set<String> labelValues(String exported, String metric, String label) {
        Pattern value = Pattern.compile("[{,]" + label + "=\"([^\"]*)\"");
        Set<String> values = new TreeSet<>();
        exported.lines()
                .filter(l -> l.startsWith(metric + "{") || l.startsWith(metric + "_count{"))
                .forEach(l -> {
                    Matcher m = value.matcher(l);
                    if (m.find()) {
                        values.add(m.group(1));
                    }
                });
        return values;
    }

    private static Set<String> dashboardMetrics() throws Exception {
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
        return queried;
    }

    /**
     * Every metric the alerting rules name, in their expressions and in the annotations that point the operator at
     * other metrics: an alert on a name the service does not export would never fire.
     */
    private static Set<String> alertRuleMetrics() throws Exception {
        Set<String> named = new TreeSet<>();
        for (String line : Files.readAllLines(ALERT_RULES)) {
            if (line.strip().startsWith("#")) {
                continue;
            }
            Matcher m = METRIC.matcher(line);
            while (m.find()) {
                named.add(m.group(1));
            }
        }
        return named;
    }

    private static Set<String> names(String exported) {
        Set<String> names = new TreeSet<>();
        for (String line : exported.split("\n")) {
            if (!line.startsWith("#") && !line.isBlank()) {
                names.add(line.split("[{ ]", 2)[0]);
            }
        }
        return names;
    }

    /** The metric names with the most lines, for a failure's message. */
    private static String largest(String exported) {
        Map<String, Integer> lines = new TreeMap<>();
        for (String line : exported.split("\n")) {
            if (!line.startsWith("#") && !line.isBlank()) {
                lines.merge(line.split("[{ ]", 2)[0], 1, Integer::sum);
            }
        }
        return Arrays.toString(lines.entrySet().stream()
                .sorted((a, b) -> b.getValue() - a.getValue())
                .limit(8)
                .map(e -> e.getKey() + "=" + e.getValue())
                .toArray());
    }

    private static String scrape(Api api) {
        Api.Response r = api.get("/actuator/prometheus");
        assertThat(r.status()).as("/actuator/prometheus: %s", r).isEqualTo(200);
        return r.raw();
    }
}
