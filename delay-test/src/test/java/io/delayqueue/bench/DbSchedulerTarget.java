package io.delayqueue.bench;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.serializer.Serializer;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * db-scheduler (a persistent scheduler on a relational database) as a delayed queue, on a database of the
 * benchmark's own on the MariaDB at 127.0.0.1:3306: a push is scheduling one instance of a one-time task, due at
 * the job's due time; the hand-over is its execution, which records the job's lateness. Like this service's push,
 * the schedule returns once its row is committed (InnoDB, {@code innodb_flush_log_at_trx_commit=1} on this
 * machine: on disk).
 *
 * <p>One scheduler runs for the target's life with {@value #THREADS} executor threads and a polling interval of
 * {@link #POLLING_INTERVAL} (db-scheduler's default is 10 s, far too coarse for a delay queue); its polling is the
 * default fetch-and-lock-on-execute (db-scheduler offers lock-and-fetch only where the database's {@code SELECT ...
 * FOR UPDATE SKIP LOCKED} is generic, which its MariaDB dialect says it is not). Every other setting is its
 * default. The task data is the value Redisson's target offers ({@code <due epoch ms>:xxx...}, the body's size),
 * stored as its UTF-8 bytes. The table is emptied after every run.
 */
final class DbSchedulerTarget implements BenchTarget {
    static final int THREADS = 16;
    static final Duration POLLING_INTERVAL = Duration.ofMillis(100);
    /** Connections to MariaDB: Redisson's default pool size on one Redis server. */
    static final int POOL_SIZE = 64;

    private static final String TABLE = "scheduled_tasks";
    private static final String TASK = "bench-delay";

    /**
     * db-scheduler's table as its MySQL/MariaDB schema defines it (the library ships no migration: the user
     * creates the table).
     */
    private static final String SCHEMA = "CREATE TABLE " + TABLE + " ("
            + " task_name VARCHAR(100) NOT NULL,"
            + " task_instance VARCHAR(100) NOT NULL,"
            + " task_data BLOB,"
            + " execution_time TIMESTAMP(6) NOT NULL,"
            + " picked BOOLEAN NOT NULL,"
            + " picked_by VARCHAR(50),"
            + " last_success TIMESTAMP(6) NULL,"
            + " last_failure TIMESTAMP(6) NULL,"
            + " consecutive_failures INT,"
            + " last_heartbeat TIMESTAMP(6) NULL,"
            + " version BIGINT NOT NULL,"
            + " priority SMALLINT,"
            + " PRIMARY KEY (task_name, task_instance),"
            + " INDEX execution_time_idx (execution_time),"
            + " INDEX last_heartbeat_idx (last_heartbeat),"
            + " INDEX priority_execution_time_idx (priority DESC, execution_time ASC))";

    private final BenchOptions options;
    private final BenchDatabase database;
    private final HikariDataSource dataSource;
    private final OneTimeTask<String> task;
    private final Scheduler scheduler;
    private final AtomicLong ids = new AtomicLong();
    private final AtomicLong executionErrors = new AtomicLong();
    /** Where executions are counted: the current run's; null between runs. */
    private volatile HandOvers handOvers;

    DbSchedulerTarget(BenchOptions options) throws SQLException {
        this.options = options;
        this.database = BenchDatabase.create();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(database.jdbcUrl());
        config.setUsername(BenchDatabase.USER);
        config.setPassword(BenchDatabase.PASSWORD);
        config.setMaximumPoolSize(POOL_SIZE);
        config.setPoolName("bench-db-scheduler");
        try {
            this.dataSource = new HikariDataSource(config);
        } catch (RuntimeException e) {
            database.close();
            throw e;
        }
        try {
            execute(SCHEMA);
            this.task = Tasks.oneTime(TASK, String.class).execute((instance, context) -> {
                HandOvers current = handOvers;
                if (current != null) {
                    current.record(dueOf(instance.getData()));
                }
            });
            this.scheduler = Scheduler.create(dataSource, task)
                    .threads(THREADS)
                    .pollingInterval(POLLING_INTERVAL)
                    .serializer(new Utf8Serializer())
                    .build();
            scheduler.start();
        } catch (RuntimeException | SQLException e) {
            dataSource.close();
            database.close();
            throw e;
        }
    }

    /** A value of the body's size that carries its due time, as Redisson's target offers it. */
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

    private TaskInstance<String> instance(long dueAtMs) {
        return task.instance("j" + ids.incrementAndGet(), value(dueAtMs));
    }

    @Override
    public RunResult pushSingle(int callers, Duration preRoll, Duration measure) throws Exception {
        long delay = Duration.ofHours(1).toMillis();
        try {
            return LoadDriver.throughput(callers, preRoll, measure, caller -> () -> {
                        long dueAt = System.currentTimeMillis() + delay;
                        scheduler.schedule(instance(dueAt), Instant.ofEpochMilli(dueAt));
                        return 1;
                    })
                    .with("call", "schedule(instance, executionTime), one committed INSERT per job");
        } finally {
            empty();
        }
    }

    @Override
    public RunResult pushBatch(Duration preRoll, Duration measure) throws Exception {
        long delay = Duration.ofHours(1).toMillis();
        int size = options.batchSize();
        try {
            return LoadDriver.throughput(options.batchThreads(), preRoll, measure, caller -> () -> {
                        long dueAt = System.currentTimeMillis() + delay;
                        List<TaskInstance<?>> batch = new ArrayList<>(size);
                        for (int i = 0; i < size; i++) {
                            batch.add(instance(dueAt));
                        }
                        scheduler.scheduleBatch(batch, Instant.ofEpochMilli(dueAt));
                        return size;
                    })
                    .with("call", "scheduleBatch of " + size + " instances due at one instant");
        } finally {
            empty();
        }
    }

    @Override
    public RunResult burst(int jobs, long leadMs) throws Exception {
        HandOvers run = HandOvers.counting();
        run.expect(jobs);
        handOvers = run;
        try {
            long dueAt = System.currentTimeMillis() + leadMs;
            long loadStart = System.nanoTime();
            scheduleAll(jobs, () -> dueAt);
            double loadSeconds = (System.nanoTime() - loadStart) / 1e9;
            return Figures.awaitBurst(run, jobs, dueAt, loadSeconds, leadMs, "were executed")
                    .with("executionErrors", executionErrors.get());
        } finally {
            handOvers = null;
            empty();
        }
    }

    /** db-scheduler has no dispatcher: its hand-over is its executors running the instances, as in {@link #burst}. */
    @Override
    public RunResult callbackBurst(int jobs) throws Exception {
        RunResult run = burst(jobs, 5_000);
        return run.and("lastLateMs", ((Number) run.details().get("secondsFromDueToLast")).doubleValue() * 1e3);
    }

    /** db-scheduler's steady lateness, executed by its scheduler, at the same rate. */
    @Override
    public RunResult callbackLateness(int rate, Duration duration) throws Exception {
        return lateness(rate, duration);
    }

    @Override
    public RunResult lateness(int rate, Duration duration) throws Exception {
        HandOvers run = HandOvers.recordingLateness();
        handOvers = run;
        try {
            Map<String, Number> load = LoadDriver.paced(rate, duration, 32, seq -> {
                long dueAt = System.currentTimeMillis()
                        + 1_000
                        + ThreadLocalRandom.current().nextInt(1_000);
                scheduler.schedule(instance(dueAt), Instant.ofEpochMilli(dueAt));
            });
            long pushed = load.get("pushed").longValue();
            if (run.await(pushed, Duration.ofSeconds(32)) < 0) {
                throw new IllegalStateException((pushed - run.count()) + " of " + pushed
                        + " jobs were not executed within 30 s of their due time");
            }
            return Figures.lateness(run.lateness(), run.early(), load);
        } finally {
            handOvers = null;
            empty();
        }
    }

    @Override
    public RunResult memory(int jobs) {
        throw new UnsupportedOperationException("no Redis");
    }

    @Override
    public String notMeasured(Kind kind) {
        return switch (kind) {
            case PULL_BURST -> "its executors: the hand-over row above";
            case CANARY -> "one task, no topics";
            case RETRY_STORM -> "no client ids";
            case MEMORY -> "no Redis";
            case PURGE -> "an executed instance is deleted at once";
            case TIER_PUSH, TIER_LATENESS, TIER_MEMORY -> "keeps every pending job in its table";
            case SCALE_OUT, FULL_BURST, FULL_PENDING -> PACKAGED_ONLY;
            default -> null;
        };
    }

    /** Schedules {@code jobs} instances with {@code scheduleBatch}, a batch at a time from a few threads. */
    private void scheduleAll(int jobs, LongSupplier dueAt) throws Exception {
        AtomicInteger left = new AtomicInteger(jobs);
        Parallel.run(options.batchThreads(), "bench-db-scheduler-load", () -> {
            List<TaskInstance<?>> batch = new ArrayList<>(options.batchSize());
            while (true) {
                int taken = 0;
                while (taken < options.batchSize() && left.getAndDecrement() > 0) {
                    taken++;
                }
                if (taken == 0) {
                    return;
                }
                long due = dueAt.getAsLong();
                batch.clear();
                for (int i = 0; i < taken; i++) {
                    batch.add(instance(due));
                }
                scheduler.scheduleBatch(batch, Instant.ofEpochMilli(due));
            }
        });
    }

    /** Deletes every instance a run left (pushes due in an hour, or a failed run's), so the next starts empty. */
    private void empty() throws SQLException {
        execute("DELETE FROM " + TABLE);
    }

    private void execute(String sql) throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    @Override
    public void close() throws SQLException {
        try {
            scheduler.stop();
        } finally {
            dataSource.close();
            database.close();
        }
    }

    /** Task data as its UTF-8 bytes, as Redisson's StringCodec stores a value. */
    private static final class Utf8Serializer implements Serializer {
        @Override
        public byte[] serialize(Object data) {
            return data == null ? null : ((String) data).getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public <T> T deserialize(Class<T> type, byte[] bytes) {
            return bytes == null ? null : type.cast(new String(bytes, StandardCharsets.UTF_8));
        }
    }
}
