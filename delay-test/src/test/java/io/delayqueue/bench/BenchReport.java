package io.delayqueue.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.delayqueue.bench.BenchTarget.Kind;
import io.delayqueue.queue.journal.JournalSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The markdown table on standard output and the same figures, with every run, as JSON. */
final class BenchReport {
    static final Map<String, String> SYSTEM_LABELS = Map.of(
            "inprocess", "this service, in-process",
            "http", "this service, over HTTP (MariaDB)",
            "embedded", "this service, over HTTP, embedded default (`bin/run`)",
            "http-before", "before (`--before-jar`), over HTTP (MariaDB)",
            "embedded-before", "before (`--before-jar`), embedded default",
            "redisson", "Redisson RDelayedQueue, no persistence (the ceiling)",
            "redisson-fsync", "Redisson RDelayedQueue, Redis `appendfsync always`",
            "db-scheduler", "db-scheduler on MariaDB");

    /**
     * The durable peers (issue 29): a push is answered only once it is on disk, as this service's is. Redisson on
     * the shared Redis, which has no persistence, stays in the table as the ceiling, not the bar.
     */
    static final List<String> DURABLE_PEERS = List.of("redisson-fsync", "db-scheduler");

    /** The peers, not this service: their columns get no ratio. */
    private static final List<String> PEERS = List.of("redisson", "redisson-fsync", "db-scheduler");

    /**
     * A figure of this service set against the same figure of the best durable peer in the run: {@code kind} of this
     * service against {@code peerKind} of the peers (a pull burst against their hand-over, which is their consumers'
     * or executors' taking the jobs); higher is better for a rate, lower for a lateness.
     */
    record Ratio(String label, Kind kind, Kind peerKind, String figure, boolean higherIsBetter, int decimals) {}

    private static final List<Ratio> RATIOS = List.of(
            new Ratio("push, one job per call, few callers", Kind.PUSH_FEW, Kind.PUSH_FEW, "jobsPerSecond", true, 0),
            new Ratio(
                    "push, one job per call, many callers",
                    Kind.PUSH_SINGLE,
                    Kind.PUSH_SINGLE,
                    "jobsPerSecond",
                    true,
                    0),
            new Ratio("push, a batch per call", Kind.PUSH_BATCH, Kind.PUSH_BATCH, "jobsPerSecond", true, 0),
            new Ratio(
                    "hand-over by HTTP callback (the peers: their own hand-over)",
                    Kind.CALLBACK_BURST,
                    Kind.CALLBACK_BURST,
                    "jobsPerSecond",
                    true,
                    0),
            new Ratio(
                    "hand-over by pull (the peers: their own hand-over)",
                    Kind.PULL_BURST,
                    Kind.CALLBACK_BURST,
                    "jobsPerSecond",
                    true,
                    0),
            new Ratio(
                    "end-to-end lateness p99 (ms; the peers: their steady lateness)",
                    Kind.CALLBACK_LATENESS,
                    Kind.CALLBACK_LATENESS,
                    "p99Ms",
                    false,
                    1),
            new Ratio("hand-over in-process, the large burst", Kind.BURST, Kind.BURST, "jobsPerSecond", true, 0),
            new Ratio("lateness p99 in-process (ms)", Kind.LATENESS, Kind.LATENESS, "p99Ms", false, 1));

    /** One line of the table: a figure of one kind of measurement. */
    record Row(String id, String label, Kind kind, String figure, int decimals, String target) {}

    private final BenchOptions options;
    private final Map<String, String> machine;
    private final Map<String, String> versions;
    private final Map<String, Map<Kind, Measurement>> results;
    private final Instant startedAt;
    private final Duration elapsed;
    private final List<Row> rows;
    private final List<String> notes = new ArrayList<>();

    BenchReport(
            BenchOptions options,
            Map<String, String> machine,
            Map<String, String> versions,
            Map<String, Map<Kind, Measurement>> results,
            Instant startedAt,
            Duration elapsed) {
        this.options = options;
        this.machine = machine;
        this.versions = versions;
        this.results = results;
        this.startedAt = startedAt;
        this.elapsed = elapsed;
        this.rows = rows(options);
        addNotes();
    }

    private static List<Row> rows(BenchOptions o) {
        String few = number(o.fewThreads(), 0) + " callers";
        String many = number(o.threads(), 0) + " callers";
        List<Row> rows = new ArrayList<>(List.of(
                new Row(
                        "push-few",
                        "push, one job per call, " + few + " (jobs/s)",
                        Kind.PUSH_FEW,
                        "jobsPerSecond",
                        0,
                        "HTTP ≥ 3,000; embedded ≥ half of MariaDB's"),
                new Row("push-few-p50", "push, " + few + ": call p50 (ms)", Kind.PUSH_FEW, "callP50Ms", 1, "HTTP ≤ 3"),
                new Row("push-few-p99", "push, " + few + ": call p99 (ms)", Kind.PUSH_FEW, "callP99Ms", 1, "HTTP ≤ 15"),
                new Row(
                        "push-single",
                        "push, one job per call, " + many + " (jobs/s)",
                        Kind.PUSH_SINGLE,
                        "jobsPerSecond",
                        0,
                        "HTTP ≥ 15,000 and > Redisson's with " + few + "; embedded ≥ half of MariaDB's"),
                new Row("push-single-p50", "push, " + many + ": call p50 (ms)", Kind.PUSH_SINGLE, "callP50Ms", 1, ""),
                new Row("push-single-p99", "push, " + many + ": call p99 (ms)", Kind.PUSH_SINGLE, "callP99Ms", 1, ""),
                new Row(
                        "push-batch",
                        "push, " + number(o.batchSize(), 0) + " jobs per call (jobs/s)",
                        Kind.PUSH_BATCH,
                        "jobsPerSecond",
                        0,
                        "HTTP ≥ 30,000"),
                new Row(
                        "callback-burst",
                        "hand-over by HTTP callback, " + number(o.callbackBurstJobs(), 0)
                                + " due at one instant (jobs/s)",
                        Kind.CALLBACK_BURST,
                        "jobsPerSecond",
                        0,
                        "≥ 10,000"),
                new Row(
                        "callback-burst-last",
                        "hand-over by HTTP callback: the last one's lateness (ms)",
                        Kind.CALLBACK_BURST,
                        "lastLateMs",
                        0,
                        ""),
                new Row(
                        "pull-burst",
                        "hand-over by pull, " + number(o.callbackBurstJobs(), 0) + " due at one instant, "
                                + o.pullConsumers() + " consumers, count=" + o.pullCount() + " (jobs/s)",
                        Kind.PULL_BURST,
                        "jobsPerSecond",
                        0,
                        "≥ 10,000"),
                new Row(
                        "e2e-p50",
                        "end to end, HTTP push to callback at " + number(o.e2eRate(), 0) + " jobs/s: lateness p50 (ms)",
                        Kind.CALLBACK_LATENESS,
                        "p50Ms",
                        1,
                        "≤ 2"),
                new Row("e2e-p99", "end to end: lateness p99 (ms)", Kind.CALLBACK_LATENESS, "p99Ms", 1, "≤ 20"),
                new Row("e2e-max", "end to end: lateness max (ms)", Kind.CALLBACK_LATENESS, "maxMs", 1, "≤ 100"),
                new Row(
                        "canary-push-alone",
                        "one-topic canary alone: push p99 (ms)",
                        Kind.CANARY,
                        "alonePushP99Ms",
                        1,
                        ""),
                new Row(
                        "canary-push-beside",
                        "the canary beside " + number(o.canaryTopics(), 0) + " other topics: push p99 (ms)",
                        Kind.CANARY,
                        "pushP99Ms",
                        1,
                        "≤ 3x alone"),
                new Row(
                        "canary-late-alone",
                        "one-topic canary alone: lateness p99 (ms)",
                        Kind.CANARY,
                        "aloneLatenessP99Ms",
                        1,
                        ""),
                new Row(
                        "canary-late-beside",
                        "the canary beside " + number(o.canaryTopics(), 0) + " other topics: lateness p99 (ms)",
                        Kind.CANARY,
                        "latenessP99Ms",
                        1,
                        "≤ 3x alone"),
                new Row(
                        "retry-storm-quiet",
                        "push p99, one job per call at " + o.canaryRate() + "/s, quiet (ms)",
                        Kind.RETRY_STORM,
                        "quietPushP99Ms",
                        1,
                        ""),
                new Row(
                        "retry-storm",
                        "the same while a client re-pushes 1,000 known ids, 10 batches/s (ms)",
                        Kind.RETRY_STORM,
                        "stormPushP99Ms",
                        1,
                        "≤ 3x quiet"),
                new Row(
                        "burst",
                        "hand-over in-process, " + number(o.burstJobs(), 0) + " due at one instant (jobs/s)",
                        Kind.BURST,
                        "jobsPerSecond",
                        0,
                        "≥ 50,000"),
                new Row(
                        "lateness-p50",
                        "lateness p50 at " + number(o.latenessRate(), 0) + " jobs/s (ms)",
                        Kind.LATENESS,
                        "p50Ms",
                        1,
                        ""),
                new Row("lateness-p99", "lateness p99 (ms)", Kind.LATENESS, "p99Ms", 1, "≤ 10"),
                new Row("lateness-max", "lateness max (ms)", Kind.LATENESS, "maxMs", 1, "≤ 50"),
                new Row(
                        "memory",
                        "Redis bytes per pending job, " + number(o.pendingJobs(), 0) + " pending",
                        Kind.MEMORY,
                        "bytesPerJob",
                        0,
                        "≤ Redisson's"),
                new Row(
                        "purge-push-before",
                        "push, one job per call, before the purge (jobs/s)",
                        Kind.PURGE,
                        "pushJobsPerSecond",
                        0,
                        ""),
                new Row(
                        "purge-push-during",
                        "push, one job per call, while purging " + number(o.purgeRows(), 0) + " final rows (jobs/s)",
                        Kind.PURGE,
                        "pushDuringPurgeJobsPerSecond",
                        0,
                        "close to the one before"),
                new Row(
                        "purge-rate",
                        "journal purge (final jobs/s, their log rows with them)",
                        Kind.PURGE,
                        "purgedJobsPerSecond",
                        0,
                        ""),
                new Row(
                        "tier-push",
                        "push far jobs (due in 7 days: journal only), one job per call (jobs/s)",
                        Kind.TIER_PUSH,
                        "jobsPerSecond",
                        0,
                        "≥ push, one job per call"),
                new Row(
                        "tier-lateness-p50",
                        "lateness p50, jobs loaded from the journal at " + number(o.latenessRate(), 0) + " jobs/s (ms)",
                        Kind.TIER_LATENESS,
                        "p50Ms",
                        1,
                        "as Redis-resident jobs"),
                new Row("tier-lateness-p99", "lateness p99, loaded (ms)", Kind.TIER_LATENESS, "p99Ms", 1, "≤ 10"),
                new Row("tier-lateness-max", "lateness max, loaded (ms)", Kind.TIER_LATENESS, "maxMs", 1, ""),
                new Row(
                        "tier-memory",
                        "Redis bytes per pending job, " + number(o.pendingJobs(), 0) + " due in 7 days (tiers on)",
                        Kind.TIER_MEMORY,
                        "bytesPerJob",
                        1,
                        "< 5% of 326")));
        int first = o.scaleOutInstances().get(0);
        for (int n : o.scaleOutInstances()) {
            String size = "scale-out, " + n + " instance" + (n == 1 ? "" : "s");
            rows.add(new Row(
                    "scale-out-" + n + "-rate",
                    size + ": jobs/s handed over, the whole",
                    Kind.SCALE_OUT,
                    ScaleOut.figure(n, "JobsPerSecond"),
                    0,
                    ""));
            rows.add(new Row(
                    "scale-out-" + n + "-cpu",
                    size + ": service CPU ms per 1,000 jobs pushed and handed over, all instances",
                    Kind.SCALE_OUT,
                    ScaleOut.figure(n, "CpuMsPer1000"),
                    0,
                    ""));
            rows.add(new Row(
                    "scale-out-" + n + "-jit",
                    size + ": of that CPU, the JIT compiler threads' (%; the warm-up waits for them to settle)",
                    Kind.SCALE_OUT,
                    ScaleOut.figure(n, "JitCpuPercent"),
                    1,
                    ""));
            if (n != first) {
                rows.add(new Row(
                        "scale-out-" + n + "-cpu-ratio",
                        size + ": that CPU over " + first + " instance" + (first == 1 ? "'s" : "s'"),
                        Kind.SCALE_OUT,
                        ScaleOut.figure(n, "CpuRatio"),
                        2,
                        "≤ 1.10"));
            }
            if (n > 1) {
                rows.add(new Row(
                        "scale-out-" + n + "-cpu-share",
                        size + ": the farthest instance's CPU share from 1/" + n + " (relative)",
                        Kind.SCALE_OUT,
                        ScaleOut.figure(n, "CpuShareSpread"),
                        2,
                        "≤ 0.10"));
                rows.add(new Row(
                        "scale-out-" + n + "-hand-over-share",
                        size + ": the farthest instance's share of the hand-overs from 1/" + n + " (relative)",
                        Kind.SCALE_OUT,
                        ScaleOut.figure(n, "HandOverShareSpread"),
                        2,
                        "≤ 0.10"));
            }
            rows.add(new Row(
                    "scale-out-" + n + "-idle",
                    size + ": each instance's CPU at rest, before the load (% of a core)",
                    Kind.SCALE_OUT,
                    ScaleOut.figure(n, "IdleCorePercent"),
                    1,
                    ""));
            rows.add(new Row(
                    "scale-out-" + n + "-redis-cpu",
                    size + ": Redis CPU per job (µs)",
                    Kind.SCALE_OUT,
                    ScaleOut.figure(n, "RedisCpuUsPerJob"),
                    1,
                    ""));
            rows.add(new Row(
                    "scale-out-" + n + "-scripts",
                    size + ": Redis script time per job (µs, EVALSHA usec)",
                    Kind.SCALE_OUT,
                    ScaleOut.figure(n, "ScriptUsPerJob"),
                    1,
                    ""));
        }
        String burst = number(o.callbackBurstJobs(), 0) + " due at one instant";
        rows.add(new Row(
                "first-burst",
                "a fresh service's first burst by HTTP callback, " + burst + " (jobs/s)",
                Kind.FIRST_BURST,
                "firstJobsPerSecond",
                0,
                ""));
        rows.add(new Row(
                "first-burst-settled",
                "the same service once settled (jobs/s)",
                Kind.FIRST_BURST,
                "settledJobsPerSecond",
                0,
                ""));
        rows.add(new Row(
                "first-burst-ratio", "first burst over settled", Kind.FIRST_BURST, "firstOverSettled", 2, "≥ 0.8"));
        rows.add(new Row("first-burst-ready", "launch to up (s)", Kind.FIRST_BURST, "readySeconds", 1, ""));
        rows.add(new Row(
                "take-over",
                "a follower's first burst after its leader's kill -9, " + burst + " (jobs/s)",
                Kind.TAKE_OVER,
                "firstJobsPerSecond",
                0,
                ""));
        rows.add(new Row(
                "take-over-settled",
                "the leader's settled burst before the kill (jobs/s)",
                Kind.TAKE_OVER,
                "settledJobsPerSecond",
                0,
                ""));
        rows.add(new Row(
                "take-over-ratio",
                "the follower's first burst over the leader's settled",
                Kind.TAKE_OVER,
                "firstOverSettled",
                2,
                "≥ 0.8"));
        rows.add(new Row("take-over-time", "kill to take-over (ms)", Kind.TAKE_OVER, "takeOverMs", 0, ""));
        rows.add(new Row(
                "full-burst",
                "hand-over by HTTP callback, " + number(o.fullBurstJobs(), 0) + " due at one instant (jobs/s)",
                Kind.FULL_BURST,
                "jobsPerSecond",
                0,
                ""));
        rows.add(new Row(
                "full-burst-last", "the same: the last one's lateness (ms)", Kind.FULL_BURST, "lastLateMs", 0, ""));
        String pending = number(o.fullPendingJobs(), 0) + " pending";
        rows.add(new Row(
                "full-push-few",
                "push, one job per call, " + few + ", " + pending + " (jobs/s)",
                Kind.FULL_PENDING,
                "pushFewJobsPerSecond",
                0,
                "as push with none pending"));
        rows.add(new Row(
                "full-push-many",
                "push, one job per call, " + many + ", " + pending + " (jobs/s)",
                Kind.FULL_PENDING,
                "pushManyJobsPerSecond",
                0,
                "as push with none pending"));
        rows.add(new Row(
                "full-memory",
                "Redis bytes per pending job, " + pending + " (over HTTP)",
                Kind.FULL_PENDING,
                "bytesPerJob",
                0,
                ""));
        rows.add(new Row(
                "full-restore",
                "restore of the " + pending + " into an emptied Redis: launch to the last back (s)",
                Kind.FULL_PENDING,
                "restoreSeconds",
                1,
                ""));
        return rows;
    }

    private void addNotes() {
        String runs = options.runs() == 1 ? "1 run" : "the median of " + options.runs() + " runs";
        notes.add("Each cell: " + runs + " after a discarded warm-up"
                + (options.runs() > 1 ? ", (min-max) of the runs in parentheses" : "") + "; memory: "
                + (options.memoryRuns() == 1 ? "one load" : options.memoryRuns() + " loads") + ", no warm-up."
                + (options.pushWarmUpMax().compareTo(options.pushWarmUp()) > 0
                        ? " A push warm-up lasts " + options.pushWarmUp().toSeconds() + " s, then 10 s more at a time"
                                + " until the rate changes by 10% or less, "
                                + options.pushWarmUpMax().toSeconds()
                                + " s at most."
                        : "")
                + " A hand-over burst's warm-up is bursts of the same size until one's rate is within 10% of the one"
                + " before, 6 at most.");
        notes.add("This service: journal `sync` on MariaDB (a database of the benchmark's own, through"
                + " MariaDB's driver, `jdbc:mariadb:`) for push, hand-over and lateness; the memory figure is loaded"
                + " with the journal off (Redis holds the same either way). Service defaults otherwise"
                + " (8 shards, 32 Redis connections, 8 database connections).");
        notes.add("Push: " + options.threads() + " concurrent callers one job at a time (in-process threads calling"
                + " `engine.push`, keep-alive HTTP/1.1 connections posting `/push`, one call at a time each, driven by two"
                + " selector threads as `wrk` drives its connections, Redisson threads calling the"
                + " blocking `offer`); " + options.batchThreads() + " callers of " + options.batchSize()
                + " jobs (`pushBatch`, `POST /push/batch`, Redisson: " + options.batchSize()
                + " `offerAsync` awaited together). Jobs due in 1 h, " + options.bodyBytes() + "-byte bodies; "
                + options.pushMeasure().toSeconds() + " s measured per run after "
                + options.pushPreRoll().toSeconds()
                + " s of pushing.");
        notes.add("The paths users take, over HTTP from this process: push one job per call from "
                + options.fewThreads() + " keep-alive connections (a client's pool) and from " + options.threads()
                + ", latency per call; on MariaDB + Redis and on the embedded default as `bin/run` starts it (no"
                + " settings, a fresh working directory; it keeps what it holds from run to run). Hand-over by HTTP"
                + " callback: the `http` dispatcher POSTs each due job to a receiver in this process (the JDK's HTTP"
                + " server, 8 threads, answers 200 at once); by pull: " + options.pullConsumers() + " consumers each"
                + " `GET /get/{topic}?count=" + options.pullCount() + "&timeout=1000` then `POST /jobs/finish`"
                + " (one at a time where the service predates batches). End to end: " + number(options.e2eRate(), 0)
                + " one-job HTTP pushes/s for " + options.e2eDuration().toSeconds() + " s, delays 1-5 s, lateness ="
                + " time received by the callback receiver minus the job's executeAt. Redisson beside them: its"
                + " `offer` from the same numbers of threads, its burst of the same size taken by its consumers, its"
                + " steady lateness at the same rate (delays 1-2 s); db-scheduler the same, its push a `schedule` of"
                + " one one-time task instance, its hand-over that instance's execution. Canary: one topic at "
                + options.canaryRate()
                + " pushes/s for " + options.canaryDuration().toSeconds() + " s (delays 1-2 s, called back), alone,"
                + " then after " + number(options.canaryTopics(), 0) + " other topics were pushed (one job each, due"
                + " in an hour).");
        if (options.beforeJar() != null) {
            notes.add("Before: the same HTTP figures, in the same run, of the jar "
                    + options.beforeJar().getFileName() + " (" + options.beforeJar() + ").");
        }
        notes.add("Over HTTP: the packaged service (`delay-core-exec.jar`, -Xmx1g) as a JVM of its own, clients"
                + " in the benchmark's JVM; hand-over, lateness and memory are the same engine as in-process and"
                + " not measured again.");
        notes.add("Hand-over: jobs loaded beforehand (pushBatch / offerAsync), all due at one instant; jobs/s from"
                + " that instant until the last was handed to the in-process dispatcher (confirms at once) or taken"
                + " by Redisson's " + RedissonTarget.CONSUMERS + " consumer threads (`poll(" + options.batchSize()
                + ")`, else a blocking `poll(100 ms)`).");
        if (DURABLE_PEERS.stream().anyMatch(results::containsKey)) {
            notes.add("Durable peers (issue 29), whose push is answered only once it is on disk, as this service's is:"
                    + " Redisson on a private `redis-server --appendonly yes --appendfsync always` (the same binary,"
                    + " started by the benchmark on a free port with a temporary directory on the machine's disk, stopped"
                    + " at the end; memory not measured again: the same keys), and db-scheduler "
                    + versions.get("db-scheduler") + " on a MariaDB database of its own (created and dropped by the"
                    + " benchmark; InnoDB commits are on disk), one scheduler with " + DbSchedulerTarget.THREADS
                    + " executor threads polling every " + DbSchedulerTarget.POLLING_INTERVAL.toMillis() + " ms"
                    + " (its default: 10 s), its default fetch-and-lock-on-execute (its MariaDB dialect offers no"
                    + " lock-and-fetch), " + DbSchedulerTarget.POOL_SIZE + " database connections, the task data the"
                    + " body's UTF-8 bytes; a batch is `scheduleBatch`. Redisson without persistence stays as the"
                    + " ceiling, not the bar: the ratios above set this service against the best durable peer of the"
                    + " run.");
        }
        notes.add("Lateness: " + number(options.latenessRate(), 0) + " jobs/s for "
                + options.latenessDuration().toSeconds() + " s per run, delays uniform in 1-2 s; lateness = time of"
                + " hand-over (dispatcher / consumer) minus the job's due time, every job recorded (HdrHistogram).");
        notes.add("Redisson: " + versions.get("redisson") + ", StringCodec, its defaults otherwise; RDelayedQueue is"
                + " deprecated in Redisson 3.x in favour of RReliableQueue (Redisson PRO only). Its client moves due"
                + " values to the destination queue 100 per Lua call, and each call also removes every moved value"
                + " from a list of all pending values with LREM (a scan from the list's head).");
        notes.add("Tiers (this service, in-process): far pushes are due in 7 days, beyond the default 1 h horizon,"
                + " so only the journal holds them (tier-push: " + options.threads() + " callers, as push; tier-memory:"
                + " loaded with pushBatch through the journal, measured after the engine closed). Tier lateness: a"
                + " 2 s horizon and delays uniform in 4-5 s, so every job is far when pushed and the tier loader"
                + " brings it into Redis ahead of its due time.");
        notes.add("Everything shares the machine's " + machine.get("cores")
                + " cores: Redis, MariaDB, the service and the load generator.");
        if (options.measures("purge")) {
            notes.add("Purge: " + number(options.purgeRows(), 0) + " FINISHED jobs last updated 8 days ago, three log"
                    + " rows each, inserted straight into the journal (multi-row INSERTs); then "
                    + options.threads() + " callers push one job at a time (journal `sync`) for "
                    + options.pushMeasure().toSeconds() + " s without a purge and "
                    + options.pushMeasure().toSeconds()
                    + " s while one pass of journal retention runs (`delay.journal.retention` 7d, the default batch"
                    + " of " + JournalSettings.DEFAULT_PURGE_BATCH_SIZE + " jobs and pause);"
                    + " the purge rate is the whole pass's, pushes ran during its first seconds. One run.");
        }
        if (options.measures("scale-out")) {
            notes.add("Scale-out (issue 29, item 5): the packaged service in `cluster` mode (`delay.ha.mode=cluster`, "
                    + ScaleOut.SHARDS + " shards) with " + options.scaleOutInstances()
                    + " instances, one size after the"
                    + " other, on one private `redis-server` (no persistence; its INFO is this queue's alone), one MariaDB"
                    + " journal (`sync`) and a ZooKeeper in the benchmark's JVM (Curator's TestingServer). "
                    + options.scaleOutCallers() + " keep-alive connections per instance push one job per call (`POST"
                    + " /push`, due " + ScaleOut.DELAY_MS
                    + " ms later, called back to the benchmark's receiver) as fast"
                    + " as answered; before the load, " + ScaleOut.IDLE.toSeconds()
                    + " s at rest (the instances' CPU then: the"
                    + " idle row); after " + options.scaleOutWarmUp().toSeconds() + " s, a window of "
                    + options.scaleOutMeasure().toSeconds() + " s is measured. CPU: utime + stime of every service JVM"
                    + " (/proc), per 1,000 jobs = over the mean of the jobs pushed and handed over in the window;"
                    + " shares: each instance's CPU and its sends (`dispatched` of its `/stats`) over the whole's, the"
                    + " table shows the farthest |share x N - 1|; Redis: `INFO cpu` used_cpu_sys + used_cpu_user and"
                    + " `INFO commandstats` EVALSHA usec, per job. The benchmark reports; it does not assert.");
        }
        if (options.measures("cold")) {
            notes.add(
                    "Warm from the first burst (issue 29, item 4), the packaged service on the MariaDB set-up: a"
                            + " fresh service JVM, its bursts of " + number(options.callbackBurstJobs(), 0)
                            + " jobs (pushed ahead by `POST /push/batch`, due at one instant, called back) from the first"
                            + " after it says it is up, six in all: first, settled (the median of the last three) and"
                            + " their ratio; launch to up is the time from the JVM's launch until its health"
                            + " answers UP (the benchmark's own callback receiver is warmed first, with 40,000 posts, so"
                            + " that its interpreted code is not in the first burst). Take-over: two JVMs in"
                            + " `master-slave` mode (ZooKeeper in the benchmark's JVM,"
                            + " session timeout " + ColdStart.SESSION_TIMEOUT.toSeconds()
                            + " s); the leader's six bursts"
                            + " (settled as above), then a burst pushed through it, the leader killed (`kill -9`) before it is due,"
                            + " and the follower's hand-over of that burst once it took over. A fresh service or pair per run.");
        }
        if (options.measures("full-size")) {
            notes.add("Full size (issue 29, item 6), over HTTP on the MariaDB set-up: a burst of "
                    + number(options.fullBurstJobs(), 0) + " jobs due at one instant, loaded ahead with `POST"
                    + " /push/batch`, called back (as the callback row; one run after a warm-up burst of "
                    + number(options.callbackBurstJobs(), 0) + "). Then " + number(options.fullPendingJobs(), 0)
                    + " jobs loaded with `POST /push/batch` (1,000 per call, 4 connections), due 20-40 min ahead"
                    + " (pending, inside the 1 h tier horizon: all in Redis); with them pending, one-job pushes (due in"
                    + " 30 min) from " + options.fewThreads() + " and " + options.threads() + " callers after a "
                    + options.pushWarmUp().toSeconds()
                    + " s warm-up; Redis bytes per pending job = growth of used_memory"
                    + " on the shared Redis over the jobs; restore = the service stopped, its keys unlinked (its"
                    + " prefix), started again with `delay.journal.restore-on-start=true`: seconds from its launch until"
                    + " every pending job of the journal is back in Redis, by the restore, the owner's replay of the"
                    + " journal's last minute or the tier loader, whichever comes first (JVM start included; the JSON"
                    + " keeps the start without a restore and the restore's own report beside it).");
        }
        memoryCrossCheck();
        results.forEach((system, byKind) -> byKind.forEach((kind, m) -> m.notes()
                .forEach(n -> notes.add(SYSTEM_LABELS.get(system) + ", "
                        + kind.name().toLowerCase(Locale.ROOT).replace('_', '-') + ": " + n))));
    }

    private void memoryCrossCheck() {
        List<String> parts = new ArrayList<>();
        for (var e : results.entrySet()) {
            Measurement m = e.getValue().get(Kind.MEMORY);
            if (m == null || m.runs().isEmpty()) {
                continue;
            }
            Object perJob = m.runs().get(0).details().get("memoryUsageOfKeysPerJob");
            if (perJob instanceof Double d) {
                parts.add(SYSTEM_LABELS.get(e.getKey()) + " " + number(d, 0));
            }
        }
        if (!parts.isEmpty()) {
            notes.add("Memory is the growth of `INFO memory` used_memory; `MEMORY USAGE` of the run's own keys says "
                    + String.join(", ", parts) + " bytes per job.");
        }
    }

    String markdown() {
        StringBuilder sb = new StringBuilder();
        sb.append("## delay-queue benchmark")
                .append(options.quick() ? " (--quick: small sizes, not comparable to the targets)" : "")
                .append("\n\n");
        sb.append("Run ")
                .append(startedAt)
                .append(", took ")
                .append(elapsed.toMinutes())
                .append(" min ")
                .append(elapsed.toSecondsPart())
                .append(" s.\n");
        sb.append("Machine: ")
                .append(machine.get("cpu"))
                .append(", ")
                .append(machine.get("cores"))
                .append(" cores, ")
                .append(machine.get("memory"))
                .append(", ")
                .append(machine.get("os"))
                .append(".\n");
        sb.append("JVM: ").append(machine.get("jvm")).append(".\n");
        sb.append("Load average (1, 5, 15 min) at the start: ")
                .append(machine.get("loadAtStart"))
                .append("; at the end: ")
                .append(machine.get("loadAtEnd"))
                .append(".\n");
        sb.append("Redis ")
                .append(machine.get("redis"))
                .append("; MariaDB ")
                .append(machine.get("mariadb"))
                .append(".\n");
        List<String> v = new ArrayList<>();
        versions.forEach((k, value) -> v.add(k + " " + value));
        sb.append("Versions: ").append(String.join(", ", v)).append(".\n\n");

        List<String> systems = List.copyOf(results.keySet());
        sb.append("| figure |");
        systems.forEach(s -> sb.append(' ').append(SYSTEM_LABELS.get(s)).append(" |"));
        sb.append(" target |\n|---|");
        systems.forEach(s -> sb.append("---:|"));
        sb.append("---|\n");
        for (Row row : rows) {
            if (!anyMeasures(row.kind())) {
                continue;
            }
            sb.append("| ").append(row.label()).append(" |");
            for (String s : systems) {
                sb.append(' ').append(cell(results.get(s).get(row.kind()), row)).append(" |");
            }
            sb.append(' ').append(row.target()).append(" |\n");
        }
        sb.append('\n');
        ratiosMarkdown(sb);
        notes.forEach(n -> sb.append("- ").append(n).append('\n'));
        return sb.toString();
    }

    /** This service's systems in the run (every column that is not a peer's). */
    private List<String> ourSystems() {
        return results.keySet().stream().filter(s -> !PEERS.contains(s)).toList();
    }

    /** The best durable peer's median of {@code figure} in {@code kind}, or null when no durable peer measured it. */
    private Best bestDurablePeer(Kind kind, String figure, boolean higherIsBetter) {
        Best best = null;
        for (String peer : DURABLE_PEERS) {
            Map<Kind, Measurement> byKind = results.get(peer);
            Measurement m = byKind == null ? null : byKind.get(kind);
            Double v = m == null || m.failed() || m.whyNotMeasured() != null ? null : m.median(figure);
            if (v != null && (best == null || (higherIsBetter ? v > best.value() : v < best.value()))) {
                best = new Best(peer, v);
            }
        }
        return best;
    }

    private record Best(String system, double value) {}

    /** This service's median over the best durable peer's, or null when either is missing. */
    private Double ratio(String system, Ratio r, Best best) {
        Measurement m = results.get(system).get(r.kind());
        if (best == null || m == null || m.failed() || m.whyNotMeasured() != null) {
            return null;
        }
        Double v = m.median(r.figure());
        return v == null || best.value() == 0 ? null : v / best.value();
    }

    private void ratiosMarkdown(StringBuilder sb) {
        List<String> ours = ourSystems();
        if (ours.isEmpty() || DURABLE_PEERS.stream().noneMatch(results::containsKey)) {
            return;
        }
        sb.append("This service against the best durable peer of this run (its figure over the peer's: above 1x is"
                + " ahead for a rate, below 1x for a lateness):\n\n");
        sb.append("| figure | best durable peer |");
        ours.forEach(s -> sb.append(' ').append(SYSTEM_LABELS.get(s)).append(" |"));
        sb.append("\n|---|---:|");
        ours.forEach(s -> sb.append("---:|"));
        sb.append('\n');
        for (Ratio r : RATIOS) {
            Best best = bestDurablePeer(r.peerKind(), r.figure(), r.higherIsBetter());
            List<Double> ratios = ours.stream().map(s -> ratio(s, r, best)).toList();
            if (best == null || ratios.stream().allMatch(x -> x == null)) {
                continue;
            }
            sb.append("| ")
                    .append(r.label())
                    .append(" | ")
                    .append(number(best.value(), r.decimals()))
                    .append(" (")
                    .append(SYSTEM_LABELS.get(best.system()))
                    .append(") |");
            ratios.forEach(x ->
                    sb.append(' ').append(x == null ? "" : number(x, 2) + "x").append(" |"));
            sb.append('\n');
        }
        sb.append('\n');
    }

    /** The same ratios for the JSON: per figure, the best durable peer and each of this service's systems' ratio. */
    private List<Object> ratiosJson() {
        List<Object> out = new ArrayList<>();
        for (Ratio r : RATIOS) {
            Best best = bestDurablePeer(r.peerKind(), r.figure(), r.higherIsBetter());
            if (best == null) {
                continue;
            }
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("label", r.label());
            row.put("figure", r.figure());
            row.put("higherIsBetter", r.higherIsBetter());
            row.put("bestDurablePeer", best.system());
            row.put("bestDurablePeerValue", best.value());
            Map<String, Object> ratios = new LinkedHashMap<>();
            for (String s : ourSystems()) {
                ratios.put(s, ratio(s, r, best));
            }
            row.put("ratios", ratios);
            out.add(row);
        }
        return out;
    }

    private boolean anyMeasures(Kind kind) {
        return results.values().stream().anyMatch(m -> m.containsKey(kind));
    }

    private String cell(Measurement m, Row row) {
        if (m == null) {
            return "not run";
        }
        if (m.whyNotMeasured() != null) {
            return m.whyNotMeasured().equals(HttpTarget.SAME_ENGINE)
                    ? "= in-process"
                    : "n/a (" + m.whyNotMeasured() + ")";
        }
        Double median = m.median(row.figure());
        if (m.failed()) {
            String reason = m.failure().replace('|', '/').replace('\n', ' ');
            if (reason.length() > 120) {
                reason = reason.substring(0, 117) + "...";
            }
            return "failed: " + reason;
        }
        if (median == null) {
            return "no runs";
        }
        String text = number(median, row.decimals());
        if (m.runs().size() < options.runs()
                && !java.util.Set.of(Kind.MEMORY, Kind.PURGE, Kind.SCALE_OUT, Kind.FULL_BURST, Kind.FULL_PENDING)
                        .contains(row.kind())) {
            text += " (" + m.runs().size() + " run" + (m.runs().size() == 1 ? "" : "s") + ")";
        } else if (m.runs().size() > 1) {
            double min = m.runs().stream()
                    .mapToDouble(r -> r.value(row.figure()))
                    .min()
                    .orElseThrow();
            double max = m.runs().stream()
                    .mapToDouble(r -> r.value(row.figure()))
                    .max()
                    .orElseThrow();
            text += " (" + number(min, row.decimals()) + "-" + number(max, row.decimals()) + ")";
        }
        return text;
    }

    static String number(double value, int decimals) {
        return String.format(Locale.ROOT, "%,." + decimals + "f", value);
    }

    void writeJson(Path file) throws IOException {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("benchmark", "delay-queue, issue 6");
        json.put("startedAt", startedAt.toString());
        json.put("elapsedSeconds", elapsed.toSeconds());
        json.put("options", options.toMap());
        json.put("machine", machine);
        json.put("versions", versions);
        List<Object> jsonRows = new ArrayList<>();
        for (Row row : rows) {
            if (!anyMeasures(row.kind())) {
                continue;
            }
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("id", row.id());
            r.put("label", row.label());
            r.put("figure", row.figure());
            r.put("target", row.target());
            Map<String, Object> cells = new LinkedHashMap<>();
            results.forEach((system, byKind) -> {
                Measurement m = byKind.get(row.kind());
                Map<String, Object> c = new LinkedHashMap<>();
                if (m == null) {
                    c.put("notMeasured", "not run");
                } else if (m.whyNotMeasured() != null) {
                    c.put("notMeasured", m.whyNotMeasured());
                } else {
                    c.put("median", m.median(row.figure()));
                    c.put(
                            "runs",
                            m.runs().stream()
                                    .map(run -> run.values().get(row.figure()))
                                    .toList());
                    if (m.failed()) {
                        c.put("failed", m.failure());
                    }
                }
                cells.put(system, c);
            });
            r.put("cells", cells);
            jsonRows.add(r);
        }
        json.put("rows", jsonRows);
        Map<String, Object> systems = new LinkedHashMap<>();
        results.forEach((system, byKind) -> {
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("label", SYSTEM_LABELS.get(system));
            byKind.forEach((kind, m) -> s.put(
                    kind.name().toLowerCase(Locale.ROOT).replace('_', '-'),
                    m.toMap(rows.stream()
                            .filter(r -> r.kind() == kind)
                            .map(Row::figure)
                            .toList())));
            systems.put(system, s);
        });
        json.put("measurements", systems);
        json.put("ratiosToBestDurablePeer", ratiosJson());
        json.put("notes", notes);
        Files.createDirectories(file.toAbsolutePath().getParent());
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), json);
    }
}
