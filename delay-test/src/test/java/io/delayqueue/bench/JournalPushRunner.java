package io.delayqueue.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.delayqueue.common.JobIds;
import io.delayqueue.common.JobStatus;
import io.delayqueue.common.PushRequest;
import io.delayqueue.queue.coordination.StandaloneCoordinator;
import io.delayqueue.queue.dispatch.console.ConsoleDispatcher;
import io.delayqueue.queue.engine.DelayQueueEngine;
import io.delayqueue.queue.engine.EngineConfig;
import io.delayqueue.queue.journal.JobEvent;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.journal.JournalSettings;
import io.delayqueue.queue.journal.Transition;
import io.delayqueue.queue.journal.mybatis.MyBatisJournal;
import io.delayqueue.queue.store.redis.RedisJobStore;
import io.delayqueue.queue.testing.JournalDatabase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisPooled;

/**
 * Push throughput in-process with the journal {@code off}, {@code async} and {@code sync}, against the Redis on
 * 127.0.0.1:6379 and a journal database of the run's own: the MariaDB on 127.0.0.1:3306 (a database created and
 * dropped), or an embedded candidate in a temporary folder (deleted after): H2 on disk as the former embedded
 * default ran it ({@code CHECKPOINT SYNC} per group), or SQLite in WAL mode with {@code synchronous=FULL}. Prints
 * one line per engine, thread count and mode. Not a test: run it with {@code bin/bench-journal}.
 *
 * <p>Arguments: jobs per mode (default 200000), pushing threads (default 256; a comma-separated list runs each).
 * System properties: {@code -Dengines=mariadb,h2,sqlite} (default {@code mariadb}); {@code -Dmodes=sync};
 * {@code -Dprefill=1000000}: rows written into the journal before the run (DELAY jobs due over the next two hours
 * in random order, one log row each), so that a run measures a store of that size; {@code -Dtransitions=2000}:
 * lagged transitions per second (hand-overs: READY then FINISHED of prefilled jobs) flowing during the run, as
 * the dispatcher's; {@code -Dwriters=2}: create writers; {@code -DsqliteOptions=?journal_mode=WAL&...} and
 * {@code -DsqliteInit='PRAGMA ...'}: SQLite's URL options and a statement run on each new connection.
 */
public final class JournalPushRunner {
    private static final int WRITERS = Integer.getInteger("writers", 2);
    private static final int PREFILL = Integer.getInteger("prefill", 0);
    private static final int TRANSITIONS_PER_SECOND = Integer.getInteger("transitions", 0);
    private static final String MARIADB = System.getProperty("jdbcPrefix", "jdbc:mariadb://127.0.0.1:3306/");
    private static final List<String> ENGINES = Arrays.stream(
                    System.getProperty("engines", "mariadb").split(","))
            .map(String::trim)
            .toList();
    /** {@code -Dmodes=sync} (comma-separated) to run fewer modes. */
    private static final List<JournalMode> MODES = Arrays.stream(
                    System.getProperty("modes", "off,async,sync").split(","))
            .map(m -> JournalMode.valueOf(m.trim().toUpperCase(Locale.ROOT)))
            .toList();

    public static void main(String[] args) throws Exception {
        int jobs = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        List<Integer> threadCounts = Arrays.stream((args.length > 1 ? args[1] : "256").split(","))
                .map(t -> Integer.parseInt(t.trim()))
                .toList();
        System.out.printf(
                Locale.ROOT,
                "in-process push, %d jobs per mode, threads %s, %d cores, prefill %d rows, %d transitions/s%n",
                jobs,
                threadCounts,
                Runtime.getRuntime().availableProcessors(),
                PREFILL,
                TRANSITIONS_PER_SECOND);
        for (String engine : ENGINES) {
            for (int threads : threadCounts) {
                double off = 0;
                for (JournalMode mode : MODES) {
                    double rate = run(engine, mode, jobs, threads);
                    if (mode == JournalMode.OFF || off == 0) {
                        off = rate;
                    }
                    System.out.printf(
                            Locale.ROOT,
                            "%-7s %4d threads journal %-5s %9.0f jobs/s  (%.0f%% of off)%n",
                            engine,
                            threads,
                            mode.name().toLowerCase(Locale.ROOT),
                            rate,
                            100 * rate / off);
                }
            }
        }
    }

    private static double run(String engineName, JournalMode mode, int jobs, int threads) throws Exception {
        String prefix = "bench-" + UUID.randomUUID();
        GenericObjectPoolConfig<redis.clients.jedis.Connection> pool = new GenericObjectPoolConfig<>();
        pool.setMaxTotal(threads + 8);
        pool.setMaxIdle(threads + 8);
        JournalStore db = null;
        Journal journal = Journal.NONE;
        Thread transitions = null;
        AtomicBoolean measuring = new AtomicBoolean(true);
        try (JedisPooled redis = new JedisPooled(
                new HostAndPort("127.0.0.1", 6379),
                DefaultJedisClientConfig.builder().build(),
                pool)) {
            List<String> prefilled = List.of();
            if (mode != JournalMode.OFF) {
                db = JournalStore.create(engineName);
                JournalDatabase.migrate(db.dataSource);
                prefilled = prefill(db.dataSource, PREFILL);
                journal = JournalDatabase.journal(
                        db.dataSource,
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
                if (TRANSITIONS_PER_SECOND > 0 && !prefilled.isEmpty()) {
                    transitions = handOvers(journal, prefilled, measuring);
                }
                long commitsBefore = journal instanceof MyBatisJournal j ? j.commits() : 0;
                long nanosBefore = journal instanceof MyBatisJournal j ? j.commitNanos() : 0;
                long rowsBefore = journal instanceof MyBatisJournal j ? j.rowsWritten() : 0;
                long start = System.nanoTime();
                CpuTimes cpuBefore = CpuTimes.now();
                push(engine, jobs, threads);
                double seconds = (System.nanoTime() - start) / 1e9;
                System.out.println("  " + engineName + " " + mode + ": "
                        + CpuTimes.now().minus(cpuBefore).perJob(jobs));
                if (journal instanceof MyBatisJournal j) {
                    long commits = Math.max(1, j.commits() - commitsBefore);
                    System.out.printf(
                            Locale.ROOT,
                            "  %s %s: %d commits, %.1f rows per commit, %.2f ms per commit (write + commit + sync)%n",
                            engineName,
                            mode,
                            commits,
                            (double) (j.rowsWritten() - rowsBefore) / commits,
                            (j.commitNanos() - nanosBefore) / 1e6 / commits);
                }
                return jobs / seconds;
            } finally {
                measuring.set(false);
                if (transitions != null) {
                    transitions.join();
                }
                journal.close();
                for (String key : redis.keys("{" + prefix + ":*")) {
                    redis.unlink(key);
                }
            }
        } finally {
            if (db != null) {
                db.close();
            }
        }
    }

    /**
     * Writes {@code rows} DELAY jobs (ids that sort before generated ones, due over the next two hours in random
     * order) and a CREATED log row each, in transactions of 10,000 rows; returns their ids.
     */
    private static List<String> prefill(DataSource dataSource, int rows) throws Exception {
        if (rows <= 0) {
            return List.of();
        }
        long started = System.nanoTime();
        List<String> ids = new ArrayList<>(rows);
        Random random = new Random(42);
        long now = System.currentTimeMillis();
        String body = "x".repeat(100);
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement job = c.prepareStatement("INSERT INTO delay_queue_job (id, topic, subtopic, biz_key,"
                            + " body, ttr, max_attempts, url, priority, status, attempts, due_at, create_time,"
                            + " update_time, version, shard) VALUES (?, 'bench', NULL, NULL, ?, 30000, 3, NULL, 0,"
                            + " 'DELAY', 0, ?, ?, ?, 0, ?)");
                    PreparedStatement log = c.prepareStatement("INSERT INTO delay_queue_job_log (job_id, event,"
                            + " from_status, to_status, event_time, host, worker, detail) VALUES"
                            + " (?, 'CREATED', NULL, 'DELAY', ?, 'bench', 'prefill', NULL)")) {
                for (int i = 0; i < rows; i++) {
                    String id = String.format(Locale.ROOT, "00%012d", i);
                    ids.add(id);
                    job.setString(1, id);
                    job.setString(2, body);
                    job.setLong(3, now + random.nextInt(7_200_000));
                    job.setLong(4, now - 1000);
                    job.setLong(5, now - 1000);
                    job.setInt(6, JobIds.shardOf(id, EngineConfig.DEFAULT_SHARDS));
                    job.addBatch();
                    log.setString(1, id);
                    log.setLong(2, now - 1000);
                    log.addBatch();
                    if (i % 10_000 == 9_999 || i == rows - 1) {
                        job.executeBatch();
                        log.executeBatch();
                        c.commit();
                    }
                }
            }
            c.setAutoCommit(true);
        }
        System.out.printf(Locale.ROOT, "  prefilled %d rows in %.1f s%n", rows, (System.nanoTime() - started) / 1e9);
        return ids;
    }

    /** Lagged hand-overs of prefilled jobs (READY, then FINISHED), at the configured rate, until the run ends. */
    private static Thread handOvers(Journal journal, List<String> ids, AtomicBoolean measuring) {
        Thread thread = new Thread(
                () -> {
                    int next = 0;
                    long periodNanos = 10_000_000; // 100 rounds a second
                    int perRound = Math.max(1, TRANSITIONS_PER_SECOND / 200); // two transitions per job
                    long tick = System.nanoTime();
                    while (measuring.get() && next < ids.size()) {
                        long now = System.currentTimeMillis();
                        List<Transition> round = new ArrayList<>();
                        for (int i = 0; i < perRound && next < ids.size(); i++, next++) {
                            round.add(Transition.of(
                                    ids.get(next), JobEvent.READY, JobStatus.DELAY, JobStatus.READY, now, null));
                            round.add(Transition.of(
                                    ids.get(next), JobEvent.FINISHED, JobStatus.READY, JobStatus.FINISHED, now, null));
                        }
                        journal.recordTransitions(round);
                        tick += periodNanos;
                        LockSupport.parkNanos(tick - System.nanoTime());
                    }
                },
                "bench-hand-overs");
        thread.setDaemon(true);
        thread.start();
        return thread;
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

    /** The journal database of one run, and how to get rid of it. */
    private static final class JournalStore implements AutoCloseable {
        final HikariDataSource dataSource;
        final Runnable drop;

        private JournalStore(HikariDataSource dataSource, Runnable drop) {
            this.dataSource = dataSource;
            this.drop = drop;
        }

        static JournalStore create(String engine) throws Exception {
            HikariConfig config = new HikariConfig();
            config.setMaximumPoolSize(8);
            switch (engine) {
                case "mariadb" -> {
                    String db = "dq_bench_"
                            + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
                    execute("CREATE DATABASE " + db);
                    config.setJdbcUrl(
                            MARIADB + db + "?rewriteBatchedStatements=true" + System.getProperty("jdbcExtra", ""));
                    config.setUsername("root");
                    config.setPassword("");
                    config.setMaximumPoolSize(4);
                    return new JournalStore(new HikariDataSource(config), () -> {
                        try {
                            execute("DROP DATABASE " + db);
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    });
                }
                case "h2" -> {
                    Path folder = Files.createTempDirectory("bench-h2");
                    config.setJdbcUrl("jdbc:h2:file:" + folder.resolve("delay-queue")
                            + ";MODE=MySQL;DATABASE_TO_LOWER=TRUE;CASE_INSENSITIVE_IDENTIFIERS=TRUE");
                    config.setUsername("sa");
                    config.setPassword("");
                    return new JournalStore(new HikariDataSource(config), () -> deleteFolder(folder));
                }
                case "sqlite" -> {
                    Path folder = Files.createTempDirectory("bench-sqlite");
                    config.setJdbcUrl("jdbc:sqlite:" + folder.resolve("delay-queue.db")
                            + System.getProperty("sqliteOptions", JournalDatabase.SQLITE_OPTIONS));
                    if (System.getProperty("sqliteInit") != null) {
                        config.setConnectionInitSql(System.getProperty("sqliteInit"));
                    }
                    return new JournalStore(new HikariDataSource(config), () -> deleteFolder(folder));
                }
                default -> throw new IllegalArgumentException("engines are mariadb, h2 and sqlite: " + engine);
            }
        }

        @Override
        public void close() {
            dataSource.close();
            drop.run();
        }

        private static void deleteFolder(Path folder) {
            try (Stream<Path> files = Files.walk(folder)) {
                for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(file);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private static void execute(String sql) throws Exception {
        try (Connection c = DriverManager.getConnection(MARIADB, "root", "");
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
