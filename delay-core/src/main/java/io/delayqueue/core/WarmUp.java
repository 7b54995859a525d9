package io.delayqueue.core;

import com.sun.net.httpserver.HttpServer;
import io.delayqueue.common.Job;
import io.delayqueue.common.JsonCodec;
import io.delayqueue.queue.coordination.StandaloneCoordinator;
import io.delayqueue.queue.coordination.WakeUpChannel;
import io.delayqueue.queue.dispatch.BlockingSendPool;
import io.delayqueue.queue.dispatch.http.CallbackHosts;
import io.delayqueue.queue.dispatch.http.HttpCallbackDispatcher;
import io.delayqueue.queue.dispatch.http.HttpCallbackSettings;
import io.delayqueue.queue.engine.DelayQueueEngine;
import io.delayqueue.queue.engine.EngineConfig;
import io.delayqueue.queue.engine.WarmUpSettings;
import io.delayqueue.queue.engine.handover.DispatchSettings;
import io.delayqueue.queue.engine.push.PushResult;
import io.delayqueue.queue.engine.tier.TierSettings;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.journal.mybatis.MyBatisJournal;
import io.delayqueue.queue.store.Attempt;
import io.delayqueue.queue.store.redis.RedisJobStore;
import io.delayqueue.queue.store.redis.RedisWakeUpChannel;
import io.delayqueue.queue.store.redis.ReplicaWait;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * The start-up warm-up: before the service says it is ready, a rehearsal of the queue runs its real paths until they
 * are warm, so that the first burst after a start (or after a follower takes over) meets compiled code and filled
 * pools, not the interpreter. A fresh service's first callback burst of 10,000 ran at a quarter of its settled rate,
 * the JIT compiler taking a core meanwhile (JFR): the work that warms is running the code, many thousand times.
 *
 * <p>The rehearsal is a second {@link DelayQueueEngine} wired as the service's, on a private, throw-away world: a
 * {@link RedisJobStore} on the service's Redis client (its pool, its scripts) under a prefix of its own ({@code
 * <prefix>:warm-up:<start>-<random>}, inside the same {@code {prefix:shard}} hash-tag scheme, so it works on Redis
 * Cluster), a standalone coordinator owning all its shards, its own wake-up channel where the service has one, the
 * journal's {@link MyBatisJournal#rehearsal() rehearsal} (the same writers and statements, every group rolled back,
 * every read empty: it can never see a real job, so nothing of it restores, reconciles or replays one), an HTTP
 * callback dispatcher built as the service's whose only allowed host is a loopback receiver it starts itself, and the
 * service's metrics listener ({@link DelayQueueMetrics}) on a registry of its own, thrown away at the end (nothing counts
 * into the service's metrics; see {@link Metrics}). Each round pushes {@code jobsPerRound} jobs all due at once
 * (batches and single pushes, from several threads), three quarters to a callback topic and a quarter to a pull
 * topic, waits for the callbacks, and reserves and finishes the pulled ones in batches as consumers do; the pushes'
 * bodies are parsed by the API's codec. Rounds run until three in a row were no more than 10% faster than the fastest
 * before them and the JIT compiler compiled for at most 5% of each, eight rounds at least, or until {@code maxTime}
 * passed.
 *
 * <p>At the end, in any case, the receiver and the rehearsal stop and every key of its prefix is deleted; at the
 * start, keys of an earlier warm-up that was killed (older than {@link #LEFTOVER_AGE}, so that another instance's
 * warm-up under way is left alone) are deleted too. The service's HTTP port is open meanwhile: real calls are served
 * by the real engine as usual.
 */
public final class WarmUp {
    private static final Logger log = LoggerFactory.getLogger(WarmUp.class);
    /** A leftover warm-up's keys are this old at least before another start deletes them. */
    static final Duration LEFTOVER_AGE = Duration.ofMinutes(10);

    static final String CALLBACK_TOPIC = "warm-up-callback";
    static final String PULL_TOPIC = "warm-up-pull";
    private static final int FLAT_ROUNDS = 3;
    /**
     * Rounds run at least (40,000 jobs by default): a round's rate levels off before the code is all compiled, and
     * a fresh service's bursts of 10,000 went on getting faster up to the fifth.
     */
    private static final int MIN_ROUNDS = 8;
    /** The compiler is done once it compiled less than {@link #COMPILER_QUIET} in a window of this. */
    private static final Duration COMPILER_WINDOW = Duration.ofMillis(500);

    private static final Duration COMPILER_QUIET = Duration.ofMillis(25);
    /** A round counts as settled only if the JIT compiler's threads compiled for at most this share of it. */
    private static final double COMPILING_SETTLED = 0.05;

    /**
     * Threads pushing a round's jobs, half of them one per call: with 4, a round spent most of its time waiting for
     * the single pushes' commits (rounds at 1,400 jobs/s where the service's bursts ran at 5,000), and on a slow day
     * the warm-up's time ran out before the hand-over path was compiled.
     */
    private static final int PUSH_THREADS = 16;

    private static final int PULL_THREADS = 2;
    private static final int BATCH = 50;
    /**
     * The rehearsal's job bodies, by turns: 30 to 320 bytes, plain and with characters to escape or outside ASCII, so
     * that the branches a real body takes through the JSON codec, the Redis protocol, the journal's driver and the
     * callback's client are compiled too (with one short body, a fresh service's first burst of 100-byte bodies had
     * Jackson's string writer compiled again). Those longer than {@code delay.limits.max-body-size} are left out.
     */
    private static final List<String> BODIES = List.of(
            "{\"warm\":\"up\",\"order\":1234567}",
            "x".repeat(100),
            "order 42 of customer 7: close it unless paid, 30 min after checkout; ".repeat(4),
            "{\"event\":\"confirm-receipt\",\"note\":\"Z\u00fcrich \u2192 \u6771\u4eac, \\\"fragile\\\"\",\"lines\":["
                    + "{\"sku\":\"A-1\",\"qty\":2},".repeat(10)
                    + "{\"sku\":\"B-2\",\"qty\":1}]}");

    /** A round's jobs are all due this long after its start: their pushes land first, then they are a burst. */
    private static final long DUE_AFTER_MS = 200;

    private final EngineConfig config;
    private final UnifiedJedis redis;
    private final Journal journal;
    private final HttpCallbackSettings httpSettings;
    private final ReplicaWait replicaWait;
    private final boolean wakeUps;
    private final Clock clock;
    private final WarmUpSettings settings;
    private final Metrics metrics;
    private final List<String> bodies;
    private final String prefix;

    /**
     * What one warm-up did.
     *
     * @param meteredHandOvers the hand-overs the rehearsal's own metrics counted (0 without {@link Metrics})
     */
    public record Report(
            int rounds, long jobs, Duration took, double lastRoundRate, String prefix, long meteredHandOvers) {}

    /**
     * The rehearsal's metrics: the service's listener, {@link DelayQueueMetrics}, on a registry of its own that {@code
     * registry} makes (of the service's registry's kind) and that is dropped at the end. Without it the rehearsal ran
     * with no listener, and its hot call sites (a hand-over's count, a commit's and a script's timers) were profiled
     * for none: a fresh service's first burst then met its listener's code (Micrometer's counters and timers,
     * HdrHistogram) compiled by C2 for the first time, and the listener's counter lookup made not entrant
     * ({@code -XX:+PrintCompilation}).
     *
     * @param registry a new, empty registry each call
     * @param maxTopics {@code delay.metrics.max-topics}, as the service's
     */
    public record Metrics(Supplier<MeterRegistry> registry, int maxTopics) {
        /** No metrics: the rehearsal runs without a listener. */
        public static final Metrics NONE = new Metrics(null, 0);
    }

    /**
     * @param config the service's engine settings (the rehearsal's are these, under another prefix)
     * @param journal the service's journal: a {@link MyBatisJournal} is rehearsed, any other is left out (none)
     * @param wakeUps whether the service has a wake-up channel (the rehearsal then has one of its own)
     * @param metrics the rehearsal's metrics, {@link Metrics#NONE} where the service has none
     */
    public WarmUp(
            EngineConfig config,
            UnifiedJedis redis,
            Journal journal,
            HttpCallbackSettings httpSettings,
            ReplicaWait replicaWait,
            boolean wakeUps,
            Clock clock,
            WarmUpSettings settings,
            Metrics metrics) {
        this.config = config;
        this.redis = redis;
        this.journal = journal;
        this.httpSettings = httpSettings;
        this.replicaWait = replicaWait;
        this.wakeUps = wakeUps;
        this.clock = clock;
        this.settings = settings;
        this.metrics = metrics;
        this.bodies = bodies(config.limits().maxBodyBytes());
        this.prefix = keyPrefix(config.redisPrefix())
                + clock.millis()
                + "-"
                + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
    }

    /** What every warm-up's private prefix begins with. */
    static String keyPrefix(String servicePrefix) {
        return servicePrefix + ":warm-up:";
    }

    /** This warm-up's private prefix. */
    public String prefix() {
        return prefix;
    }

    /** Runs the warm-up; deletes what it made whatever happens. */
    public Report run() throws Exception {
        long started = System.nanoTime();
        deleteLeftovers();
        LoopbackReceiver receiver = new LoopbackReceiver();
        MyBatisJournal rehearsedJournal =
                journal instanceof MyBatisJournal real && !real.rollsBack() ? real.rehearsal() : null;
        DelayQueueEngine engine = null;
        HttpCallbackDispatcher dispatcher = null;
        MeterRegistry registry = null;
        DelayQueueMetrics metered = null;
        ExecutorService workers = Executors.newFixedThreadPool(PUSH_THREADS + PULL_THREADS, r -> {
            Thread t = new Thread(r, "delay-warm-up");
            t.setDaemon(true);
            return t;
        });
        try {
            EngineConfig rehearsal = rehearsalConfig(config, prefix);
            HttpCallbackSettings loopbackOnly = new HttpCallbackSettings(
                    httpSettings.connectTimeout(),
                    httpSettings.readTimeout(),
                    httpSettings.maxConnectionsPerHost(),
                    new CallbackHosts(List.of("127.0.0.1")),
                    httpSettings.signing());
            dispatcher = new HttpCallbackDispatcher(
                    loopbackOnly,
                    BlockingSendPool.maxQueueWait(
                            rehearsal
                                    .dispatch()
                                    .timeout()
                                    .minus(rehearsal.dispatch().laneWait()),
                            loopbackOnly.sendTimeout()),
                    clock);
            RedisJobStore store =
                    new RedisJobStore(redis, prefix, rehearsal.shards(), rehearsal.retention(), false, replicaWait);
            StandaloneCoordinator coordinator = new StandaloneCoordinator();
            Journal rehearsalJournal = rehearsedJournal == null ? Journal.NONE : rehearsedJournal;
            engine = new DelayQueueEngine(
                    rehearsal,
                    store,
                    List.of(dispatcher),
                    coordinator,
                    rehearsalJournal,
                    clock,
                    wakeUps ? new RedisWakeUpChannel(redis, prefix, rehearsal.shards()) : WakeUpChannel.NONE);
            if (metrics.registry() != null) {
                // wired as MetricsConfiguration wires the service's, on a registry of its own
                registry = metrics.registry().get();
                metered = new DelayQueueMetrics(
                        engine,
                        coordinator,
                        rehearsalJournal,
                        Set.of(dispatcher.name()),
                        metrics.maxTopics(),
                        MetricsConfiguration.storeScripts());
                metered.bindTo(registry);
                metered.listenTo(engine, rehearsalJournal, store);
            }
            log.info(
                    "warming up before the service says it is ready: a rehearsal of the queue under the private prefix"
                            + " {}, its metrics on {}, for {} at most (the engine start and stop logged next are the"
                            + " rehearsal's)",
                    prefix,
                    registry == null ? "none" : "a " + registry.getClass().getSimpleName() + " of its own",
                    settings.maxTime());
            engine.start();
            String url = "http://127.0.0.1:" + receiver.port() + "/warm-up";
            long deadline = started + settings.maxTime().toNanos();
            int rounds = 0;
            long jobs = 0;
            double best = 0;
            int flat = 0;
            double rate = 0;
            List<Long> rates = new ArrayList<>();
            List<Long> compiling = new ArrayList<>();
            CompilationMXBean compiler = compiler();
            while (System.nanoTime() < deadline) {
                long roundStart = System.nanoTime();
                long compiledBefore = compiledMs(compiler);
                rate = round(engine, workers, url, receiver, deadline);
                long roundMs = Math.max(1, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - roundStart));
                long compiledMs = compiledMs(compiler) - compiledBefore;
                rates.add(Math.round(rate));
                compiling.add(Math.round(100.0 * compiledMs / roundMs));
                rounds++;
                jobs += settings.jobsPerRound();
                // settled: FLAT_ROUNDS rounds in a row no more than 10% above the best before them (one slow round,
                // a GC or a neighbour's load, does not end it early), in which the JIT compiler was mostly done: a
                // method still queued for compilation when its calls stop is dropped from the queue, and compiled
                // only once the real load has called it as often again (a fresh service's first burst met 280
                // methods still to compile with C2 after rounds that had stopped while the compiler was busy)
                flat = settledRound(rate, best, compiledMs, roundMs) ? flat + 1 : 0;
                best = Math.max(best, rate);
                if (flat >= FLAT_ROUNDS && rounds >= MIN_ROUNDS) {
                    break;
                }
            }
            long compilerWait = awaitCompilerQuiet(deadline);
            Report report = new Report(
                    rounds,
                    jobs,
                    Duration.ofNanos(System.nanoTime() - started),
                    rate,
                    prefix,
                    registry == null ? 0 : handOvers(registry));
            log.info(
                    "warmed up in {} ms: {} rounds, {} jobs pushed and handed over under a private prefix, the last"
                            + " round at {} jobs/s (rounds: {}; the JIT compiler's time, % of each round: {}), then {}"
                            + " ms until the JIT compiler was done with what they ran (delay.warm-up.enabled=false"
                            + " starts without)",
                    report.took().toMillis(), rounds, jobs, Math.round(rate), rates, compiling, compilerWait);
            return report;
        } finally {
            workers.shutdownNow();
            if (metered != null) {
                closeQuietly(metered); // its gauges' refresher first: it reads the engine
            }
            if (engine != null) {
                closeQuietly(engine);
            }
            if (registry != null) {
                registry.close();
            }
            if (dispatcher != null) {
                closeQuietly(dispatcher);
            }
            if (rehearsedJournal != null) {
                closeQuietly(rehearsedJournal);
            }
            receiver.close();
            int deleted = deleteKeys(redis, "{" + prefix + ":*", key -> true);
            log.debug("warm-up deleted its {} keys under {}", deleted, prefix);
        }
    }

    /** The hand-overs counted in {@code registry}, every topic. */
    private static long handOvers(MeterRegistry registry) {
        return Math.round(registry.find("delay.jobs.handed.over").counters().stream()
                .mapToDouble(Counter::count)
                .sum());
    }

    /**
     * Waits until the JIT compiler is done with the code the rounds ran: the methods they made hot are queued for
     * compilation and compiled in the background, and a burst that comes while the queue drains shares the cores with
     * the compiler (a take-over, which met code compiled at leisure, ran at 0.83 of the settled rate; a fresh service
     * right after its rounds at 0.37). Done when the compiler threads spent less than {@link #COMPILER_QUIET} of
     * {@link #COMPILER_WINDOW} compiling, or at {@code deadline}.
     *
     * @return milliseconds waited
     */
    private static long awaitCompilerQuiet(long deadline) throws InterruptedException {
        CompilationMXBean compiler = compiler();
        long start = System.nanoTime();
        if (compiler == null) {
            return 0;
        }
        long before = compiler.getTotalCompilationTime();
        while (System.nanoTime() < deadline) {
            Thread.sleep(Math.max(1, Math.min(COMPILER_WINDOW.toMillis(), remainingMs(deadline))));
            long now = compiler.getTotalCompilationTime();
            if (now - before < COMPILER_QUIET.toMillis()) {
                break;
            }
            before = now;
        }
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    /**
     * The service's settings under the private prefix, with every topic routed to the callback dispatcher but the
     * rehearsal's pull topic, and nothing timed that only reads the journal: no tier (its jobs are all due at once),
     * no journal or dead-letter retention, the reconciler's first pass after the warm-up's longest run.
     */
    static EngineConfig rehearsalConfig(EngineConfig config, String prefix) {
        return config.withRedisPrefix(prefix)
                .withDispatch(d -> d.withDefaultDispatcher(HttpCallbackDispatcher.NAME)
                        .withTopics(Map.of(PULL_TOPIC, DispatchSettings.PULL)))
                .withTier(t -> new TierSettings(Duration.ZERO))
                .withDead(d -> new io.delayqueue.queue.engine.handover.DeadLetterSettings(Duration.ZERO))
                .withJournal(j -> j.withRetention(Duration.ZERO, j.purgeBatchSize(), j.purgeInterval(), j.purgePause())
                        .withReconcile(Duration.ofDays(1), j.reconcileGrace(), j.pageSize()));
    }

    /**
     * One round: {@code jobsPerRound} jobs due at one moment, pushed from several threads, then handed over; returns
     * the jobs per second of the time spent pushing plus the time from the due moment (or the last push, if later) to
     * the last job handed over (callback answered, pulled job finished).
     */
    private double round(
            DelayQueueEngine engine, ExecutorService workers, String url, LoopbackReceiver receiver, long deadline)
            throws Exception {
        int total = settings.jobsPerRound();
        int pulled = total / 4;
        int called = total - pulled;
        long roundStart = System.nanoTime();
        long dueAt = clock.millis() + DUE_AFTER_MS;
        long dueNanos = roundStart + TimeUnit.MILLISECONDS.toNanos(DUE_AFTER_MS);
        long receivedBefore = receiver.received();
        AtomicInteger finished = new AtomicInteger();
        List<Future<?>> pushes = new ArrayList<>();
        for (int t = 0; t < PUSH_THREADS; t++) {
            int thread = t;
            pushes.add(workers.submit(() -> {
                pushShare(engine, url, bodies, thread, total, pulled, dueAt);
                return null;
            }));
        }
        List<Future<?>> consumers = new ArrayList<>();
        for (int t = 0; t < PULL_THREADS; t++) {
            consumers.add(workers.submit(() -> {
                consume(engine, finished, pulled, deadline);
                return null;
            }));
        }
        for (Future<?> push : pushes) {
            push.get(remainingMs(deadline) + 10_000, TimeUnit.MILLISECONDS);
        }
        long pushEnd = System.nanoTime();
        for (Future<?> consumer : consumers) {
            consumer.get(remainingMs(deadline) + 10_000, TimeUnit.MILLISECONDS);
        }
        receiver.awaitReceived(receivedBefore + called, deadline);
        long end = System.nanoTime();
        long spent = (pushEnd - roundStart) + (end - Math.max(pushEnd, dueNanos));
        return total * 1e9 / Math.max(1, spent);
    }

    /**
     * This thread's share of a round's pushes: every {@code PUSH_THREADS}-th job, by turns one per call and batched,
     * each body parsed from JSON by the codec the HTTP API parses with and each answer written with it, so that the
     * request's (de)serialisation warms up too.
     */
    private static void pushShare(
            DelayQueueEngine engine, String url, List<String> bodies, int thread, int total, int pulled, long dueAt) {
        List<String> share = new ArrayList<>();
        for (int j = thread; j < total; j += PUSH_THREADS) {
            boolean pull = j < pulled;
            String body = bodies.get((j / PUSH_THREADS) % bodies.size());
            share.add("{\"topic\":\"" + (pull ? PULL_TOPIC : CALLBACK_TOPIC) + "\",\"bizKey\":\"warm-up-" + j
                    + "\",\"body\":" + JsonCodec.write(body) + ",\"executeAt\":" + dueAt
                    + (pull ? "" : ",\"url\":\"" + url + "\"") + "}");
        }
        for (int from = 0; from < share.size(); from += BATCH) {
            List<String> batch = share.subList(from, Math.min(share.size(), from + BATCH));
            if ((from / BATCH) % 2 == 0) {
                for (String job : batch) {
                    PushResult result = engine.push(JsonCodec.readPushRequest(job.getBytes(StandardCharsets.UTF_8)));
                    JsonCodec.write(result.id());
                }
            } else {
                byte[] body = ("[" + String.join(",", batch) + "]").getBytes(StandardCharsets.UTF_8);
                List<PushResult> results = engine.pushBatch(JsonCodec.readPushRequests(body));
                JsonCodec.write(results.stream().map(PushResult::id).toList());
            }
        }
    }

    /** The rehearsal's bodies that fit {@code maxBodyBytes} (UTF-8); one of that size at most if none does. */
    static List<String> bodies(int maxBodyBytes) {
        List<String> fit = BODIES.stream()
                .filter(b -> b.getBytes(StandardCharsets.UTF_8).length <= maxBodyBytes)
                .toList();
        return fit.isEmpty() ? List.of("x".repeat(Math.max(1, Math.min(maxBodyBytes, 16)))) : fit;
    }

    /** A pull consumer: reserves up to 100 at a time and finishes them in one call, until the round's are done. */
    private static void consume(DelayQueueEngine engine, AtomicInteger finished, int pulled, long deadline)
            throws Exception {
        while (finished.get() < pulled && System.nanoTime() < deadline) {
            List<Job> jobs = engine.reserve(PULL_TOPIC, 100, 100).get(10, TimeUnit.SECONDS);
            if (!jobs.isEmpty()) {
                engine.finishAll(jobs.stream()
                        .map(j -> new Attempt(j.id(), j.attempts()))
                        .toList());
                finished.addAndGet(jobs.size());
            }
        }
    }

    /**
     * Whether a round counts towards the end: at most 10% faster than the fastest before it ({@code best}), and the
     * JIT compiler busy for at most {@link #COMPILING_SETTLED} of its {@code roundMs}.
     */
    static boolean settledRound(double rate, double best, long compiledMs, long roundMs) {
        return rate <= best * 1.1 && compiledMs <= roundMs * COMPILING_SETTLED;
    }

    /** The JVM's JIT compiler, if it tells its time; else null. */
    private static CompilationMXBean compiler() {
        CompilationMXBean compiler = ManagementFactory.getCompilationMXBean();
        return compiler != null && compiler.isCompilationTimeMonitoringSupported() ? compiler : null;
    }

    /** The compiler threads' time so far (ms), 0 without one that tells it. */
    private static long compiledMs(CompilationMXBean compiler) {
        return compiler == null ? 0 : compiler.getTotalCompilationTime();
    }

    private static long remainingMs(long deadlineNanos) {
        return Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
    }

    /**
     * Deletes the keys of earlier warm-ups that were stopped before they cleaned up (killed): those whose start, in
     * their prefix, is more than {@link #LEFTOVER_AGE} ago (a warm-up of another instance under way is left alone).
     */
    void deleteLeftovers() {
        String leftovers = "{" + keyPrefix(config.redisPrefix());
        long before = clock.millis() - LEFTOVER_AGE.toMillis();
        try {
            int deleted = deleteKeys(redis, leftovers + "*", key -> {
                String rest = key.substring(leftovers.length());
                int dash = rest.indexOf('-');
                try {
                    return dash > 0 && Long.parseLong(rest.substring(0, dash)) < before;
                } catch (NumberFormatException e) {
                    return false;
                }
            });
            if (deleted > 0) {
                log.info("deleted {} keys an earlier warm-up left under {}*", deleted, leftovers);
            }
        } catch (RuntimeException e) {
            log.warn("could not delete the keys of earlier warm-ups: {}", e.toString());
        }
    }

    /**
     * Deletes the keys matching {@code pattern} (SCAN on each master of a Redis Cluster, on the one server otherwise)
     * that {@code which} accepts, one {@code DEL} per key through the service's client (routed to its slot).
     *
     * @return keys deleted
     */
    static int deleteKeys(UnifiedJedis redis, String pattern, java.util.function.Predicate<String> which) {
        List<String> found = new ArrayList<>();
        ScanParams params = new ScanParams().match(pattern).count(1000);
        if (redis instanceof JedisCluster cluster) {
            for (ConnectionPool node : cluster.getClusterNodes().values()) {
                try (Connection connection = node.getResource();
                        Jedis jedis = new Jedis(connection)) {
                    scan(params, found, jedis::scan);
                } catch (RuntimeException unreachable) {
                    log.debug("warm-up: could not scan a cluster node: {}", unreachable.toString());
                }
            }
        } else {
            scan(params, found, redis::scan);
        }
        int deleted = 0;
        for (String key : found.stream().distinct().filter(which).toList()) {
            deleted += (int) redis.del(key);
        }
        return deleted;
    }

    private static void scan(
            ScanParams params,
            List<String> found,
            java.util.function.BiFunction<String, ScanParams, ScanResult<String>> scan) {
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
            ScanResult<String> page = scan.apply(cursor, params);
            found.addAll(page.getResult());
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            log.warn("warm-up: closing {} failed: {}", closeable.getClass().getSimpleName(), e.toString());
        }
    }

    /** Answers every request 200 at once, on 127.0.0.1 and a port of its own, and counts them. */
    private static final class LoopbackReceiver implements AutoCloseable {
        private final HttpServer server;
        private final ExecutorService executor;
        private final AtomicLong received = new AtomicLong();

        LoopbackReceiver() throws IOException {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 128);
            executor = Executors.newFixedThreadPool(2, r -> {
                Thread t = new Thread(r, "delay-warm-up-receiver");
                t.setDaemon(true);
                return t;
            });
            server.setExecutor(executor);
            server.createContext("/", exchange -> {
                try (InputStream body = exchange.getRequestBody()) {
                    body.readAllBytes();
                }
                exchange.sendResponseHeaders(200, -1);
                exchange.close();
                received.incrementAndGet();
                synchronized (received) {
                    received.notifyAll();
                }
            });
            server.start();
        }

        int port() {
            return server.getAddress().getPort();
        }

        long received() {
            return received.get();
        }

        void awaitReceived(long count, long deadlineNanos) throws InterruptedException {
            synchronized (received) {
                while (received.get() < count && System.nanoTime() < deadlineNanos) {
                    received.wait(Math.max(1, Math.min(100, remainingMs(deadlineNanos))));
                }
            }
        }

        @Override
        public void close() {
            server.stop(0);
            executor.shutdownNow();
        }
    }
}
