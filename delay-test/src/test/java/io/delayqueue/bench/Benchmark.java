package io.delayqueue.bench;

import io.delayqueue.bench.BenchTarget.Kind;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * The benchmark of issue 6: this service in-process, this service over HTTP, and its peers side by side in one
 * run: Redisson's {@code RDelayedQueue} on the same Redis (no persistence: the ceiling) and the durable peers of
 * issue 29, Redisson on a private Redis with {@code appendfsync always} and db-scheduler on MariaDB. Prints one markdown table (with the
 * machine and the versions) on standard output, progress on standard error, and writes the same figures with
 * every run as JSON. Not a test: run it with {@code bin/bench} ({@code bin/bench --help} lists the flags).
 *
 * <p>Each figure is a discarded warm-up followed by the measured runs; the table shows their median. A system
 * or a figure that fails shows as "failed: reason" in its cells; the others go on.
 */
public final class Benchmark {
    private static final Duration SETTLE_WINDOW = Duration.ofSeconds(10);
    private static final double SETTLE_TOLERANCE = 0.10;
    /** The most warm-up bursts before a hand-over figure's runs. */
    private static final int MAX_WARM_UP_BURSTS = 6;

    /** A burst run slower than this (due instant to last hand-over) is not repeated. */
    private static final int SLOW_BURST_SECONDS = 60;

    private final BenchOptions options;
    private final BenchRedis redis;
    private final Path root;
    private final long startNanos = System.nanoTime();

    private Benchmark(BenchOptions options, BenchRedis redis, Path root) {
        this.options = options;
        this.redis = redis;
        this.root = root;
    }

    public static void main(String[] args) throws Exception {
        BenchOptions options;
        try {
            options = BenchOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        Path root =
                Path.of(System.getProperty("bench.root", ".")).toAbsolutePath().normalize();
        Path cwd =
                Path.of(System.getProperty("bench.cwd", ".")).toAbsolutePath().normalize();
        // --out is relative to where bin/bench was called; the default lives under delay-test/target
        Path output = options.output() != null
                ? cwd.resolve(options.output())
                : root.resolve("delay-test/target/bench/results.json");
        Instant startedAt = Instant.now();
        try (BenchRedis redis = new BenchRedis()) {
            Benchmark benchmark = new Benchmark(options, redis, root);
            Map<String, String> machine = BenchEnvironment.machine(redis);
            Map<String, String> versions = BenchEnvironment.versions();
            benchmark.progress("machine " + machine + "; versions " + versions);
            Map<String, Map<Kind, Measurement>> results = new LinkedHashMap<>();
            for (String system : BenchOptions.SYSTEMS) {
                if (options.runs(system)) {
                    results.put(system, benchmark.runSystem(system));
                }
            }
            machine.put("loadAtEnd", BenchEnvironment.loadAverage());
            Duration elapsed = Duration.ofNanos(System.nanoTime() - benchmark.startNanos);
            BenchReport report = new BenchReport(options, machine, versions, results, startedAt, elapsed);
            System.out.print(report.markdown());
            System.out.flush();
            report.writeJson(output);
            benchmark.progress("wrote " + output);
        }
        System.exit(0); // client libraries leave non-daemon threads behind
    }

    private Map<Kind, Measurement> runSystem(String system) {
        Map<Kind, Measurement> out = new EnumMap<>(Kind.class);
        BenchTarget target;
        progress(system + ": starting");
        try {
            target = switch (system) {
                case "inprocess" -> new InProcessTarget(options, redis);
                case "http" -> new HttpTarget(options, redis, root, false, options.serviceJar());
                case "embedded" -> new HttpTarget(options, redis, root, true, options.serviceJar());
                case "http-before" -> new HttpTarget(options, redis, root, false, options.beforeJar());
                case "embedded-before" -> new HttpTarget(options, redis, root, true, options.beforeJar());
                case "redisson" -> new RedissonTarget(options, redis);
                case "redisson-fsync" -> RedissonTarget.onAlwaysFsyncRedis(options);
                case "db-scheduler" -> new DbSchedulerTarget(options);
                default -> throw new IllegalArgumentException(system);
            };
        } catch (Exception e) {
            progress(system + ": could not start: " + e);
            e.printStackTrace();
            for (Kind kind : Kind.values()) {
                if (options.measures(figureOf(kind))) {
                    Measurement m = new Measurement();
                    m.fail("could not start: " + describe(e));
                    out.put(kind, m);
                }
            }
            return out;
        }
        try {
            for (Kind kind : Kind.values()) {
                if (!options.measures(figureOf(kind))) {
                    continue;
                }
                String why = target.notMeasured(kind);
                out.put(kind, why != null ? Measurement.notMeasured(why) : measure(system, target, kind));
            }
        } finally {
            try {
                target.close();
            } catch (Exception e) {
                progress(system + ": closing failed: " + e);
                e.printStackTrace();
            }
        }
        return out;
    }

    private static String figureOf(Kind kind) {
        return switch (kind) {
            case PUSH_FEW, PUSH_SINGLE, PUSH_BATCH -> "push";
            case CALLBACK_BURST -> "callback";
            case PULL_BURST -> "pull";
            case CALLBACK_LATENESS -> "e2e";
            case CANARY -> "canary";
            case RETRY_STORM -> "retry-storm";
            case BURST -> "burst";
            case LATENESS -> "lateness";
            case MEMORY -> "memory";
            case PURGE -> "purge";
            case TIER_PUSH -> "tier-push";
            case TIER_LATENESS -> "tier-lateness";
            case TIER_MEMORY -> "tier-memory";
            case SCALE_OUT -> "scale-out";
            case FULL_BURST, FULL_PENDING -> "full-size";
            case FIRST_BURST, TAKE_OVER -> "cold";
        };
    }

    private Measurement measure(String system, BenchTarget target, Kind kind) {
        Measurement m = new Measurement();
        String what = system + " " + kind.name().toLowerCase(Locale.ROOT).replace('_', '-');
        try {
            switch (kind) {
                case CALLBACK_BURST, PULL_BURST -> {
                    int jobs = options.callbackBurstJobs();
                    m.warmUp(warmUpHandOver(what, target, kind, jobs));
                    for (int i = 1; i <= options.runs(); i++) {
                        m.add(report(what + " run " + i, handOver(target, kind, jobs)));
                    }
                }
                case CALLBACK_LATENESS -> {
                    m.warmUp(report(
                            what + " warm-up", target.callbackLateness(options.e2eRate(), options.latenessWarmUp())));
                    for (int i = 1; i <= options.runs(); i++) {
                        m.add(report(
                                what + " run " + i, target.callbackLateness(options.e2eRate(), options.e2eDuration())));
                    }
                }
                case CANARY -> {
                    m.add(report(
                            what + " (" + options.canaryTopics() + " other topics)",
                            target.canary(options.canaryTopics(), options.canaryRate(), options.canaryDuration())));
                    m.note("one run: the topics pushed stay known to the service for its life");
                }
                case RETRY_STORM -> {
                    for (int i = 1; i <= options.runs(); i++) {
                        m.add(report(
                                what + " run " + i,
                                target.retryStorm(1_000, options.canaryRate(), options.canaryDuration())));
                    }
                }
                case PUSH_FEW, PUSH_SINGLE, PUSH_BATCH -> {
                    m.warmUp(warmUpPush(what, target, kind));
                    for (int i = 1; i <= options.runs(); i++) {
                        m.add(report(
                                what + " run " + i, push(target, kind, options.pushPreRoll(), options.pushMeasure())));
                    }
                }
                case BURST -> {
                    int warmUpJobs = options.burstWarmUpJobs();
                    RunResult warmUp = target.burst(warmUpJobs, Math.max(3_000, warmUpJobs / 4));
                    m.warmUp(report(what + " warm-up (" + warmUpJobs + " jobs)", warmUp));
                    double loadRate = warmUpJobs / (double) warmUp.details().get("loadSeconds");
                    long lead = Math.max(3_000, (long) (options.burstJobs() / loadRate * 1_500) + 2_000);
                    for (int i = 1; i <= options.runs(); i++) {
                        RunResult run = target.burst(options.burstJobs(), lead);
                        if (Boolean.TRUE.equals(run.details().get("overran"))) {
                            m.note("run " + i + ": loading outlasted the lead of " + lead + " ms; run again with "
                                    + lead * 2 + " ms");
                            progress(what + " run " + i + ": loading outlasted the lead; again with twice the lead");
                            lead *= 2;
                            run = target.burst(options.burstJobs(), lead);
                            if (Boolean.TRUE.equals(run.details().get("overran"))) {
                                throw new IllegalStateException("loading outlasted a lead of " + lead + " ms twice");
                            }
                        }
                        m.add(report(what + " run " + i, run));
                        double seconds = (double) run.details().get("secondsFromDueToLast");
                        if (seconds > SLOW_BURST_SECONDS && i < options.runs()) {
                            m.note("runs after run " + i + " skipped: it took " + Math.round(seconds)
                                    + " s from the due instant to the last hand-over (over " + SLOW_BURST_SECONDS
                                    + " s), and the benchmark's time is bounded");
                            progress(what + ": a run took over " + SLOW_BURST_SECONDS + " s; skipping the others");
                            break;
                        }
                    }
                }
                case LATENESS -> {
                    m.warmUp(report(
                            what + " warm-up", target.lateness(options.latenessRate(), options.latenessWarmUp())));
                    for (int i = 1; i <= options.runs(); i++) {
                        m.add(report(
                                what + " run " + i,
                                target.lateness(options.latenessRate(), options.latenessDuration())));
                    }
                }
                case MEMORY -> {
                    for (int i = 1; i <= options.memoryRuns(); i++) {
                        m.add(report(what + " run " + i, target.memory(options.pendingJobs())));
                    }
                }
                case PURGE -> m.add(report(
                        what + " (" + options.purgeRows() + " final rows)",
                        target.purge(options.purgeRows(), options.pushWarmUp(), options.pushMeasure())));
                case TIER_PUSH -> {
                    m.warmUp(report(what + " warm-up", target.tierPush(Duration.ZERO, options.pushWarmUp())));
                    for (int i = 1; i <= options.runs(); i++) {
                        m.add(report(
                                what + " run " + i, target.tierPush(options.pushPreRoll(), options.pushMeasure())));
                    }
                }
                case TIER_LATENESS -> {
                    m.warmUp(report(
                            what + " warm-up", target.tierLateness(options.latenessRate(), options.latenessWarmUp())));
                    for (int i = 1; i <= options.runs(); i++) {
                        m.add(report(
                                what + " run " + i,
                                target.tierLateness(options.latenessRate(), options.latenessDuration())));
                    }
                }
                case SCALE_OUT -> {
                    m.add(report(what + " (" + options.scaleOutInstances() + " instances)", target.scaleOut()));
                    m.note("one run: each cluster size warms up for "
                            + options.scaleOutWarmUp().toSeconds()
                            + " s of the same load before its measured window, then"
                            + " 10 s more at a time while the JVMs' JIT compiler threads take over 5% of their CPU (up to "
                            + ScaleOut.WARM_UP_MAX_FACTOR + "x; the JSON's warmUp)");
                }
                case FULL_BURST -> {
                    // a fresh service's first bursts are slower (issue 29, item 4): one of the ordinary size first
                    m.warmUp(report(
                            what + " warm-up (" + options.callbackBurstJobs() + " jobs)",
                            target.callbackBurst(options.callbackBurstJobs())));
                    m.add(report(
                            what + " (" + options.fullBurstJobs() + " jobs)",
                            target.fullBurst(options.fullBurstJobs())));
                    m.note("one run, after one burst of " + options.callbackBurstJobs() + " as the warm-up");
                }
                case FIRST_BURST -> {
                    for (int i = 1; i <= options.runs(); i++) {
                        m.add(report(what + " run " + i + " (a fresh service)", target.firstBurst()));
                    }
                }
                case TAKE_OVER -> {
                    for (int i = 1; i <= options.runs(); i++) {
                        m.add(report(what + " run " + i + " (a fresh pair)", target.takeOver()));
                    }
                }
                case FULL_PENDING -> {
                    m.add(report(
                            what + " (" + options.fullPendingJobs() + " pending)",
                            target.fullPending(options.fullPendingJobs())));
                    m.note("one run");
                }
                case TIER_MEMORY -> {
                    for (int i = 1; i <= options.memoryRuns(); i++) {
                        m.add(report(what + " run " + i, target.tierMemory(options.pendingJobs())));
                    }
                }
            }
        } catch (Exception e) {
            progress(what + " failed: " + e);
            e.printStackTrace();
            m.fail(describe(e));
        }
        return m;
    }

    /**
     * Pushes until the rate settles: the configured warm-up, then windows of {@link #SETTLE_WINDOW} until one is
     * within {@link #SETTLE_TOLERANCE} of the one before, or the warm-up's maximum is spent. A fresh JVM (the
     * HTTP service) can take a minute of load before its JIT is done on two busy cores, and a fixed warm-up
     * then measures the compiler, not the service.
     */
    private RunResult warmUpPush(String what, BenchTarget target, Kind kind) throws Exception {
        RunResult first = report(what + " warm-up", push(target, kind, Duration.ZERO, options.pushWarmUp()));
        long windows = options.pushWarmUpMax()
                .minus(options.pushWarmUp())
                .plus(SETTLE_WINDOW)
                .minusNanos(1)
                .dividedBy(SETTLE_WINDOW);
        Settled settled = untilSettled(
                first,
                (int) Math.max(0, windows),
                () -> report(what + " warm-up", push(target, kind, Duration.ZERO, SETTLE_WINDOW)));
        return settled.last()
                .with(
                        "warmUpSeconds",
                        options.pushWarmUp()
                                .plus(SETTLE_WINDOW.multipliedBy(settled.more()))
                                .toSeconds());
    }

    /**
     * Warm-up bursts of the full size until the rate settles: until one is within {@link #SETTLE_TOLERANCE} of the
     * one before, {@link #MAX_WARM_UP_BURSTS} at most. The service is a fresh JVM, whose JIT is still compiling the
     * hand-over path during the first bursts (6,261 then 8,345 then 9,344 jobs/s seen in a row; its compiler
     * threads took 30-90% of a core during the measured 30,000-job bursts after a single warm-up burst).
     */
    private RunResult warmUpHandOver(String what, BenchTarget target, Kind kind, int jobs) throws Exception {
        String name = what + " warm-up (" + jobs + " jobs)";
        Settled settled = untilSettled(
                report(name, handOver(target, kind, jobs)),
                MAX_WARM_UP_BURSTS - 1,
                () -> report(name, handOver(target, kind, jobs)));
        return settled.last().with("warmUpBursts", 1 + settled.more());
    }

    /** The last run of a warm-up, and how many ran after its first. */
    private record Settled(RunResult last, int more) {}

    /**
     * Runs {@code next} after {@code first} until a run's rate is within {@link #SETTLE_TOLERANCE} of the one
     * before, {@code most} more runs at most.
     */
    private static Settled untilSettled(RunResult first, int most, Callable<RunResult> next) throws Exception {
        RunResult last = first;
        int more = 0;
        while (more < most) {
            RunResult run = next.call();
            more++;
            double before = last.value("jobsPerSecond");
            double now = run.value("jobsPerSecond");
            last = run;
            if (Math.abs(now - before) <= SETTLE_TOLERANCE * before) {
                break;
            }
        }
        return new Settled(last, more);
    }

    private RunResult push(BenchTarget target, Kind kind, Duration preRoll, Duration measure) throws Exception {
        return switch (kind) {
            case PUSH_FEW -> target.pushSingle(options.fewThreads(), preRoll, measure);
            case PUSH_SINGLE -> target.pushSingle(options.threads(), preRoll, measure);
            default -> target.pushBatch(preRoll, measure);
        };
    }

    private RunResult handOver(BenchTarget target, Kind kind, int jobs) throws Exception {
        return kind == Kind.CALLBACK_BURST
                ? target.callbackBurst(jobs)
                : target.pullBurst(jobs, options.pullConsumers());
    }

    private RunResult report(String what, RunResult run) {
        progress(what + ": " + run.toMap());
        return run;
    }

    private static String describe(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root && root.getMessage() == null) {
            root = root.getCause();
        }
        String message =
                root.getMessage() != null ? root.getMessage() : root.getClass().getSimpleName();
        return message.replaceAll("\\s+", " ");
    }

    private void progress(String message) {
        long s = (System.nanoTime() - startNanos) / 1_000_000_000L;
        System.err.printf(Locale.ROOT, "[bench %2d:%02d] %s%n", s / 60, s % 60, message);
    }
}
