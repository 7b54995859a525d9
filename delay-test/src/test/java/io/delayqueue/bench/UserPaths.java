package io.delayqueue.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.ConcurrentHistogram;

/**
 * The hand-over paths users take, measured from this process against the packaged service (over HTTP): due jobs
 * called back by the {@code http} dispatcher to a {@link CallbackReceiver}, pulled by consumers, the end-to-end
 * lateness from an HTTP push to its callback, and a one-topic canary beside many other topics. The service is
 * started with {@link #routes()}; every job is pushed over HTTP.
 */
final class UserPaths {
    static final String CALLBACK_TOPIC = "cb";
    static final String PULL_TOPIC = "pulled";
    static final String CANARY_TOPIC = "canary";
    /** A topic of the default route (the console): its jobs here are due in an hour, never handed over in a run. */
    static final String STORM_TOPIC = "storm";

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Workers of the paced pushes, each with a keep-alive connection of its own. */
    private static final int PACED_WORKERS = 32;

    private final int port;
    private final CallbackReceiver receiver;
    private final String body;
    private final int pullCount;

    UserPaths(int port, CallbackReceiver receiver, int bodyBytes, int pullCount) {
        this.port = port;
        this.receiver = receiver;
        this.body = "x".repeat(bodyBytes);
        this.pullCount = pullCount;
    }

    /** The routes of the service under test: the callback and canary topics to {@code http}, one pull topic. */
    static List<String> routes() {
        return List.of(
                "--delay.dispatch.topics." + CALLBACK_TOPIC + "=http",
                "--delay.dispatch.topics." + CANARY_TOPIC + "=http",
                "--delay.dispatch.topics." + PULL_TOPIC + "=pull");
    }

    RunResult callbackBurst(int jobs) throws Exception {
        return callbackBurst(jobs, 0, () -> {});
    }

    /**
     * As {@link #callbackBurst(int)}, due {@code extraLeadMs} later, with {@code afterLoad} run once the jobs are
     * pushed and before they are due (a take-over: the leader killed).
     */
    RunResult callbackBurst(int jobs, long extraLeadMs, Runnable afterLoad) throws Exception {
        HandOvers handOvers = HandOvers.counting();
        handOvers.expect(jobs);
        receiver.recordInto(handOvers);
        long redeliveredBefore = receiver.redelivered();
        long lead = 5_000 + jobs / 10L + extraLeadMs;
        long dueAt = System.currentTimeMillis() + lead;
        double loadSeconds = load(CALLBACK_TOPIC, jobs, dueAt, ",\"url\":\"" + receiver.url() + "\"");
        afterLoad.run();
        RunResult run = Figures.awaitBurst(handOvers, jobs, dueAt, loadSeconds, lead, "were called back");
        return withLastLate(run)
                .with("dueAtMs", dueAt)
                .with("redelivered", receiver.redelivered() - redeliveredBefore)
                .with("malformedCallbacks", receiver.malformed());
    }

    RunResult pullBurst(int jobs, int consumers) throws Exception {
        HandOvers handOvers = HandOvers.counting();
        handOvers.expect(jobs);
        long lead = 5_000 + jobs / 10L;
        long dueAt = System.currentTimeMillis() + lead;
        AtomicBoolean batches = new AtomicBoolean(pullCount > 1);
        AtomicLong finished = new AtomicLong();
        AtomicLong requests = new AtomicLong();
        AtomicInteger stale = new AtomicInteger();
        long stopAt = System.currentTimeMillis() + lead + Figures.BURST_TIMEOUT.toMillis();
        List<Thread> threads = new ArrayList<>();
        List<Exception> failures = new ArrayList<>();
        for (int i = 0; i < consumers; i++) {
            Thread t = new Thread(
                    () -> {
                        try (HttpConnection c = new HttpConnection("127.0.0.1", port)) {
                            while (finished.get() < jobs && System.currentTimeMillis() < stopAt) {
                                requests.incrementAndGet();
                                try {
                                    List<JsonNode> taken = take(c, batches);
                                    stale.addAndGet(finish(c, taken, batches.get()));
                                    for (JsonNode job : taken) {
                                        handOvers.record(job.get("executeAt").asLong());
                                    }
                                    finished.addAndGet(taken.size());
                                } catch (Exception e) {
                                    // the job comes back after its ttr; the run fails if any call failed
                                    synchronized (failures) {
                                        failures.add(e);
                                    }
                                    Thread.sleep(100);
                                }
                            }
                        } catch (Exception e) {
                            synchronized (failures) {
                                failures.add(e);
                            }
                        }
                    },
                    "bench-pull-consumer-" + i);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        try {
            double loadSeconds = load(PULL_TOPIC, jobs, dueAt, ",\"ttr\":60000");
            RunResult run = Figures.awaitBurst(handOvers, jobs, dueAt, loadSeconds, lead, "were pulled and finished");
            synchronized (failures) {
                if (!failures.isEmpty()) {
                    throw new IllegalStateException(
                            failures.size() + " consumer calls failed, the first: " + failures.get(0), failures.get(0));
                }
            }
            return withLastLate(run)
                    .with("consumers", consumers)
                    .with("count", batches.get() ? pullCount : 1)
                    .with("requests", requests.get())
                    .with("staleFinishes", stale.get());
        } finally {
            for (Thread t : threads) {
                t.join(5_000);
            }
            synchronized (failures) {
                if (!failures.isEmpty()) {
                    throw new IllegalStateException("a consumer failed: " + failures.get(0), failures.get(0));
                }
            }
        }
    }

    /**
     * Reserves ready jobs: {@code count} at a time where the service takes it; a service that answers 400 to
     * {@code count} (before batch pull) is asked one job at a time from then on.
     */
    private List<JsonNode> take(HttpConnection c, AtomicBoolean batches) throws Exception {
        String path = "/get/" + PULL_TOPIC + "?timeout=1000";
        if (batches.get()) {
            HttpConnection.Response r = c.get(path + "&count=" + pullCount);
            if (r.status() == 400) {
                batches.set(false);
            } else {
                JsonNode data = ok(r, "GET /get").get("data");
                List<JsonNode> jobs = new ArrayList<>();
                if (data != null && data.isArray()) {
                    data.forEach(jobs::add);
                } else if (data != null && data.isObject()) {
                    batches.set(false); // a service that ignores count: one job, finished on its own
                    jobs.add(data);
                }
                return jobs;
            }
        }
        JsonNode data = ok(c.get(path), "GET /get").get("data");
        return data == null || data.isNull() ? List.of() : List.of(data);
    }

    /** Finishes what was taken: one call for all ({@code POST /jobs/finish}) or one per job; returns stale ones. */
    private static int finish(HttpConnection c, List<JsonNode> taken, boolean batch) throws Exception {
        if (taken.isEmpty()) {
            return 0;
        }
        int stale = 0;
        if (batch) {
            StringBuilder sb = new StringBuilder("[");
            for (JsonNode job : taken) {
                sb.append(sb.length() > 1 ? "," : "")
                        .append("{\"id\":\"")
                        .append(job.get("id").asText())
                        .append("\",\"attempts\":")
                        .append(job.get("attempts").asInt())
                        .append('}');
            }
            HttpConnection.Response r =
                    c.postJson("/jobs/finish", sb.append(']').toString().getBytes(StandardCharsets.UTF_8));
            ok(r, "POST /jobs/finish");
            return 0;
        }
        for (JsonNode job : taken) {
            HttpConnection.Response r = c.postJson(
                    "/jobs/" + job.get("id").asText() + "/finish?attempts="
                            + job.get("attempts").asInt(),
                    new byte[0]);
            if (r.status() == 409) {
                stale++;
            } else {
                ok(r, "POST /jobs/{id}/finish");
            }
        }
        return stale;
    }

    RunResult callbackLateness(int rate, Duration duration) throws Exception {
        HandOvers handOvers = HandOvers.recordingLateness();
        receiver.recordInto(handOvers);
        ConcurrentHistogram pushMicros = new ConcurrentHistogram(3);
        Map<String, Number> load = pacedPushes(CALLBACK_TOPIC, rate, duration, 1_000, 5_000, pushMicros);
        long pushed = load.get("pushed").longValue();
        if (handOvers.await(pushed, Duration.ofSeconds(35)) < 0) {
            throw new IllegalStateException((pushed - handOvers.count()) + " of " + pushed
                    + " jobs were not called back within 30 s of their due time");
        }
        return Figures.lateness(handOvers.lateness(), handOvers.early(), load)
                .with("pushP50Ms", pushMicros.getValueAtPercentile(50) / 1e3)
                .with("pushP99Ms", pushMicros.getValueAtPercentile(99) / 1e3);
    }

    /**
     * The canary alone, then {@code topics} other topics pushed (each one job, due in an hour), then the canary
     * again: its push p99 and lateness p99 both times.
     */
    RunResult canary(int topics, int rate, Duration duration) throws Exception {
        canaryRun(rate, duration); // a warm-up: the service is a fresh JVM whose JIT is at work under a first load
        RunResult alone = canaryRun(rate, duration);
        long due = System.currentTimeMillis() + Duration.ofHours(1).toMillis();
        try (HttpConnection c = new HttpConnection("127.0.0.1", port)) {
            for (int from = 0; from < topics; from += 1_000) {
                StringBuilder sb = new StringBuilder("[");
                for (int t = from; t < Math.min(topics, from + 1_000); t++) {
                    sb.append(t > from ? "," : "")
                            .append("{\"topic\":\"other-")
                            .append(t)
                            .append("\",\"body\":\"x\",\"executeAt\":")
                            .append(due)
                            .append('}');
                }
                ok(
                        c.postJson("/push/batch", sb.append(']').toString().getBytes(StandardCharsets.UTF_8)),
                        "POST /push/batch");
            }
        }
        RunResult many = canaryRun(rate, duration);
        return RunResult.of("pushP99Ms", many.value("pushP99Ms"))
                .and("latenessP99Ms", many.value("latenessP99Ms"))
                .and("alonePushP99Ms", alone.value("pushP99Ms"))
                .and("aloneLatenessP99Ms", alone.value("latenessP99Ms"))
                .with("otherTopics", topics)
                .with("alone", alone.toMap())
                .with("beside", many.toMap());
    }

    /**
     * One-job pushes at a steady {@code rate} (due in an hour), first quiet, then while another client re-pushes
     * the same {@code knownIds} client ids (the documented retry) in batches, ten a second (or as fast as they are
     * answered, if slower): the pushes' p99 both times ({@code quietPushP99Ms}, {@code stormPushP99Ms}).
     */
    RunResult retryStorm(int knownIds, int rate, Duration duration) throws Exception {
        long due = System.currentTimeMillis() + Duration.ofHours(1).toMillis();
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < knownIds; i++) {
            sb.append(i > 0 ? "," : "")
                    .append("{\"id\":\"known-")
                    .append(i)
                    .append("\",\"topic\":\"")
                    .append(STORM_TOPIC)
                    .append("\",\"body\":\"x\",\"executeAt\":")
                    .append(due)
                    .append('}');
        }
        byte[] known = sb.append(']').toString().getBytes(StandardCharsets.UTF_8);
        AtomicLong stormCalls = new AtomicLong();
        AtomicBoolean storming = new AtomicBoolean(true);
        List<Exception> failures = new ArrayList<>();
        try (HttpConnection c = new HttpConnection("127.0.0.1", port)) {
            ok(c.postJson("/push/batch", known), "POST /push/batch");
        }
        int hour = (int) Duration.ofHours(1).toMillis();
        ConcurrentHistogram quiet = new ConcurrentHistogram(3);
        pacedPushes(STORM_TOPIC, rate, duration, hour, hour, quiet);
        Thread storm = new Thread(
                () -> {
                    try (HttpConnection c = new HttpConnection("127.0.0.1", port)) {
                        // ten batches a second (10,000 known ids/s), the same load whatever the build: a
                        // retrying client at a steady rate, not one that takes whatever the service gives
                        long next = System.nanoTime();
                        while (storming.get()) {
                            ok(c.postJson("/push/batch", known), "POST /push/batch of known ids");
                            stormCalls.incrementAndGet();
                            next += 100_000_000L;
                            long wait = next - System.nanoTime();
                            if (wait > 0) {
                                Thread.sleep(wait / 1_000_000L, (int) (wait % 1_000_000L));
                            }
                        }
                    } catch (Exception e) {
                        synchronized (failures) {
                            failures.add(e);
                        }
                    }
                },
                "bench-retry-storm");
        storm.setDaemon(true);
        storm.start();
        ConcurrentHistogram during = new ConcurrentHistogram(3);
        try {
            pacedPushes(STORM_TOPIC, rate, duration, hour, hour, during);
        } finally {
            storming.set(false);
            storm.join(30_000);
        }
        synchronized (failures) {
            if (!failures.isEmpty()) {
                throw new IllegalStateException("the re-pushing client failed: " + failures.get(0), failures.get(0));
            }
        }
        return RunResult.of("quietPushP99Ms", quiet.getValueAtPercentile(99) / 1e3)
                .and("stormPushP99Ms", during.getValueAtPercentile(99) / 1e3)
                .with("quietPushP50Ms", quiet.getValueAtPercentile(50) / 1e3)
                .with("stormPushP50Ms", during.getValueAtPercentile(50) / 1e3)
                .with("knownIds", knownIds)
                .with("reKnownBatches", stormCalls.get());
    }

    private RunResult canaryRun(int rate, Duration duration) throws Exception {
        HandOvers handOvers = HandOvers.recordingLateness();
        receiver.recordInto(handOvers);
        ConcurrentHistogram pushMicros = new ConcurrentHistogram(3);
        Map<String, Number> load = pacedPushes(CANARY_TOPIC, rate, duration, 1_000, 2_000, pushMicros);
        long pushed = load.get("pushed").longValue();
        if (handOvers.await(pushed, Duration.ofSeconds(35)) < 0) {
            throw new IllegalStateException((pushed - handOvers.count()) + " of " + pushed
                    + " canary jobs were not called back within 30 s of their due time");
        }
        return RunResult.of("pushP99Ms", pushMicros.getValueAtPercentile(99) / 1e3)
                .and("latenessP99Ms", handOvers.lateness().getValueAtPercentile(99) / 1e3)
                .with("pushP50Ms", pushMicros.getValueAtPercentile(50) / 1e3)
                .with("latenessP50Ms", handOvers.lateness().getValueAtPercentile(50) / 1e3)
                .with("pushed", pushed);
    }

    /** One-job pushes at a steady rate, due in {@code minDelay..maxDelay} ms, to be called back to the receiver. */
    private Map<String, Number> pacedPushes(
            String topic, int rate, Duration duration, int minDelay, int maxDelay, ConcurrentHistogram pushMicros)
            throws Exception {
        List<HttpConnection> connections = new ArrayList<>();
        ThreadLocal<HttpConnection> connection = ThreadLocal.withInitial(() -> {
            try {
                HttpConnection c = new HttpConnection("127.0.0.1", port);
                synchronized (connections) {
                    connections.add(c);
                }
                return c;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        String url = topic.equals(STORM_TOPIC) ? "" : ",\"url\":\"" + receiver.url() + "\"";
        String prefix = "{\"topic\":\"" + topic + "\",\"body\":\"" + body + "\"" + url + ",\"executeAt\":";
        try {
            return LoadDriver.paced(rate, duration, PACED_WORKERS, seq -> {
                long executeAt =
                        System.currentTimeMillis() + ThreadLocalRandom.current().nextInt(minDelay, maxDelay + 1);
                byte[] json = (prefix + executeAt + "}").getBytes(StandardCharsets.UTF_8);
                long start = System.nanoTime();
                HttpConnection.Response r = connection.get().postJson("/push", json);
                pushMicros.recordValue((System.nanoTime() - start) / 1_000);
                ok(r, "POST /push");
            });
        } finally {
            synchronized (connections) {
                for (HttpConnection c : connections) {
                    c.close();
                }
            }
        }
    }

    /** Pushes {@code jobs} jobs of {@code topic} due at {@code dueAt}, 1,000 per call on 4 connections. */
    private double load(String topic, int jobs, long dueAt, String extraFields) throws Exception {
        String job =
                "{\"topic\":\"" + topic + "\",\"body\":\"" + body + "\",\"executeAt\":" + dueAt + extraFields + "}";
        AtomicInteger next = new AtomicInteger();
        long start = System.nanoTime();
        Parallel.run(4, "bench-load", () -> {
            try (HttpConnection c = new HttpConnection("127.0.0.1", port)) {
                int from;
                while ((from = next.getAndAdd(1_000)) < jobs) {
                    int n = Math.min(1_000, jobs - from);
                    byte[] json = ("[" + String.join(",", java.util.Collections.nCopies(n, job)) + "]")
                            .getBytes(StandardCharsets.UTF_8);
                    ok(c.postJson("/push/batch", json), "POST /push/batch");
                }
            }
        });
        return (System.nanoTime() - start) / 1e9;
    }

    private static RunResult withLastLate(RunResult burst) {
        return burst.and("lastLateMs", ((Number) burst.details().get("secondsFromDueToLast")).doubleValue() * 1e3);
    }

    private static JsonNode ok(HttpConnection.Response r, String what) throws Exception {
        if (r.status() != 200) {
            throw new IllegalStateException(what + " answered " + r.status() + ": " + r.text());
        }
        return JSON.readTree(r.body());
    }
}
