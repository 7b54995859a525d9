package io.delayqueue.bench;

import io.delayqueue.common.PushRequest;
import io.delayqueue.config.DelayProperties;
import io.delayqueue.queue.coordination.StandaloneCoordinator;
import io.delayqueue.queue.engine.DelayQueueEngine;
import io.delayqueue.queue.engine.EngineConfig;
import io.delayqueue.queue.engine.retention.PurgeReport;
import io.delayqueue.queue.engine.tier.TierSettings;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.journal.mybatis.MyBatisJournal;
import io.delayqueue.queue.store.redis.RedisJobStore;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisPooled;

/**
 * This service in-process: a {@link DelayQueueEngine} wired as the service wires it, with the service's
 * defaults (8 shards, 32 Redis connections, a {@link MyBatisJournal} in {@code sync} mode with 8 database
 * connections), on the Redis at 127.0.0.1:6379 under a key prefix of each run's own and a MariaDB database of
 * the benchmark's own. Due jobs go to a {@link CountingDispatcher}. Every run starts a fresh engine on empty
 * journal tables and a fresh prefix, and removes both afterwards.
 */
final class InProcessTarget implements BenchTarget {
    static final String TOPIC = "bench";

    private final BenchOptions options;
    private final BenchRedis benchRedis;
    private final BenchDatabase database;
    private final String body;
    private final DelayProperties defaults = new DelayProperties();

    InProcessTarget(BenchOptions options, BenchRedis benchRedis) throws Exception {
        this.options = options;
        this.benchRedis = benchRedis;
        this.body = "x".repeat(options.bodyBytes());
        this.database = BenchDatabase.create();
        database.migrate();
    }

    @Override
    public RunResult pushSingle(int callers, Duration preRoll, Duration measure) throws Exception {
        PushRequest request = PushRequest.of(TOPIC, body, Duration.ofHours(1).toMillis());
        try (Queue q = new Queue(true, HandOvers.counting())) {
            return LoadDriver.throughput(callers, preRoll, measure, caller -> () -> {
                q.engine.push(request);
                return 1;
            });
        }
    }

    @Override
    public RunResult pushBatch(Duration preRoll, Duration measure) throws Exception {
        List<PushRequest> batch = Collections.nCopies(
                options.batchSize(),
                PushRequest.of(TOPIC, body, Duration.ofHours(1).toMillis()));
        try (Queue q = new Queue(true, HandOvers.counting())) {
            return LoadDriver.throughput(
                    options.batchThreads(),
                    preRoll,
                    measure,
                    caller -> () -> q.engine.pushBatch(batch).size());
        }
    }

    @Override
    public RunResult burst(int jobs, long leadMs) throws Exception {
        HandOvers handOvers = HandOvers.counting();
        try (Queue q = new Queue(true, handOvers)) {
            handOvers.expect(jobs);
            long dueAt = System.currentTimeMillis() + leadMs;
            long loadStart = System.nanoTime();
            loadBatches(q.engine, jobs, dueAt);
            double loadSeconds = (System.nanoTime() - loadStart) / 1e9;
            return Figures.awaitBurst(handOvers, jobs, dueAt, loadSeconds, leadMs, "were handed over");
        }
    }

    /** Pushes {@code jobs} jobs due at {@code dueAt} with {@code pushBatch}, from a few threads. */
    private void loadBatches(DelayQueueEngine engine, int jobs, long dueAt) throws Exception {
        PushRequest request = new PushRequest(null, TOPIC, null, null, body, null, dueAt, null, null, null, null);
        List<PushRequest> full = Collections.nCopies(options.batchSize(), request);
        AtomicInteger left = new AtomicInteger(jobs);
        Parallel.run(options.batchThreads(), "bench-load", () -> {
            while (true) {
                int taken = take(left, full.size());
                if (taken == 0) {
                    return;
                }
                engine.pushBatch(taken == full.size() ? full : full.subList(0, taken));
            }
        });
    }

    private static int take(AtomicInteger left, int most) {
        while (true) {
            int l = left.get();
            if (l <= 0) {
                return 0;
            }
            int t = Math.min(l, most);
            if (left.compareAndSet(l, l - t)) {
                return t;
            }
        }
    }

    @Override
    public RunResult lateness(int rate, Duration duration) throws Exception {
        HandOvers handOvers = HandOvers.recordingLateness();
        try (Queue q = new Queue(true, handOvers)) {
            Map<String, Number> load = LoadDriver.paced(
                    rate,
                    duration,
                    32,
                    seq -> q.engine.push(PushRequest.of(
                            TOPIC, body, 1_000 + ThreadLocalRandom.current().nextInt(1_000))));
            long pushed = load.get("pushed").longValue();
            if (handOvers.await(pushed, Duration.ofSeconds(32)) < 0) {
                throw new IllegalStateException((pushed - handOvers.count()) + " of " + pushed
                        + " jobs were not handed over within 30 s" + " of their due time");
            }
            return Figures.lateness(handOvers.lateness(), handOvers.early(), load);
        }
    }

    @Override
    public RunResult memory(int jobs) throws Exception {
        return pendingMemory(
                jobs,
                false,
                Duration.ofDays(30),
                Duration.ofDays(300),
                "off (loaded with pushBatch; the journal does not change what Redis holds)");
    }

    /**
     * Redis's growth with {@code jobs} pending jobs pushed in batches, due from {@code dueIn} on, spread over
     * {@code spread}, measured once the engine is closed (its connections' buffers are not part of what a pending
     * job costs).
     */
    private RunResult pendingMemory(int jobs, boolean journaled, Duration dueIn, Duration spread, String journal)
            throws Exception {
        long before = benchRedis.usedMemory();
        String keys;
        long loadStart = System.nanoTime();
        try (Queue q = new Queue(journaled, HandOvers.counting())) {
            keys = q.keysGlob();
            long first = System.currentTimeMillis() + dueIn.toMillis();
            AtomicInteger left = new AtomicInteger(jobs);
            Parallel.run(options.batchThreads(), "bench-load", () -> {
                List<PushRequest> batch = new ArrayList<>(options.batchSize());
                while (true) {
                    int taken = take(left, options.batchSize());
                    if (taken == 0) {
                        return;
                    }
                    batch.clear();
                    for (int i = 0; i < taken; i++) {
                        long dueAt = first + ThreadLocalRandom.current().nextLong(spread.toMillis());
                        batch.add(new PushRequest(null, TOPIC, null, null, body, null, dueAt, null, null, null, null));
                    }
                    q.engine.pushBatch(batch);
                }
            });
            double loadSeconds = (System.nanoTime() - loadStart) / 1e9;
            q.closeEngine();
            long after = benchRedis.usedMemory();
            long ofKeys = benchRedis.memoryOfKeys(keys);
            return RunResult.of("bytesPerJob", (double) (after - before) / jobs)
                    .with("usedMemoryBefore", before)
                    .with("usedMemoryAfter", after)
                    .with("memoryUsageOfKeysPerJob", (double) ofKeys / jobs)
                    .with("keys", benchRedis.keys(keys).size())
                    .with("jobs", jobs)
                    .with("loadSeconds", loadSeconds)
                    .with("journal", journal);
        }
    }

    @Override
    public RunResult purge(int rows, Duration warmUp, Duration measure) throws Exception {
        // the pass is run by hand; the engine's own timer must not start one meanwhile
        try (Queue q = new Queue(
                true,
                HandOvers.counting(),
                c -> c.withJournal(
                        j -> j.withRetention(j.retention(), j.purgeBatchSize(), Duration.ofDays(1), j.purgePause())))) {
            long insertStart = System.nanoTime();
            long updatedAt = System.currentTimeMillis() - Duration.ofDays(8).toMillis();
            database.insertFinishedJobs(rows, updatedAt, body);
            double insertSeconds = (System.nanoTime() - insertStart) / 1e9;
            long tableBytes = database.journalBytes();
            PushRequest request =
                    PushRequest.of(TOPIC, body, Duration.ofHours(1).toMillis());
            LoadDriver.CallerFactory pushes = caller -> () -> {
                q.engine.push(request);
                return 1;
            };
            LoadDriver.throughput(options.threads(), Duration.ZERO, warmUp, pushes);
            RunResult before = LoadDriver.throughput(options.threads(), Duration.ofSeconds(1), measure, pushes);

            java.util.concurrent.CompletableFuture<PurgeReport> pass =
                    java.util.concurrent.CompletableFuture.supplyAsync(q.engine::purgeJournalNow);
            long purgeStart = System.nanoTime();
            RunResult during = LoadDriver.throughput(options.threads(), Duration.ofSeconds(1), measure, pushes);
            boolean overlapped = !pass.isDone();
            PurgeReport report = pass.get();
            double purgeSeconds = (System.nanoTime() - purgeStart) / 1e9;
            if (report.jobs() != rows) {
                throw new IllegalStateException("the pass purged " + report.jobs() + " of " + rows + " final jobs");
            }
            return RunResult.of("pushJobsPerSecond", before.value("jobsPerSecond"))
                    .and("pushDuringPurgeJobsPerSecond", during.value("jobsPerSecond"))
                    .and("purgedJobsPerSecond", report.jobs() / purgeSeconds)
                    .with("finalJobs", rows)
                    .with("insertSeconds", insertSeconds)
                    .with("journalBytesBefore", tableBytes)
                    .with("purgedJobs", report.jobs())
                    .with("purgedLogRows", report.logRows())
                    .with("batches", report.batches())
                    .with("purgeSeconds", purgeSeconds)
                    .with("purgeOutlastedThePushes", overlapped)
                    .with("rowsLeft", database.jobRows());
        }
    }

    @Override
    public String notMeasured(Kind kind) {
        return switch (kind) {
            case CALLBACK_BURST, PULL_BURST, CALLBACK_LATENESS, CANARY, RETRY_STORM -> OVER_HTTP;
            case SCALE_OUT, FULL_BURST, FULL_PENDING -> PACKAGED_ONLY;
            default -> null;
        };
    }

    @Override
    public RunResult tierPush(Duration preRoll, Duration measure) throws Exception {
        PushRequest request = PushRequest.of(TOPIC, body, Duration.ofDays(7).toMillis());
        try (Queue q = new Queue(true, HandOvers.counting())) {
            RunResult run = LoadDriver.throughput(options.threads(), preRoll, measure, caller -> () -> {
                q.engine.push(request);
                return 1;
            });
            return run.with("jobsInRedis", q.engine.stats().tiers().redisPending());
        }
    }

    @Override
    public RunResult tierLateness(int rate, Duration duration) throws Exception {
        HandOvers handOvers = HandOvers.recordingLateness();
        try (Queue q = new Queue(true, handOvers, c -> c.withTier(t -> new TierSettings(TIER_LATENESS_HORIZON)))) {
            Map<String, Number> load = LoadDriver.paced(
                    rate,
                    duration,
                    32,
                    seq -> q.engine.push(PushRequest.of(
                            TOPIC, body, 4_000 + ThreadLocalRandom.current().nextInt(1_000))));
            long pushed = load.get("pushed").longValue();
            if (handOvers.await(pushed, Duration.ofSeconds(35)) < 0) {
                throw new IllegalStateException((pushed - handOvers.count()) + " of " + pushed
                        + " jobs were not handed over within 30 s" + " of their due time");
            }
            return Figures.lateness(handOvers.lateness(), handOvers.early(), load)
                    .with("horizonMs", TIER_LATENESS_HORIZON.toMillis());
        }
    }

    /** Short enough that every job of the tier lateness run is far when pushed (delays are 4-5 s). */
    private static final Duration TIER_LATENESS_HORIZON = Duration.ofSeconds(2);

    @Override
    public RunResult tierMemory(int jobs) throws Exception {
        return pendingMemory(
                jobs, true, Duration.ofDays(7), Duration.ofHours(1), "sync, tiers on (default 1 h horizon)");
    }

    @Override
    public void close() throws Exception {
        database.close();
    }

    /** One run's engine, its Redis pool and journal; closing removes its keys and empties the journal. */
    private final class Queue implements AutoCloseable {
        private final String prefix = BenchRedis.uniqueName("inproc");
        private final JedisPooled redis;
        private final Journal journal;
        private final DelayQueueEngine engine;
        private boolean engineClosed;

        Queue(boolean journaled, HandOvers handOvers) {
            this(journaled, handOvers, b -> b);
        }

        /** @param tuning changes to the service's defaults */
        Queue(boolean journaled, HandOvers handOvers, java.util.function.UnaryOperator<EngineConfig> tuning) {
            var r = defaults.getRedis();
            GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
            pool.setMaxTotal(r.getMaxConnections());
            pool.setMaxIdle(r.getMaxConnections());
            pool.setJmxEnabled(false);
            int timeoutMs = (int) r.getTimeout().toMillis();
            redis = new JedisPooled(
                    pool,
                    new HostAndPort(BenchRedis.HOST, BenchRedis.PORT),
                    DefaultJedisClientConfig.builder()
                            .connectionTimeoutMillis(timeoutMs)
                            .socketTimeoutMillis(timeoutMs)
                            .clientName("bench-inproc")
                            .build());
            if (journaled) {
                journal = database.journal(defaults.getJournal().toSettings(), defaults.getShards());
            } else {
                journal = Journal.NONE;
            }
            EngineConfig config = tuning.apply(defaults.toEngineConfig()
                    .withRedisPrefix(prefix)
                    .withDispatch(d -> d.withDefaultDispatcher(CountingDispatcher.NAME)));
            engine = new DelayQueueEngine(
                    config,
                    new RedisJobStore(redis, prefix, config.shards(), config.retention(), false),
                    List.of(new CountingDispatcher(handOvers)),
                    new StandaloneCoordinator(),
                    journal,
                    Clock.systemUTC());
            engine.start();
        }

        String keysGlob() {
            return "{" + prefix + ":*";
        }

        void closeEngine() {
            if (!engineClosed) {
                engineClosed = true;
                engine.close();
                journal.close();
                redis.close();
            }
        }

        @Override
        public void close() throws Exception {
            closeEngine();
            benchRedis.unlink(keysGlob());
            if (journal != Journal.NONE) {
                database.truncate();
            }
        }
    }
}
