package io.delayqueue.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayqueue.e2e.support.RedisServerProcess;
import io.delayqueue.queue.testing.ZooKeeperFixture;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.curator.test.TestingServer;

/**
 * The cost of scaling out (issue 29, item 5): the packaged service in {@code cluster} mode with 1, 2, 4 ... instances
 * ({@code --scale-out-instances}) on one Redis, one MariaDB journal and a ZooKeeper in this JVM (Curator's {@link
 * TestingServer}, as the HA tests run it). The Redis is a private {@code redis-server} (no persistence, started and
 * stopped here): its {@code INFO cpu} and {@code INFO commandstats} are then this queue's alone, which on the shared
 * Redis other work would move.
 *
 * <p>Each size: the instances start on a fresh prefix and journal database, the shards are divided among them, then
 * {@code --scale-out-callers} keep-alive connections per instance push one job per call ({@code POST /push}, the
 * callback topic, due 2 s later) as fast as they are answered, each due job called back to the benchmark's receiver.
 * After {@code --scale-out-warmup} s of that load, a window of {@code --scale-out-seconds} s is measured: jobs pushed
 * (answered in the window), jobs handed over (received in the window), the CPU of every service JVM ({@code
 * /proc/<pid>/stat} utime + stime), each instance's sends ({@code dispatched} of its {@code /stats}), and the
 * Redis's CPU and script time. A job costs a push and a hand-over: CPU per 1,000 jobs divides by the mean of the
 * jobs pushed and the jobs handed over in the window (equal in a steady state).
 */
final class ScaleOut {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** How far ahead each job is due: soon, so that the window has pushes and hand-overs both. */
    static final long DELAY_MS = 2_000;
    /** The service's default, given explicitly: 8 shards divide evenly among 1, 2, 4 and 8 instances. */
    static final int SHARDS = 8;
    /** The window of the instances' CPU at rest, before the load. */
    static final Duration IDLE = Duration.ofSeconds(10);
    /** The warm-up goes on by this much at a time while the JIT compiles ({@link #warmUp}). */
    static final Duration WARM_UP_SLICE = Duration.ofSeconds(10);
    /** The JIT compiler threads' share of the instances' CPU below which they count as warm. */
    static final double JIT_QUIET = 0.05;
    /** The longest warm-up, in multiples of {@code --scale-out-warmup}. */
    static final int WARM_UP_MAX_FACTOR = 4;
    /** The window's own load starts this long before the window. */
    static final Duration WINDOW_LEAD = Duration.ofSeconds(1);

    private final BenchOptions options;
    private final Path jar;
    private final Path benchDir;

    ScaleOut(BenchOptions options, Path jar, Path benchDir) {
        this.options = options;
        this.jar = jar;
        this.benchDir = benchDir;
    }

    /** Figure names of size {@code n}, e.g. {@code n2JobsPerSecond}. */
    static String figure(int n, String name) {
        return "n" + n + name;
    }

    RunResult run() throws Exception {
        RunResult result = null;
        Map<String, Object> perSize = new LinkedHashMap<>();
        Double first = null; // CPU per 1,000 jobs of the first size listed, the ratios' base
        try (TestingServer zookeeper = ZooKeeperFixture.startServer();
                RedisServerProcess redisServer = RedisServerProcess.start("bench-scale-out", null, List.of());
                BenchRedis redis = new BenchRedis(redisServer.port());
                CallbackReceiver receiver = new CallbackReceiver()) {
            for (int n : options.scaleOutInstances()) {
                Size size;
                try {
                    size = size(n, zookeeper.getConnectString(), redis, receiver);
                } catch (Exception e) {
                    // the other sizes still run; this one's rows show no figure, the JSON says why
                    System.err.println("[bench] scale-out with " + n + " instances failed: " + e);
                    perSize.put("n" + n, Map.of("failed", String.valueOf(e)));
                    continue;
                }
                if (n == options.scaleOutInstances().get(0)) {
                    first = size.cpuMsPer1000;
                }
                RunResult r = result == null
                        ? result = RunResult.of(figure(n, "JobsPerSecond"), size.handedOverPerSecond)
                        : result.and(figure(n, "JobsPerSecond"), size.handedOverPerSecond);
                r.and(figure(n, "PushesPerSecond"), size.pushedPerSecond)
                        .and(figure(n, "CpuMsPer1000"), size.cpuMsPer1000)
                        .and(figure(n, "CpuShareSpread"), size.cpuShareSpread)
                        .and(figure(n, "HandOverShareSpread"), size.handOverShareSpread)
                        .and(figure(n, "RedisCpuUsPerJob"), size.redisCpuUsPerJob)
                        .and(figure(n, "ScriptUsPerJob"), size.scriptUsPerJob)
                        .and(figure(n, "IdleCorePercent"), size.idleCoresPerInstance * 100)
                        .and(
                                figure(n, "JitCpuPercent"),
                                ((Number) size.details.get("jitCpuShare")).doubleValue() * 100);
                if (n != options.scaleOutInstances().get(0) && first != null) {
                    r.and(figure(n, "CpuRatio"), size.cpuMsPer1000 / first);
                }
                perSize.put("n" + n, size.details);
            }
        }
        if (result == null) {
            throw new IllegalStateException("every cluster size failed: " + perSize);
        }
        return result.with("sizes", perSize)
                .with("callersPerInstance", options.scaleOutCallers())
                .with("delayMs", DELAY_MS);
    }

    /** What one cluster size measured. */
    private record Size(
            double handedOverPerSecond,
            double pushedPerSecond,
            double cpuMsPer1000,
            double cpuShareSpread,
            double handOverShareSpread,
            double redisCpuUsPerJob,
            double scriptUsPerJob,
            double idleCoresPerInstance,
            Map<String, Object> details) {}

    private Size size(int n, String zookeeperConnect, BenchRedis redis, CallbackReceiver receiver) throws Exception {
        String prefix = BenchRedis.uniqueName("scale" + n);
        List<ServiceProcess> instances = new ArrayList<>();
        BenchDatabase database = BenchDatabase.create();
        ExecutorService pool = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "bench-scale-out");
            t.setDaemon(true);
            return t;
        });
        try {
            database.migrate(); // once, before the instances: their Flyway then finds the schema in place
            List<Future<ServiceProcess>> starting = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String name = "i" + i;
                List<String> args = HttpTarget.onMariaDb(redis.uri(), prefix, database);
                args.addAll(List.of(
                        "--delay.shards=" + SHARDS,
                        "--delay.ha.mode=cluster",
                        "--delay.ha.instance-id=" + name,
                        "--delay.zk.connect=" + zookeeperConnect));
                Path work = benchDir.resolve(prefix + "-" + name);
                Path log = benchDir.resolve("service-scale-out-" + n + "-" + name + ".log");
                starting.add(pool.submit(() -> ServiceProcess.start(jar, work, log, args)));
            }
            Exception failed = null;
            for (Future<ServiceProcess> f : starting) {
                try {
                    instances.add(f.get());
                } catch (java.util.concurrent.ExecutionException e) {
                    failed = e.getCause() instanceof Exception c ? c : e;
                }
            }
            if (failed != null) {
                throw failed;
            }
            int shards = awaitShardsDivided(instances);
            double[] idleCores = idleCores(instances, redis);
            double idle = idleCores[0];
            Size size = measure(n, shards, instances, redis, receiver, pool);
            size.details.put("idleCoresPerInstance", idle);
            size.details.put("idleRedisCores", idleCores[1]);
            size.details.put("idleSeconds", IDLE.toSeconds());
            size.details.put("idleCorePercentByThread", new LinkedHashMap<>(idleByThread));
            return new Size(
                    size.handedOverPerSecond,
                    size.pushedPerSecond,
                    size.cpuMsPer1000,
                    size.cpuShareSpread,
                    size.handOverShareSpread,
                    size.redisCpuUsPerJob,
                    size.scriptUsPerJob,
                    idle,
                    size.details);
        } finally {
            for (ServiceProcess p : instances) {
                try {
                    p.close();
                } catch (Exception e) {
                    // the others still stop
                }
            }
            pool.shutdownNow();
            redis.unlink("{" + prefix + ":*");
            database.close();
            ServiceProcess.deleteWorkDirs(benchDir, prefix);
        }
    }

    private Size measure(
            int n,
            int shards,
            List<ServiceProcess> instances,
            BenchRedis redis,
            CallbackReceiver receiver,
            ExecutorService pool)
            throws Exception {
        HandOvers handOvers = HandOvers.counting();
        receiver.recordInto(handOvers);
        byte[] job = ("{\"topic\":\"" + UserPaths.CALLBACK_TOPIC + "\",\"body\":\"" + "x".repeat(options.bodyBytes())
                        + "\",\"delay\":" + DELAY_MS + ",\"url\":\"" + receiver.url() + "\"}")
                .getBytes(StandardCharsets.UTF_8);
        Duration window = options.scaleOutMeasure();
        Map<String, Object> warmUp = warmUp(instances, job, pool);
        // the window's load starts a moment before the window, so that its connections are open and busy
        long start = System.nanoTime();
        List<Future<RunResult>> loads = new ArrayList<>();
        for (ServiceProcess p : instances) {
            loads.add(pool.submit(() -> HttpPushLoad.run(
                    "127.0.0.1", p.port(), "/push", job, 1, options.scaleOutCallers(), WINDOW_LEAD, window)));
        }
        sleepUntil(start + WINDOW_LEAD.toNanos());
        Snapshot before = Snapshot.take(instances, redis, handOvers);
        sleepUntil(start + WINDOW_LEAD.plus(window).toNanos());
        Snapshot after = Snapshot.take(instances, redis, handOvers);
        long pushed = 0;
        List<Long> pushedByInstance = new ArrayList<>();
        for (Future<RunResult> f : loads) {
            long jobs = ((Number) f.get().details().get("jobs")).longValue();
            pushedByInstance.add(jobs);
            pushed += jobs;
        }
        receiver.recordInto(HandOvers.counting());
        double seconds = window.toNanos() / 1e9;
        long handedOver = after.handedOver - before.handedOver;
        double jobs = (pushed + handedOver) / 2.0;
        List<Long> cpuByInstance = new ArrayList<>();
        List<Long> sentByInstance = new ArrayList<>();
        long cpu = 0;
        long sent = 0;
        for (int i = 0; i < n; i++) {
            long c = after.cpuNanos.get(i) - before.cpuNanos.get(i);
            long s = after.dispatched.get(i) - before.dispatched.get(i);
            cpuByInstance.add(c);
            sentByInstance.add(s);
            cpu += c;
            sent += s;
        }
        double redisCpuUs = (after.redisCpuSeconds - before.redisCpuSeconds) * 1e6;
        long scriptCalls = after.scriptCalls - before.scriptCalls;
        long scriptUsec = after.scriptUsec - before.scriptUsec;
        long commands = after.commands - before.commands;
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("instances", n);
        details.put("shards", shards);
        details.put("seconds", seconds);
        details.put("pushed", pushed);
        details.put("handedOver", handedOver);
        details.put("pushedByInstance", pushedByInstance);
        details.put("serviceCpuSeconds", cpu / 1e9);
        details.put(
                "cpuSecondsByInstance", cpuByInstance.stream().map(c -> c / 1e9).toList());
        details.put("cpuShareByInstance", shares(cpuByInstance, cpu));
        details.put("sentByInstance", sentByInstance);
        details.put("sentShareByInstance", shares(sentByInstance, sent));
        details.put("redisCpuSeconds", redisCpuUs / 1e6);
        details.put("redisCommandsPerJob", commands / jobs);
        details.put("scriptCallsPerJob", scriptCalls / jobs);
        // the wake-ups between instances (a push due within max-sleep on an instance that does not scan its shard)
        details.put("wakeUpPublishesPerJob", (after.publishes - before.publishes) / jobs);
        details.put("scriptUsPerCall", scriptCalls == 0 ? 0 : (double) scriptUsec / scriptCalls);
        details.put("scriptUsByCommand", after.scriptUsecByCommand(before, jobs));
        details.put("warmUp", warmUp);
        Map<String, Long> byThread = threadDeltas(before.threads, after.threads);
        details.put("cpuMsPer1000ByThread", perThousand(byThread, jobs * 1e3));
        details.put("jitCpuShare", cpu == 0 ? 0.0 : (double) compilerNanos(byThread) / cpu);
        // each instance's CPU less its compiler threads': the JVMs compile at different moments, the work is shared
        List<Long> cpuLessJit = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long jit = compilerNanos(threadDeltas(List.of(before.threads.get(i)), List.of(after.threads.get(i))));
            cpuLessJit.add(cpuByInstance.get(i) - jit);
        }
        long allLessJit = cpuLessJit.stream().mapToLong(Long::longValue).sum();
        details.put("cpuShareSpreadWithoutJit", spread(cpuLessJit, allLessJit));
        // thread hand-offs: at a lower rate per instance each job pays more of its threads' wake-ups itself
        details.put("voluntaryContextSwitchesPerJob", (after.switches[0] - before.switches[0]) / jobs);
        details.put("involuntaryContextSwitchesPerJob", (after.switches[1] - before.switches[1]) / jobs);
        details.put(
                "journalCommitsPerJob", timerCountDelta(before, after, "delay_journal_commit_seconds_count") / jobs);
        details.put("scriptRunsPerJob", scriptRunsPerJob(before, after, jobs));
        details.put("loadAverage", BenchEnvironment.loadAverage());
        return new Size(
                handedOver / seconds,
                pushed / seconds,
                jobs == 0 ? Double.NaN : cpu / 1e6 / jobs * 1_000,
                spread(cpuByInstance, cpu),
                spread(sentByInstance, sent),
                jobs == 0 ? Double.NaN : redisCpuUs / jobs,
                jobs == 0 ? Double.NaN : scriptUsec / jobs,
                Double.NaN,
                details);
    }

    /**
     * Pushes the size's load for {@code --scale-out-warmup} s, then {@link #WARM_UP_SLICE} more at a time while the
     * JVMs' JIT compiler threads took more than {@link #JIT_QUIET} of the instances' CPU in the last slice, up to
     * {@link #WARM_UP_MAX_FACTOR} times the warm-up in all. A JVM compiles a method after a number of calls, not of
     * seconds: with 8 callers per instance on the same cores, each of N instances serves about 1/N of the jobs per
     * second that one alone does, so a fixed warm-up measures the larger cluster's code still interpreted or in C1
     * (the first quick runs put half of 4 instances' CPU per job in the compiler threads). The JIT's one-off cost is
     * not a cost of scaling out; the window then measures settled code.
     *
     * @return the seconds it took and the compiler threads' share of the CPU in each slice
     */
    private Map<String, Object> warmUp(List<ServiceProcess> instances, byte[] job, ExecutorService pool)
            throws Exception {
        Duration first = options.scaleOutWarmUp();
        Duration max = first.multipliedBy(WARM_UP_MAX_FACTOR);
        List<Double> jitShares = new ArrayList<>();
        Duration done = Duration.ZERO;
        Duration next = first;
        while (true) {
            List<Map<String, Long>> before = new ArrayList<>();
            instances.forEach(p -> before.add(CpuTimes.ofThreads(p.pid())));
            List<Future<RunResult>> loads = new ArrayList<>();
            Duration slice = next;
            for (ServiceProcess p : instances) {
                loads.add(pool.submit(() -> HttpPushLoad.run(
                        "127.0.0.1", p.port(), "/push", job, 1, options.scaleOutCallers(), Duration.ZERO, slice)));
            }
            for (Future<RunResult> f : loads) {
                f.get();
            }
            done = done.plus(slice);
            List<Map<String, Long>> after = new ArrayList<>();
            instances.forEach(p -> after.add(CpuTimes.ofThreads(p.pid())));
            Map<String, Long> used = threadDeltas(before, after);
            long all = used.values().stream().mapToLong(v -> Math.max(0, v)).sum();
            long jit = compilerNanos(used);
            double share = all == 0 ? 0 : (double) jit / all;
            jitShares.add(Math.round(share * 1000) / 1000.0);
            if (share <= JIT_QUIET || done.plus(WARM_UP_SLICE).compareTo(max) > 0) {
                break;
            }
            next = WARM_UP_SLICE;
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("seconds", done.toSeconds());
        out.put("jitCpuShareBySlice", jitShares);
        return out;
    }

    /**
     * The instances' CPU with no load, in cores per instance (0.05: 5% of a core each), and the Redis's, in cores,
     * over {@link #IDLE}: what an instance costs for being there (scanning its shards every tick, ZooKeeper, the
     * wake-up subscription), which the CPU per job of a larger cluster carries.
     */
    private static double[] idleCores(List<ServiceProcess> instances, BenchRedis redis) throws InterruptedException {
        long service = 0;
        List<Map<String, Long>> threadsBefore = new ArrayList<>();
        for (ServiceProcess p : instances) {
            service -= CpuTimes.ofProcess(p.pid());
            threadsBefore.add(CpuTimes.ofThreads(p.pid()));
        }
        double redisBefore = redisCpuSeconds(redis);
        long start = System.nanoTime();
        Thread.sleep(IDLE.toMillis());
        List<Map<String, Long>> threadsAfter = new ArrayList<>();
        for (ServiceProcess p : instances) {
            service += CpuTimes.ofProcess(p.pid());
            threadsAfter.add(CpuTimes.ofThreads(p.pid()));
        }
        double redisCpu = redisCpuSeconds(redis) - redisBefore;
        double elapsed = System.nanoTime() - start;
        idleByThread.clear();
        // percent of a core per instance
        idleByThread.putAll(perThousand(threadDeltas(threadsBefore, threadsAfter), elapsed * instances.size() / 100));
        return new double[] {service / elapsed / instances.size(), redisCpu * 1e9 / elapsed};
    }

    /** The idle window's CPU by thread of the last size, in percent of a core per instance. */
    private static final Map<String, Double> idleByThread = new LinkedHashMap<>();

    /** Each thread group's CPU added between the two reads, summed over the instances (nanoseconds). */
    private static Map<String, Long> threadDeltas(List<Map<String, Long>> before, List<Map<String, Long>> after) {
        Map<String, Long> sum = new java.util.HashMap<>();
        for (int i = 0; i < after.size(); i++) {
            Map<String, Long> then = before.get(i);
            after.get(i).forEach((name, nanos) -> sum.merge(name, nanos - then.getOrDefault(name, 0L), Long::sum));
        }
        return sum;
    }

    /**
     * The groups that used at least 1% of the whole, largest first, each divided by {@code divisor} (for ms per 1,000
     * jobs: jobs x 10^3), the rest as one {@code others} entry.
     */
    private static Map<String, Double> perThousand(Map<String, Long> nanos, double divisor) {
        long total = nanos.values().stream().mapToLong(v -> Math.max(0, v)).sum();
        Map<String, Double> out = new LinkedHashMap<>();
        double others = 0;
        for (var e : nanos.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .toList()) {
            if (e.getValue() <= 0) {
                continue;
            }
            double v = Math.round(e.getValue() * 1000 / divisor) / 1000.0;
            if (e.getValue() * 100 >= total) {
                out.put(e.getKey(), v);
            } else {
                others += e.getValue() / divisor;
            }
        }
        out.put("others", Math.round(others * 1000) / 1000.0);
        return out;
    }

    /** The CPU of the JIT's compiler threads ({@code C2 CompilerThre#}, {@code C1 ...}) among {@code byThread}. */
    private static long compilerNanos(Map<String, Long> byThread) {
        return byThread.entrySet().stream()
                .filter(e -> e.getKey().contains("CompilerThre"))
                .mapToLong(e -> Math.max(0, e.getValue()))
                .sum();
    }

    private static double timerCountDelta(Snapshot before, Snapshot after, String key) {
        double sum = 0;
        for (int i = 0; i < after.timers.size(); i++) {
            sum += after.timers.get(i).get(key) - before.timers.get(i).get(key);
        }
        return sum;
    }

    /** Each Lua script's runs per job, all instances together (the service's delay.redis.script timer). */
    private static Map<String, Double> scriptRunsPerJob(Snapshot before, Snapshot after, double jobs) {
        Map<String, Double> out = new java.util.TreeMap<>();
        for (int i = 0; i < after.timers.size(); i++) {
            ServiceTimers.Snapshot then = before.timers.get(i);
            after.timers.get(i).series().forEach((key, value) -> {
                if (key.startsWith("delay_redis_script_seconds_count{")) {
                    String script = key.replaceAll(".*script=\"([^\"]*)\".*", "$1");
                    out.merge(script, (value - then.get(key)) / jobs, Double::sum);
                }
            });
        }
        out.replaceAll((k, v) -> Math.round(v * 1000) / 1000.0);
        return out;
    }

    /** {@code INFO cpu} used_cpu_sys + used_cpu_user, seconds. */
    static double redisCpuSeconds(BenchRedis redis) {
        Map<String, String> cpu = redis.infoSection("cpu");
        return Double.parseDouble(cpu.get("used_cpu_sys")) + Double.parseDouble(cpu.get("used_cpu_user"));
    }

    private static List<Double> shares(List<Long> parts, long total) {
        return parts.stream().map(p -> total == 0 ? 0.0 : (double) p / total).toList();
    }

    /** The largest distance of an instance's share from 1/n, relative to 1/n (0.1: one instance 10% off its share). */
    private static double spread(List<Long> parts, long total) {
        int n = parts.size();
        double worst = 0;
        for (long p : parts) {
            double share = total == 0 ? 0 : (double) p / total;
            worst = Math.max(worst, Math.abs(share * n - 1));
        }
        return worst;
    }

    /** Waits until the instances' owned shards (their health's coordination details) cover every shard once. */
    private static int awaitShardsDivided(List<ServiceProcess> instances) {
        org.awaitility.Awaitility.await("the shards are divided among " + instances.size() + " instances")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> {
                    List<Integer> owned = new ArrayList<>();
                    for (ServiceProcess p : instances) {
                        JsonNode health = get(p.port(), "/actuator/health");
                        JsonNode details =
                                health.path("components").path("coordination").path("details");
                        details.path("ownedShards").forEach(s -> owned.add(s.asInt()));
                        if (details.path("ownedShards").isEmpty()) {
                            return false;
                        }
                    }
                    return owned.size() == SHARDS && owned.stream().distinct().count() == SHARDS;
                });
        return SHARDS;
    }

    static JsonNode get(int port, String path) throws Exception {
        try (HttpConnection c = new HttpConnection("127.0.0.1", port)) {
            return JSON.readTree(c.get(path).body());
        }
    }

    private static void sleepUntil(long nanoTime) throws InterruptedException {
        long left = nanoTime - System.nanoTime();
        if (left > 0) {
            Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
        }
    }

    /** The counters read at each end of the window. */
    private record Snapshot(
            List<Long> cpuNanos,
            List<Long> dispatched,
            long handedOver,
            double redisCpuSeconds,
            long scriptCalls,
            long scriptUsec,
            long commands,
            long publishes,
            Map<String, long[]> scripts,
            List<Map<String, Long>> threads,
            List<ServiceTimers.Snapshot> timers,
            long[] switches) {

        static Snapshot take(List<ServiceProcess> instances, BenchRedis redis, HandOvers handOvers) throws Exception {
            long handedOver = handOvers.count();
            List<Long> cpu = new ArrayList<>();
            List<Map<String, Long>> threads = new ArrayList<>();
            long[] switches = new long[2];
            for (ServiceProcess p : instances) {
                cpu.add(CpuTimes.ofProcess(p.pid()));
                threads.add(CpuTimes.ofThreads(p.pid()));
                long[] c = CpuTimes.contextSwitches(p.pid());
                switches[0] += c[0];
                switches[1] += c[1];
            }
            Map<String, String> cpuInfo = redis.infoSection("cpu");
            double redisCpu =
                    Double.parseDouble(cpuInfo.get("used_cpu_sys")) + Double.parseDouble(cpuInfo.get("used_cpu_user"));
            Map<String, long[]> scripts = new LinkedHashMap<>();
            long calls = 0;
            long usec = 0;
            long publishes = 0;
            for (var e : redis.infoSection("commandstats").entrySet()) {
                String command = e.getKey().replace("cmdstat_", "");
                if (command.equals("publish")) {
                    publishes = statField(e.getValue(), "calls");
                }
                if (command.equals("evalsha")
                        || command.equals("eval")
                        || command.startsWith("fcall")
                        || command.startsWith("evalsha_ro")
                        || command.startsWith("eval_ro")) {
                    long c = statField(e.getValue(), "calls");
                    long u = statField(e.getValue(), "usec");
                    scripts.put(command, new long[] {c, u});
                    calls += c;
                    usec += u;
                }
            }
            long commands = Long.parseLong(redis.infoSection("stats").get("total_commands_processed"));
            List<Long> dispatched = new ArrayList<>();
            for (ServiceProcess p : instances) {
                dispatched.add(
                        get(p.port(), "/stats").path("data").path("dispatched").asLong());
            }
            List<ServiceTimers.Snapshot> timers = new ArrayList<>();
            for (ServiceProcess p : instances) {
                timers.add(ServiceTimers.read(p.port()));
            }
            return new Snapshot(
                    cpu,
                    dispatched,
                    handedOver,
                    redisCpu,
                    calls,
                    usec,
                    commands,
                    publishes,
                    scripts,
                    threads,
                    timers,
                    switches);
        }

        Map<String, Object> scriptUsecByCommand(Snapshot before, double jobs) {
            Map<String, Object> m = new LinkedHashMap<>();
            scripts.forEach((command, now) -> {
                long[] then = before.scripts.getOrDefault(command, new long[2]);
                Map<String, Object> c = new LinkedHashMap<>();
                c.put("callsPerJob", (now[0] - then[0]) / jobs);
                c.put("usPerJob", (now[1] - then[1]) / jobs);
                m.put(command, c);
            });
            return m;
        }

        /** {@code calls=12,usec=345,...} -> the value of {@code name}. */
        private static long statField(String value, String name) {
            for (String part : value.split(",")) {
                if (part.startsWith(name + "=")) {
                    return Long.parseLong(part.substring(name.length() + 1));
                }
            }
            return 0;
        }
    }
}
