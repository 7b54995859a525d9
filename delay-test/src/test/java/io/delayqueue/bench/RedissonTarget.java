package io.delayqueue.bench;

import io.delayqueue.e2e.support.RedisServerProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.redisson.Redisson;
import org.redisson.api.RBlockingQueue;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RFuture;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * Redisson's {@link RDelayedQueue}: a delayed queue in front of an {@link RBlockingQueue},
 * every setting at Redisson's default but the codec ({@link StringCodec}: the 100-byte body is stored as its
 * 100 bytes, as this service stores it). Each value carries its due time ({@code <epoch ms>:xxx...}, padded
 * to the body size) so that consumers can tell its lateness. Every run uses queue names of its own and
 * deletes them afterwards.
 *
 * <p>Two of them run: on the shared Redis, which has no persistence (its {@code offer} answers before anything is
 * on disk: the ceiling, not the bar), and on a private {@code redis-server --appendonly yes --appendfsync always}
 * that {@link #onAlwaysFsyncRedis} starts for the run (every write forced to disk before Redis answers, as this
 * service answers a push only once its journal row is on disk: a durable peer).
 *
 * <p>Consumers are threads that take from the destination queue: {@code poll(limit)} while it has jobs, else a
 * blocking {@code poll(timeout)} (BLPOP), so that they are both quick to wake and able to keep up with a burst.
 */
@SuppressWarnings("deprecation") // RDelayedQueue: Redisson suggests its RReliableQueue (Redisson PRO) instead
final class RedissonTarget implements BenchTarget {
    static final int CONSUMERS = 8;

    private final BenchOptions options;
    private final BenchRedis benchRedis;
    private final RedissonClient redisson;
    /** The private Redis server this target started and stops; null on the shared Redis. */
    private final RedisServerProcess server;
    /** Stops that server should the benchmark be ended before {@link #close()} (Ctrl-C); null without one. */
    private final Thread stopServerAtExit;

    /** Redisson on the shared Redis (no persistence). */
    RedissonTarget(BenchOptions options, BenchRedis benchRedis) {
        this(options, benchRedis, null);
    }

    private RedissonTarget(BenchOptions options, BenchRedis benchRedis, RedisServerProcess server) {
        this.options = options;
        this.benchRedis = benchRedis;
        this.server = server;
        this.stopServerAtExit = server == null ? null : new Thread(server::close, "bench-redis-fsync-stop");
        if (stopServerAtExit != null) {
            Runtime.getRuntime().addShutdownHook(stopServerAtExit);
        }
        Config config = new Config();
        config.setCodec(StringCodec.INSTANCE);
        config.useSingleServer().setAddress(benchRedis.uri()).setClientName("bench-redisson");
        this.redisson = Redisson.create(config);
    }

    /**
     * Redisson on a private {@code redis-server --appendonly yes --appendfsync always} (the same binary as the
     * shared Redis), on a free port with a temporary directory on the machine's disk; {@link #close()} stops it and
     * deletes the directory.
     */
    static RedissonTarget onAlwaysFsyncRedis(BenchOptions options) {
        RedisServerProcess server = RedisServerProcess.start(
                "bench-fsync", null, List.of("--appendonly", "yes", "--appendfsync", "always"));
        BenchRedis benchRedis = null;
        try {
            benchRedis = new BenchRedis(server.port());
            String fsync = benchRedis.config("appendfsync");
            if (!"always".equals(fsync) || !"1".equals(benchRedis.info("persistence", "aof_enabled"))) {
                throw new IllegalStateException("the private Redis runs with appendfsync " + fsync + ", not always");
            }
            return new RedissonTarget(options, benchRedis, server);
        } catch (RuntimeException e) {
            if (benchRedis != null) {
                benchRedis.close();
            }
            server.close();
            throw e;
        }
    }

    /** A value of the body's size that carries its due time. */
    private String value(long dueAtMs) {
        StringBuilder sb = new StringBuilder(options.bodyBytes());
        sb.append(dueAtMs).append(':');
        while (sb.length() < options.bodyBytes()) {
            sb.append('x');
        }
        return sb.toString();
    }

    private static long dueOf(String value) {
        return Long.parseLong(value.substring(0, value.indexOf(':')));
    }

    @Override
    public RunResult pushSingle(int callers, Duration preRoll, Duration measure) throws Exception {
        long delay = Duration.ofHours(1).toMillis();
        try (Queue q = new Queue()) {
            return LoadDriver.throughput(callers, preRoll, measure, caller -> () -> {
                        q.delayed.offer(value(System.currentTimeMillis() + delay), delay, TimeUnit.MILLISECONDS);
                        return 1;
                    })
                    .with("call", "offer(value, delay, MILLISECONDS), one blocking call per job");
        }
    }

    @Override
    public RunResult pushBatch(Duration preRoll, Duration measure) throws Exception {
        long delay = Duration.ofHours(1).toMillis();
        int size = options.batchSize();
        try (Queue q = new Queue()) {
            return LoadDriver.throughput(options.batchThreads(), preRoll, measure, caller -> () -> {
                        List<RFuture<Void>> offers = new ArrayList<>(size);
                        for (int i = 0; i < size; i++) {
                            offers.add(q.delayed.offerAsync(
                                    value(System.currentTimeMillis() + delay), delay, TimeUnit.MILLISECONDS));
                        }
                        for (RFuture<Void> f : offers) {
                            f.get();
                        }
                        return size;
                    })
                    .with("call", size + " offerAsync calls, then waiting for all of them");
        }
    }

    @Override
    public RunResult burst(int jobs, long leadMs) throws Exception {
        HandOvers handOvers = HandOvers.counting();
        try (Queue q = new Queue()) {
            handOvers.expect(jobs);
            q.startConsumers(handOvers);
            long dueAt = System.currentTimeMillis() + leadMs;
            long loadStart = System.nanoTime();
            String v = value(dueAt);
            offerAll(q, jobs, () -> v, () -> dueAt - System.currentTimeMillis());
            double loadSeconds = (System.nanoTime() - loadStart) / 1e9;
            return Figures.awaitBurst(handOvers, jobs, dueAt, loadSeconds, leadMs, "were taken")
                    .with("consumerErrors", q.consumerErrors());
        }
    }

    @Override
    public String notMeasured(Kind kind) {
        return switch (kind) {
            case PULL_BURST -> "its consumers: the hand-over row above";
            case MEMORY -> server != null ? "the same keys as Redisson's without persistence" : null;
            case CANARY -> "one queue, no topics";
            case RETRY_STORM -> "no client ids";
            case PURGE -> "no journal";
            case TIER_PUSH, TIER_LATENESS, TIER_MEMORY -> NO_TIERS;
            case SCALE_OUT, FULL_BURST, FULL_PENDING -> PACKAGED_ONLY;
            default -> null;
        };
    }

    /** Redisson has no dispatcher: its hand-over is its consumers taking the jobs, as in {@link #burst}. */
    @Override
    public RunResult callbackBurst(int jobs) throws Exception {
        RunResult run = burst(jobs, 5_000);
        return run.and("lastLateMs", ((Number) run.details().get("secondsFromDueToLast")).doubleValue() * 1e3);
    }

    /** Redisson's steady lateness, taken by its consumers, at the same rate. */
    @Override
    public RunResult callbackLateness(int rate, Duration duration) throws Exception {
        return lateness(rate, duration);
    }

    @Override
    public RunResult lateness(int rate, Duration duration) throws Exception {
        HandOvers handOvers = HandOvers.recordingLateness();
        try (Queue q = new Queue()) {
            q.startConsumers(handOvers);
            Map<String, Number> load = LoadDriver.paced(rate, duration, 32, seq -> {
                long delay = 1_000 + ThreadLocalRandom.current().nextInt(1_000);
                long dueAt = System.currentTimeMillis() + delay;
                q.delayed.offer(value(dueAt), dueAt - System.currentTimeMillis(), TimeUnit.MILLISECONDS);
            });
            long pushed = load.get("pushed").longValue();
            if (handOvers.await(pushed, Duration.ofSeconds(32)) < 0) {
                throw new IllegalStateException((pushed - handOvers.count()) + " of " + pushed
                        + " jobs were not taken within 30 s of their due time");
            }
            return Figures.lateness(handOvers.lateness(), handOvers.early(), load)
                    .with("consumerErrors", q.consumerErrors());
        }
    }

    @Override
    public RunResult memory(int jobs) throws Exception {
        long before = benchRedis.usedMemory();
        try (Queue q = new Queue()) {
            long farAway = Duration.ofDays(30).toMillis();
            long loadStart = System.nanoTime();
            offerAll(
                    q,
                    jobs,
                    () -> value(System.currentTimeMillis() + farAway),
                    () -> farAway
                            + ThreadLocalRandom.current()
                                    .nextLong(Duration.ofDays(300).toMillis()));
            double loadSeconds = (System.nanoTime() - loadStart) / 1e9;
            long after = benchRedis.usedMemory();
            long ofKeys = benchRedis.memoryOfKeys(q.keysGlob());
            return RunResult.of("bytesPerJob", (double) (after - before) / jobs)
                    .with("usedMemoryBefore", before)
                    .with("usedMemoryAfter", after)
                    .with("memoryUsageOfKeysPerJob", (double) ofKeys / jobs)
                    .with("keys", benchRedis.keys(q.keysGlob()).size())
                    .with("jobs", jobs)
                    .with("loadSeconds", loadSeconds);
        }
    }

    /** Offers {@code jobs} values with {@code offerAsync}, a batch at a time from a few threads. */
    private void offerAll(Queue q, int jobs, Supplier<String> values, LongSupplier delays) throws Exception {
        AtomicInteger left = new AtomicInteger(jobs);
        Parallel.run(options.batchThreads(), "bench-redisson-load", () -> {
            List<RFuture<Void>> offers = new ArrayList<>(options.batchSize());
            while (true) {
                int taken = 0;
                while (taken < options.batchSize() && left.getAndDecrement() > 0) {
                    taken++;
                }
                if (taken == 0) {
                    return;
                }
                offers.clear();
                for (int i = 0; i < taken; i++) {
                    offers.add(q.delayed.offerAsync(values.get(), delays.getAsLong(), TimeUnit.MILLISECONDS));
                }
                for (RFuture<Void> f : offers) {
                    f.get();
                }
            }
        });
    }

    @Override
    public void close() {
        redisson.shutdown();
        if (server != null) {
            benchRedis.close();
            server.close();
            Runtime.getRuntime().removeShutdownHook(stopServerAtExit);
        }
    }

    /** One run's queues and consumers; closing stops both and deletes every key of the run. */
    private final class Queue implements AutoCloseable {
        private final String name = BenchRedis.uniqueName("redisson");
        private final RBlockingQueue<String> destination = redisson.getBlockingQueue(name);
        private final RDelayedQueue<String> delayed = redisson.getDelayedQueue(destination);
        private final List<Thread> consumers = new ArrayList<>();
        private final AtomicLong consumerErrors = new AtomicLong();
        private volatile boolean stopping;

        /** Redisson names its keys {@code name}, {@code redisson_delay_queue:{name}}, and so on. */
        String keysGlob() {
            return "*" + name + "*";
        }

        /**
         * Starts the consumers. A failed take is counted and retried: the shared Redis may see a {@code SCRIPT
         * FLUSH} from other work (the project's own tests do it), and Redisson's {@code poll(limit)} then fails
         * once with NOSCRIPT instead of sending the script again; nothing was taken.
         */
        void startConsumers(HandOvers handOvers) {
            int limit = options.batchSize();
            for (int i = 0; i < CONSUMERS; i++) {
                Thread t = new Thread(
                        () -> {
                            while (!stopping) {
                                try {
                                    List<String> taken = destination.poll(limit);
                                    if (taken.isEmpty()) {
                                        String one = destination.poll(100, TimeUnit.MILLISECONDS);
                                        if (one != null) {
                                            handOvers.record(dueOf(one));
                                        }
                                    } else {
                                        for (String v : taken) {
                                            handOvers.record(dueOf(v));
                                        }
                                    }
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                    return;
                                } catch (RuntimeException e) {
                                    if (!stopping && consumerErrors.getAndIncrement() == 0) {
                                        System.err.println("[bench] a Redisson consumer's take failed (retried): " + e);
                                    }
                                }
                            }
                        },
                        "bench-redisson-consumer-" + i);
                t.setDaemon(true);
                consumers.add(t);
                t.start();
            }
        }

        long consumerErrors() {
            return consumerErrors.get();
        }

        @Override
        public void close() throws InterruptedException {
            stopping = true;
            for (Thread t : consumers) {
                t.join(5_000);
            }
            delayed.destroy(); // stops this client's transfer task of the queue
            // UNLINK, not Redisson's delete() (DEL): freeing a million values would block the shared Redis
            benchRedis.unlink(keysGlob());
        }
    }
}
