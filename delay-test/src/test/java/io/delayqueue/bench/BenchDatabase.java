package io.delayqueue.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.delayqueue.queue.journal.JournalSettings;
import io.delayqueue.queue.journal.mybatis.MyBatisJournal;
import io.delayqueue.queue.testing.JournalDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.UUID;

/**
 * A journal database of the benchmark's own on the MariaDB at 127.0.0.1:3306 (root, empty password):
 * {@code dq_bench_<random>}, created and migrated by Flyway as the service does it, emptied between runs,
 * dropped at the end.
 */
final class BenchDatabase implements AutoCloseable {
    /** MariaDB's own driver, as docs/configuration.md recommends for MariaDB (its bulk protocol for group commits). */
    static final String SERVER_URL = "jdbc:mariadb://127.0.0.1:3306/";

    static final String USER = "root";
    static final String PASSWORD = "";
    /** As {@code spring.datasource.hikari.maximum-pool-size} in the service's application.properties. */
    private static final int POOL_SIZE = 8;

    private final String name;
    private HikariDataSource dataSource;

    private BenchDatabase(String name) {
        this.name = name;
    }

    /** Creates an empty database (no schema yet: the service's Flyway, or {@link #migrate()}, adds it). */
    static BenchDatabase create() throws SQLException {
        BenchDatabase db = new BenchDatabase(
                "dq_bench_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12));
        execute("CREATE DATABASE " + db.name + " CHARACTER SET utf8mb4");
        return db;
    }

    static String serverVersion() throws SQLException {
        try (Connection c = DriverManager.getConnection(SERVER_URL, USER, PASSWORD);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT VERSION()")) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** The JDBC driver's version, as it reports itself. */
    static String driverVersion() {
        try (Connection c = DriverManager.getConnection(SERVER_URL, USER, PASSWORD)) {
            return c.getMetaData().getDriverVersion();
        } catch (SQLException e) {
            return "?";
        }
    }

    String name() {
        return name;
    }

    /** The URL a production service on MariaDB would use. */
    String jdbcUrl() {
        return SERVER_URL + name;
    }

    /** Applies the schema with Flyway, as the service does at start-up. */
    void migrate() {
        JournalDatabase.migrate(dataSource());
    }

    HikariDataSource dataSource() {
        if (dataSource == null) {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(jdbcUrl());
            config.setUsername(USER);
            config.setPassword(PASSWORD);
            config.setMaximumPoolSize(POOL_SIZE);
            config.setPoolName("bench-journal");
            dataSource = new HikariDataSource(config);
        }
        return dataSource;
    }

    /** The journal over this database (its schema applied: {@link #migrate()}), as the service builds it. */
    MyBatisJournal journal(JournalSettings settings, int shards) {
        return JournalDatabase.journal(dataSource(), settings, shards, Clock.systemUTC());
    }

    /**
     * Puts {@code jobs} FINISHED jobs last updated at {@code updatedAt} straight into the journal, with three log
     * rows each (CREATED, RESERVED, FINISHED), in multi-row INSERTs of 1,000 rows from two connections: a million
     * jobs in about a minute, where pushing them through the service would take far longer.
     */
    void insertFinishedJobs(int jobs, long updatedAt, String body) throws Exception {
        int perStatement = 1_000;
        java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
        Parallel.run(2, "bench-insert", () -> {
            try (Connection c = DriverManager.getConnection(SERVER_URL + name, USER, PASSWORD);
                    Statement s = c.createStatement()) {
                while (true) {
                    int from = next.getAndAdd(perStatement);
                    if (from >= jobs) {
                        return;
                    }
                    int to = Math.min(jobs, from + perStatement);
                    StringBuilder job = new StringBuilder("INSERT INTO delay_queue_job (id, topic, subtopic, biz_key,"
                            + " body, ttr, max_attempts, url, priority, status, attempts, due_at, create_time,"
                            + " update_time, version) VALUES ");
                    StringBuilder log = new StringBuilder("INSERT INTO delay_queue_job_log (job_id, event,"
                            + " from_status, to_status, event_time, host, worker, detail) VALUES ");
                    for (int i = from; i < to; i++) {
                        String id = "'purge-" + i + "'";
                        String sep = i == from ? "" : ",";
                        job.append(sep)
                                .append('(')
                                .append(id)
                                .append(",'bench',NULL,NULL,'")
                                .append(body)
                                .append("',30000,10,NULL,0,'FINISHED',1,")
                                .append(updatedAt)
                                .append(',')
                                .append(updatedAt)
                                .append(',')
                                .append(updatedAt)
                                .append(",2)");
                        for (String[] step : new String[][] {
                            {"CREATED", "NULL", "'DELAY'"},
                            {"RESERVED", "'DELAY'", "'RESERVED'"},
                            {"FINISHED", "'RESERVED'", "'FINISHED'"}
                        }) {
                            log.append(i == from && step[0].equals("CREATED") ? "" : ",")
                                    .append('(')
                                    .append(id)
                                    .append(",'")
                                    .append(step[0])
                                    .append("',")
                                    .append(step[1])
                                    .append(',')
                                    .append(step[2])
                                    .append(',')
                                    .append(updatedAt)
                                    .append(",'bench','bench-insert',NULL)");
                        }
                    }
                    s.execute(job.toString());
                    s.execute(log.toString());
                }
            }
        });
    }

    /** Bytes of both journal tables, data and indexes, as InnoDB reports them (after ANALYZE: its estimate). */
    long journalBytes() throws SQLException {
        try (Connection c = DriverManager.getConnection(SERVER_URL + name, USER, PASSWORD);
                Statement s = c.createStatement()) {
            s.execute("ANALYZE TABLE delay_queue_job, delay_queue_job_log");
            try (ResultSet rs = s.executeQuery("SELECT SUM(data_length + index_length) FROM information_schema.TABLES"
                    + " WHERE table_schema = '" + name + "'")) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    long jobRows() throws SQLException {
        try (Connection c = DriverManager.getConnection(SERVER_URL + name, USER, PASSWORD);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM delay_queue_job")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Empties the journal tables, so that every run inserts into tables of the same (zero) size. */
    void truncate() throws SQLException {
        try (Connection c = DriverManager.getConnection(SERVER_URL + name, USER, PASSWORD);
                Statement s = c.createStatement()) {
            s.execute("TRUNCATE TABLE delay_queue_job");
            s.execute("TRUNCATE TABLE delay_queue_job_log");
        }
    }

    @Override
    public void close() throws SQLException {
        if (dataSource != null) {
            dataSource.close();
        }
        execute("DROP DATABASE IF EXISTS " + name);
    }

    private static void execute(String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(SERVER_URL, USER, PASSWORD);
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
