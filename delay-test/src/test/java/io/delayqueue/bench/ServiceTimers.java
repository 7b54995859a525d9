package io.delayqueue.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where a push's time goes inside the service (issue 29, item 1): the service's own timers, read from its {@code
 * /actuator/prometheus} before and after a run, as the mean of what the run added to each. The request as the
 * service timed it ({@code http_server_requests_seconds}, {@code uri="/push"}), the engine's push ({@code
 * delay_push_seconds}: the combiner's round, the journal's commit and Redis), one group commit of the journal
 * ({@code delay_journal_commit_seconds}) with its rows, and each Lua script's round trip ({@code
 * delay_redis_script_seconds}). Set beside the caller's own mean, the difference is the HTTP exchange outside the
 * service's timer (the kernel's sockets and Tomcat's reading of the request before the first filter).
 */
final class ServiceTimers {
    private static final HttpClient CLIENT =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** One read of the service's timers: series name with labels to its value. */
    record Snapshot(Map<String, Double> series) {
        double get(String key) {
            return series.getOrDefault(key, 0.0);
        }
    }

    private ServiceTimers() {}

    /** The service's timer series now, or an empty snapshot when it does not answer (the figures then say so). */
    static Snapshot read(int port) {
        try {
            HttpResponse<String> r = CLIENT.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/prometheus"))
                            .timeout(Duration.ofSeconds(10))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? parse(r.body()) : new Snapshot(Map.of());
        } catch (IOException e) {
            return new Snapshot(Map.of());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Snapshot(Map.of());
        }
    }

    /** The {@code _sum} and {@code _count} series of the timers and summaries this class reads. */
    static Snapshot parse(String exposition) {
        Map<String, Double> series = new HashMap<>();
        for (String line : exposition.split("\n")) {
            if (line.startsWith("#") || !(line.contains("_sum") || line.contains("_count"))) {
                continue;
            }
            if (!(line.startsWith("http_server_requests_seconds")
                    || line.startsWith("delay_push_seconds")
                    || line.startsWith("delay_journal_commit")
                    || line.startsWith("delay_redis_script_seconds"))) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            try {
                series.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
            } catch (NumberFormatException e) {
                // not a sample line
            }
        }
        return new Snapshot(series);
    }

    /**
     * What the run between {@code before} and {@code after} added, per call of {@code path}: the mean µs of each
     * timer, the journal's commits and rows per call, and each script's runs per call and µs per run.
     */
    static Map<String, Object> breakdown(Snapshot before, Snapshot after, String path) {
        Map<String, Object> out = new LinkedHashMap<>();
        if (after.series().isEmpty()) {
            out.put("unavailable", "the service's /actuator/prometheus did not answer");
            return out;
        }
        String request = "{error=\"none\",exception=\"none\",method=\"POST\",outcome=\"SUCCESS\",status=\"200\",uri=\""
                + path + "\"}";
        double calls = delta(before, after, "http_server_requests_seconds_count" + request);
        if (calls <= 0) {
            out.put("unavailable", "no timed " + path + " calls");
            return out;
        }
        out.put("calls", calls);
        out.put("serviceRequestMicros", micros(before, after, "http_server_requests_seconds", request, calls));
        out.put("enginePushMicros", meanMicros(before, after, "delay_push_seconds", "{outcome=\"success\"}"));
        double commits = delta(before, after, "delay_journal_commit_seconds_count");
        if (commits > 0) {
            out.put("journalCommitsPerCall", commits / calls);
            out.put("journalCommitMicros", meanMicros(before, after, "delay_journal_commit_seconds", ""));
            out.put(
                    "journalRowsPerCommit",
                    delta(before, after, "delay_journal_commit_rows_sum")
                            / Math.max(1, delta(before, after, "delay_journal_commit_rows_count")));
        }
        Map<String, Object> scripts = new TreeMap<>();
        for (String key : after.series().keySet()) {
            if (!key.startsWith("delay_redis_script_seconds_count{")) {
                continue;
            }
            String labels = key.substring("delay_redis_script_seconds_count".length());
            double runs = delta(before, after, key);
            if (runs > 0) {
                scripts.put(
                        labels,
                        Map.of(
                                "runsPerCall",
                                runs / calls,
                                "micros",
                                meanMicros(before, after, "delay_redis_script_seconds", labels)));
            }
        }
        out.put("redisScripts", scripts);
        return out;
    }

    private static double micros(Snapshot before, Snapshot after, String timer, String labels, double count) {
        return delta(before, after, timer + "_sum" + labels) / count * 1e6;
    }

    private static double meanMicros(Snapshot before, Snapshot after, String timer, String labels) {
        double count = delta(before, after, timer + "_count" + labels);
        return count <= 0 ? Double.NaN : micros(before, after, timer, labels, count);
    }

    private static double delta(Snapshot before, Snapshot after, String key) {
        return after.get(key) - before.get(key);
    }
}
