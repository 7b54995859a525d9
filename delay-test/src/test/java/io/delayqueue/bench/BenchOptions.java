package io.delayqueue.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The benchmark's sizes, from the command line. The defaults are the sizes of issue 6; {@code --quick} shrinks
 * every figure for a run of about three minutes while developing, and any flag given after it wins.
 *
 * @param runs measured runs per figure; the table shows their median
 * @param threads concurrent callers of the one-job-per-call push (in-process threads, HTTP connections,
 *     Redisson threads)
 * @param batchThreads concurrent callers of the many-jobs-at-once push
 * @param batchSize jobs per batch ({@code pushBatch}, {@code POST /push/batch}, Redisson async offers awaited
 *     together)
 * @param pushWarmUp the discarded warm-up before a push figure's runs
 * @param pushWarmUpMax the longest that warm-up goes on while the rate still changes from window to window
 * @param pushPreRoll pushing before each run's measurement starts (fills connection pools, reaches steady state)
 * @param pushMeasure how long each push run is measured
 * @param burstJobs jobs that come due at the same instant
 * @param burstWarmUpJobs jobs of the discarded warm-up burst (also times the loading, to choose the lead)
 * @param latenessRate jobs per second of the steady load
 * @param latenessDuration how long each lateness run pushes at that rate
 * @param latenessWarmUp the discarded warm-up before the lateness runs
 * @param pendingJobs pending jobs whose Redis memory is measured
 * @param memoryRuns loads of those pending jobs (memory is nearly deterministic: one by default)
 * @param purgeRows final jobs older than the journal's retention that the purge figure deletes
 * @param bodyBytes size of each job's body
 * @param systems which systems to run: {@code inprocess}, {@code http}, {@code embedded}, {@code redisson} (no
 *     persistence), {@code redisson-fsync} (a private Redis with {@code appendfsync always}), {@code db-scheduler}
 *     (on MariaDB)
 * @param figures which figures to measure: {@code push}, {@code burst}, {@code lateness}, {@code memory},
 *     {@code tier-push}, {@code tier-lateness}, {@code tier-memory}, {@code scale-out}, {@code full-size} (and the
 *     others of {@link #FIGURES})
 * @param output where the JSON goes, relative to the caller's directory; null: {@code delay-test/target/bench/results.json}
 * @param quick whether {@code --quick} shrank the sizes
 * @param fewThreads concurrent callers of the one-job push at ordinary concurrency (HTTP connections of a pool)
 * @param callbackBurstJobs jobs due at one instant for the callback and pull hand-over figures
 * @param pullConsumers consumers of the pull hand-over
 * @param pullCount jobs a consumer asks for per call ({@code GET /get/{topic}?count=})
 * @param e2eRate one-job HTTP pushes per second of the end-to-end lateness figure
 * @param e2eDuration how long each end-to-end run pushes at that rate
 * @param canaryTopics other topics pushed beside the canary
 * @param canaryRate the canary's pushes per second
 * @param canaryDuration how long each canary run pushes
 * @param serviceJar the service jar of the HTTP systems; null: the one this tree packages
 * @param beforeJar an earlier build's service jar, measured in the same run as {@code http-before} and {@code
 *     embedded-before}; null: none
 * @param scaleOutInstances the cluster sizes of the scale-out figure (issue 29, item 5)
 * @param scaleOutCallers one-job push callers per instance of the scale-out figure
 * @param scaleOutWarmUp the scale-out load's unmeasured seconds before its window, per cluster size
 * @param scaleOutMeasure the scale-out figure's measured window, per cluster size
 * @param fullBurstJobs jobs due at one instant of the full-size burst, by HTTP callback (issue 29, item 6)
 * @param fullPendingJobs pending jobs of the full-size push, memory and restore figures
 */
record BenchOptions(
        int runs,
        int threads,
        int batchThreads,
        int batchSize,
        Duration pushWarmUp,
        Duration pushWarmUpMax,
        Duration pushPreRoll,
        Duration pushMeasure,
        int burstJobs,
        int burstWarmUpJobs,
        int latenessRate,
        Duration latenessDuration,
        Duration latenessWarmUp,
        int pendingJobs,
        int memoryRuns,
        int purgeRows,
        int bodyBytes,
        Set<String> systems,
        Set<String> figures,
        Path output,
        boolean quick,
        int fewThreads,
        int callbackBurstJobs,
        int pullConsumers,
        int pullCount,
        int e2eRate,
        Duration e2eDuration,
        int canaryTopics,
        int canaryRate,
        Duration canaryDuration,
        Path serviceJar,
        Path beforeJar,
        List<Integer> scaleOutInstances,
        int scaleOutCallers,
        Duration scaleOutWarmUp,
        Duration scaleOutMeasure,
        int fullBurstJobs,
        int fullPendingJobs) {

    static final List<String> SYSTEMS = List.of(
            "inprocess",
            "http-before",
            "http",
            "embedded-before",
            "embedded",
            "redisson",
            "redisson-fsync",
            "db-scheduler");
    static final List<String> FIGURES = List.of(
            "push",
            "callback",
            "pull",
            "e2e",
            "canary",
            "retry-storm",
            "burst",
            "lateness",
            "memory",
            "purge",
            "tier-push",
            "tier-lateness",
            "tier-memory",
            "scale-out",
            "full-size",
            "cold");

    static final String USAGE =
            """
            bin/bench [--quick] [flags]   (every flag also takes --flag=value)
              --quick                 small sizes: 20k burst, 10 s lateness, 50k pending, 100k purged, 1 run
              --runs N                measured runs per figure, median shown (3)
              --threads N             concurrent callers of the single-job push (128)
              --few-threads N         the same at ordinary concurrency, a client's connection pool (8)
              --batch-threads N       concurrent callers of the batch push (8)
              --batch-size N          jobs per batch (1000, the service's limit)
              --push-seconds S        measured seconds per push run (8)
              --push-warmup S         a push figure's warm-up, then no more (20, then 10 s at a time up to 120 s)
              --burst N               jobs due at the same instant (200000)
              --lateness-rate N       jobs/s of the steady load (2000)
              --lateness-seconds S    seconds per lateness run (60)
              --pending N             pending jobs for the memory figure (1000000)
              --memory-runs N         loads for the memory figure (1)
              --purge-rows N          final journal rows the purge figure deletes (1000000)
              --callback-burst N      jobs due at one instant, handed over by callback and by pull (10000)
              --pull-consumers N      consumers of the pull hand-over (16)
              --pull-count N          jobs per GET /get/{topic}?count= (100; 1: one at a time)
              --e2e-rate N            one-job HTTP pushes/s of the end-to-end lateness, through the callback (1000)
              --e2e-seconds S         seconds per end-to-end run (20)
              --canary-topics N       other topics beside the one-topic canary (20000)
              --scale-out-instances a,b  cluster sizes of the scale-out figure (1,2,4)
              --scale-out-callers N   one-job push callers per instance, scale-out (8)
              --scale-out-warmup S    unmeasured seconds of load per cluster size, scale-out (60; quick 5)
              --scale-out-seconds S   measured seconds per cluster size, scale-out (30; quick 5)
              --full-burst N          jobs due at one instant, full size, by callback (100000; quick 10000)
              --full-pending N        pending jobs of the full-size push, memory and restore (1000000; quick 50000)
              --systems a,b           of inprocess,http,embedded,redisson,redisson-fsync,db-scheduler (all),
                                      http-before,embedded-before
              --figures a,b           of push,callback,pull,e2e,canary,retry-storm,burst,lateness,memory,purge,
                                      tier-push,tier-lateness,tier-memory,scale-out,full-size,
                                      cold (all)
              --service-jar FILE      the service jar of http and embedded (this tree's delay-core-exec.jar)
              --before-jar FILE       an earlier build's jar, run as http-before and embedded-before beside them
              --out FILE              the JSON (delay-test/target/bench/results.json)
            """;

    static BenchOptions parse(String[] args) {
        Map<String, String> flags = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (!arg.startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument " + arg + "\n" + USAGE);
            }
            String name = arg.substring(2);
            String value;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            } else if (name.equals("quick") || name.equals("help")) {
                value = "true";
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                throw new IllegalArgumentException("--" + name + " needs a value\n" + USAGE);
            }
            flags.put(name, value);
        }
        if (flags.containsKey("help")) {
            System.out.print(USAGE);
            System.exit(0);
        }
        boolean quick = Boolean.parseBoolean(flags.getOrDefault("quick", "false"));
        BenchOptions options = new BenchOptions(
                integer(flags, "runs", quick ? 1 : 3),
                integer(flags, "threads", 128),
                integer(flags, "batch-threads", 8),
                integer(flags, "batch-size", 1000),
                // push warm-up: the HTTP service is a fresh JVM, its JIT needs it
                Duration.ofSeconds(integer(flags, "push-warmup", quick ? 3 : 20)),
                Duration.ofSeconds(
                        flags.containsKey("push-warmup") ? integer(flags, "push-warmup", 0) : quick ? 3 : 120),
                Duration.ofSeconds(1),
                Duration.ofSeconds(integer(flags, "push-seconds", quick ? 3 : 8)),
                integer(flags, "burst", quick ? 20_000 : 200_000),
                quick ? 5_000 : 20_000,
                integer(flags, "lateness-rate", 2_000),
                Duration.ofSeconds(integer(flags, "lateness-seconds", quick ? 10 : 60)),
                Duration.ofSeconds(quick ? 3 : 10),
                integer(flags, "pending", quick ? 50_000 : 1_000_000),
                integer(flags, "memory-runs", 1),
                integer(flags, "purge-rows", quick ? 100_000 : 1_000_000),
                100,
                names(
                        flags,
                        "systems",
                        flags.containsKey("before-jar")
                                ? SYSTEMS
                                : SYSTEMS.stream()
                                        .filter(n -> !n.endsWith("-before"))
                                        .toList()),
                names(flags, "figures", FIGURES),
                flags.containsKey("out") ? Path.of(flags.get("out")) : null,
                quick,
                integer(flags, "few-threads", 8),
                integer(flags, "callback-burst", quick ? 5_000 : 10_000),
                integer(flags, "pull-consumers", 16),
                integer(flags, "pull-count", 100),
                integer(flags, "e2e-rate", 1_000),
                Duration.ofSeconds(integer(flags, "e2e-seconds", quick ? 10 : 20)),
                integer(flags, "canary-topics", quick ? 5_000 : 20_000),
                200,
                Duration.ofSeconds(quick ? 5 : 10),
                jar(flags, "service-jar"),
                jar(flags, "before-jar"),
                integers(flags, "scale-out-instances", List.of(1, 2, 4)),
                integer(flags, "scale-out-callers", 8),
                Duration.ofSeconds(integer(flags, "scale-out-warmup", quick ? 5 : 60)),
                Duration.ofSeconds(integer(flags, "scale-out-seconds", quick ? 5 : 30)),
                integer(flags, "full-burst", quick ? 10_000 : 100_000),
                integer(flags, "full-pending", quick ? 50_000 : 1_000_000));
        flags.keySet()
                .removeAll(Set.of(
                        "quick",
                        "runs",
                        "threads",
                        "batch-threads",
                        "batch-size",
                        "push-seconds",
                        "push-warmup",
                        "burst",
                        "lateness-rate",
                        "lateness-seconds",
                        "pending",
                        "memory-runs",
                        "purge-rows",
                        "systems",
                        "figures",
                        "out",
                        "few-threads",
                        "callback-burst",
                        "pull-consumers",
                        "pull-count",
                        "e2e-rate",
                        "e2e-seconds",
                        "canary-topics",
                        "service-jar",
                        "before-jar",
                        "scale-out-instances",
                        "scale-out-callers",
                        "scale-out-warmup",
                        "scale-out-seconds",
                        "full-burst",
                        "full-pending"));
        if (!flags.isEmpty()) {
            throw new IllegalArgumentException("unknown flag(s) " + flags.keySet() + "\n" + USAGE);
        }
        if (options.runs < 1
                || options.threads < 1
                || options.fewThreads < 1
                || options.pullConsumers < 1
                || options.pullCount < 1
                || options.callbackBurstJobs < 1
                || options.e2eRate < 1
                || options.batchThreads < 1
                || options.memoryRuns < 1
                || options.purgeRows < 1
                || options.scaleOutCallers < 1
                || options.scaleOutMeasure.isZero()
                || options.fullBurstJobs < 1
                || options.fullPendingJobs < 1
                || options.scaleOutInstances.stream().anyMatch(n -> n < 1)) {
            throw new IllegalArgumentException("runs, threads, batch threads, memory runs, purge rows, consumers,"
                    + " counts, bursts and rates must be at least 1");
        }
        if (options.batchSize < 1 || options.batchSize > 1000) {
            throw new IllegalArgumentException("--batch-size must be between 1 and 1000 (the service's limit)");
        }
        return options;
    }

    boolean runs(String system) {
        return systems.contains(system);
    }

    boolean measures(String figure) {
        return figures.contains(figure);
    }

    /** The options as the JSON records them. */
    Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("quick", quick);
        m.put("runs", runs);
        m.put("threads", threads);
        m.put("batchThreads", batchThreads);
        m.put("batchSize", batchSize);
        m.put("pushWarmUpSeconds", pushWarmUp.toSeconds());
        m.put("pushWarmUpMaxSeconds", pushWarmUpMax.toSeconds());
        m.put("pushPreRollSeconds", pushPreRoll.toSeconds());
        m.put("pushMeasureSeconds", pushMeasure.toSeconds());
        m.put("burstJobs", burstJobs);
        m.put("burstWarmUpJobs", burstWarmUpJobs);
        m.put("latenessRate", latenessRate);
        m.put("latenessSeconds", latenessDuration.toSeconds());
        m.put("latenessWarmUpSeconds", latenessWarmUp.toSeconds());
        m.put("pendingJobs", pendingJobs);
        m.put("memoryRuns", memoryRuns);
        m.put("purgeRows", purgeRows);
        m.put("bodyBytes", bodyBytes);
        m.put("systems", List.copyOf(systems));
        m.put("figures", List.copyOf(figures));
        m.put("fewThreads", fewThreads);
        m.put("callbackBurstJobs", callbackBurstJobs);
        m.put("pullConsumers", pullConsumers);
        m.put("pullCount", pullCount);
        m.put("e2eRate", e2eRate);
        m.put("e2eSeconds", e2eDuration.toSeconds());
        m.put("canaryTopics", canaryTopics);
        m.put("canaryRate", canaryRate);
        m.put("canarySeconds", canaryDuration.toSeconds());
        m.put("serviceJar", serviceJar == null ? null : serviceJar.toString());
        m.put("beforeJar", beforeJar == null ? null : beforeJar.toString());
        m.put("scaleOutInstances", scaleOutInstances);
        m.put("scaleOutCallersPerInstance", scaleOutCallers);
        m.put("scaleOutWarmUpSeconds", scaleOutWarmUp.toSeconds());
        m.put("scaleOutSeconds", scaleOutMeasure.toSeconds());
        m.put("fullBurstJobs", fullBurstJobs);
        m.put("fullPendingJobs", fullPendingJobs);
        return m;
    }

    /** A jar named relative to where bin/bench was called. */
    private static Path jar(Map<String, String> flags, String name) {
        String v = flags.get(name);
        return v == null
                ? null
                : Path.of(System.getProperty("bench.cwd", "."))
                        .resolve(v)
                        .toAbsolutePath()
                        .normalize();
    }

    private static int integer(Map<String, String> flags, String name, int fallback) {
        String v = flags.get(name);
        if (v == null) {
            return fallback;
        }
        try {
            return Integer.parseInt(v.replace("_", "").replace(",", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " wants a whole number, not " + v);
        }
    }

    /** A comma-separated list of whole numbers, e.g. {@code 1,2,4}. */
    private static List<Integer> integers(Map<String, String> flags, String name, List<Integer> fallback) {
        String v = flags.get(name);
        if (v == null) {
            return fallback;
        }
        List<Integer> out = new java.util.ArrayList<>();
        for (String part : v.split(",")) {
            try {
                out.add(Integer.parseInt(part.trim()));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--" + name + " wants whole numbers separated by commas, not " + v);
            }
        }
        return List.copyOf(out);
    }

    private static Set<String> names(Map<String, String> flags, String name, List<String> known) {
        String v = flags.get(name);
        if (v == null) {
            return new LinkedHashSet<>(known);
        }
        Set<String> out = new LinkedHashSet<>();
        for (String part : v.toLowerCase(Locale.ROOT).split(",")) {
            String p = part.trim();
            if (!known.contains(p)) {
                throw new IllegalArgumentException("--" + name + ": " + p + " is none of " + known);
            }
            out.add(p);
        }
        return out;
    }
}
