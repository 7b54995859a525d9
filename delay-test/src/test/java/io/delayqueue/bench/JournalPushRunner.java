package io.delayqueue.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.delayqueue.common.PushRequest;
import io.delayqueue.queue.coordination.StandaloneCoordinator;
import io.delayqueue.queue.dispatch.console.ConsoleDispatcher;
import io.delayqueue.queue.engine.DelayQueueEngine;
import io.delayqueue.queue.engine.EngineConfig;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.journal.JournalSettings;
import io.delayqueue.queue.journal.mybatis.MyBatisJournal;
import io.delayqueue.queue.store.redis.RedisJobStore;
import io.delayqueue.queue.testing.JournalDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisPooled;

/**
 * Push throughput in-process with the journal {@code off}, {@code async} and {@code sync}, against the
 * Redis on 127.0.0.1:6379 and the MariaDB on 127.0.0.1:3306 (a database of its own, dropped after).
 * Prints one line per mode. Not a test: run it with {@code bin/bench-journal}.
 *
 * <p>Arguments: jobs per mode (default 200000), pushing threads (default 256).
 */
public final class JournalPushRunner {
    private static final int WRITERS = Integer.getInteger("writers", 2);
    private static final String MARIADB = System.getProperty("jdbcPrefix", "jdbc:mariadb://127.0.0.1:3306/");
    /** {@code -Dmodes=sync} (comma-separated) to run fewer modes. */
    private static final List<JournalMode> MODES = Arrays.stream(
                    System.getProperty("modes", "off,async,sync").split(","))
            .map(m -> JournalMode.valueOf(m.trim().toUpperCase(Locale.ROOT)))
            .toList();

    public static void main(String[] args) throws Exception {
        int jobs = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 256;
        System.out.printf(
                Locale.ROOT,
                "in-process push, %d jobs per mode, %d threads, %d cores%n",
                jobs,
                threads,
                Runtime.getRuntime().availableProcessors());
        double off = 0;
        for (JournalMode mode : MODES) {
            double rate = run(mode, jobs, threads);
            if (mode == JournalMode.OFF || off == 0) {
                off = rate;
            }
            System.out.printf(
                    Locale.ROOT,
                    "journal %-5s %9.0f jobs/s  (%.0f%% of off)%n",
                    mode.name().toLowerCase(Locale.ROOT),
                    rate,
                    100 * rate / off);
        }
    }

    private static double run(JournalMode mode, int jobs, int threads) throws Exception {
        String prefix = "bench-" + UUID.randomUUID();
        String db = "dq_bench_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        GenericObjectPoolConfig<redis.clients.jedis.Connection> pool = new GenericObjectPoolConfig<>();
        pool.setMaxTotal(threads + 8);
        pool.setMaxIdle(threads + 8);
        HikariDataSource dataSource = null;
        Journal journal = Journal.NONE;
        try (JedisPooled redis = new JedisPooled(
                new HostAndPort("127.0.0.1", 6379),
                DefaultJedisClientConfig.builder().build(),
                pool)) {
            if (mode != JournalMode.OFF) {
                execute("CREATE DATABASE " + db);
                dataSource = dataSource(db);
                JournalDatabase.migrate(dataSource);
                journal = JournalDatabase.journal(
                        dataSource,
                        JournalSettings.DEFAULTS.withWriter(
                                mode, Duration.ofMillis(200), 10_000, Duration.ofSeconds(30), 2_000_000, WRITERS),
                        EngineConfig.DEFAULT_SHARDS,
                        Clock.systemUTC());
            }
            EngineConfig config = EngineConfig.DEFAULTS.withRedisPrefix(prefix);
            RedisJobStore store = new RedisJobStore(redis, prefix, config.shards(), config.retention(), false);
            try (DelayQueueEngine engine = new DelayQueueEngine(
                    config,
                    store,
                    List.of(new ConsoleDispatcher(System.out)),
                    new StandaloneCoordinator(),
                    journal,
                    Clock.systemUTC())) {
                push(engine, Math.min(20_000, jobs / 5), threads); // warm-up
                long start = System.nanoTime();
                CpuTimes cpuBefore = CpuTimes.now();
                push(engine, jobs, threads);
                double seconds = (System.nanoTime() - start) / 1e9;
                System.out.println(
                        "  " + mode + ": " + CpuTimes.now().minus(cpuBefore).perJob(jobs));
                if (journal instanceof MyBatisJournal j) {
                    System.out.printf(
                            Locale.ROOT,
                            "  %s: %d commits, %.1f rows per commit%n",
                            mode,
                            j.commits(),
                            (double) j.rowsWritten() / Math.max(1, j.commits()));
                }
                return jobs / seconds;
            } finally {
                journal.close();
                for (String key : redis.keys("{" + prefix + ":*")) {
                    redis.unlink(key);
                }
            }
        } finally {
            if (dataSource != null) {
                dataSource.close();
                execute("DROP DATABASE " + db);
            }
        }
    }

    private static void push(DelayQueueEngine engine, int jobs, int threads) throws InterruptedException {
        AtomicInteger next = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(threads);
        String body = "x".repeat(100);
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(() -> {
                try {
                    while (next.getAndIncrement() < jobs) {
                        engine.push(PushRequest.of("bench", body, 3_600_000));
                    }
                } finally {
                    done.countDown();
                }
            });
            thread.start();
        }
        done.await();
    }

    private static HikariDataSource dataSource(String db) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(MARIADB + db + "?rewriteBatchedStatements=true" + System.getProperty("jdbcExtra", ""));
        config.setUsername("root");
        config.setPassword("");
        config.setMaximumPoolSize(4);
        return new HikariDataSource(config);
    }

    private static void execute(String sql) throws Exception {
        try (Connection c = DriverManager.getConnection(MARIADB, "root", "");
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
