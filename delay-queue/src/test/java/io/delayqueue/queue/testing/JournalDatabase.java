package io.delayqueue.queue.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.journal.JournalSettings;
import io.delayqueue.queue.journal.mybatis.JournalDialect;
import io.delayqueue.queue.journal.mybatis.MyBatisJournal;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Logger;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.apache.ibatis.mapping.Environment;
import org.apache.ibatis.session.Configuration;
import org.apache.ibatis.session.SqlSessionFactory;
import org.apache.ibatis.session.SqlSessionFactoryBuilder;
import org.apache.ibatis.transaction.jdbc.JdbcTransactionFactory;
import org.flywaydb.core.Flyway;

/**
 * A journal database of its own for one test: on the machine's MariaDB ({@code root@127.0.0.1:3306}, empty
 * password) a database {@code dq_test_<random>} created here and dropped by {@link #close()}, an H2
 * in-memory database in MySQL mode, or a SQLite file in a temporary folder (the embedded default). The schema comes from the migrations in the jar
 * ({@code classpath:db/migration}, i.e. {@code sql/}), applied by Flyway as the service does.
 *
 * <p>The journal reaches the database through a {@link Gate}: a test can hold every new connection (to make
 * a commit slow) or refuse them (the database is down). {@link #journal} builds the journal over it.
 *
 * <p>{@link #forService(String)} is the database of a service under test instead: created empty, the
 * service's Flyway applies the schema at start-up as in production, and the test reads it through
 * {@link #queryLong} and {@link #queryStrings}.
 */
public final class JournalDatabase implements AutoCloseable {
    public static final String MARIADB_HOST = "127.0.0.1";
    public static final int MARIADB_PORT = 3306;
    public static final String MARIADB_USER = "root";
    public static final String MARIADB_PASSWORD = "";
    private static final String MARIADB_SERVER_URL = "jdbc:mysql://" + MARIADB_HOST + ":" + MARIADB_PORT + "/";
    /** The options of every Connector/J URL here, as the service is configured for MariaDB. */
    private static final String MYSQL_DRIVER_OPTIONS = "?rewriteBatchedStatements=true";

    /**
     * What most tests' journal runs with: synchronous, a 50 ms group-commit lag, two create writers; a test that
     * needs other settings passes its own to {@link #journal(JournalSettings, int, Clock)}.
     */
    public static final JournalSettings SETTINGS = JournalSettings.DEFAULTS.withWriter(
            JournalMode.SYNC, Duration.ofMillis(50), 10_000, Duration.ofSeconds(30), 1_000_000, 2);

    private final String name;
    private final boolean mariaDb;
    private final HikariDataSource pool;
    private final Gate gate;
    /** The folder of a SQLite database's files, deleted on close; null for the others. */
    private final Path folder;

    private JournalDatabase(String name, boolean mariaDb, String url, String user, boolean migrate, int poolSize) {
        this(name, mariaDb, url, user, migrate, poolSize, null);
    }

    private JournalDatabase(
            String name, boolean mariaDb, String url, String user, boolean migrate, int poolSize, Path folder) {
        this.name = name;
        this.folder = folder;
        this.mariaDb = mariaDb;
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword("");
        config.setMaximumPoolSize(poolSize);
        config.setPoolName("journal-test-" + name);
        this.pool = new HikariDataSource(config);
        if (migrate) {
            try {
                migrate(pool);
            } catch (RuntimeException e) {
                pool.close();
                throw e;
            }
        }
        this.gate = new Gate(pool);
    }

    /** Applies the schema from the migrations in the jar ({@code sql/}) with Flyway, as the service does at start-up. */
    public static void migrate(DataSource dataSource) {
        String migrations;
        try (Connection c = dataSource.getConnection()) {
            migrations = JournalDialect.of(c).migrations();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot reach the journal database to migrate it", e);
        }
        Flyway.configure().dataSource(dataSource).locations(migrations).load().migrate();
    }

    /** A MyBatis session factory over {@code dataSource}, with JDBC transactions, as the service configures it. */
    public static SqlSessionFactory sessions(DataSource dataSource) {
        Configuration configuration =
                new Configuration(new Environment("journal-test", new JdbcTransactionFactory(), dataSource));
        return new SqlSessionFactoryBuilder().build(configuration);
    }

    /**
     * The journal over {@code dataSource} (whose schema is in place), for a benchmark or a database of the
     * caller's own; {@link #journal(JournalSettings, int, Clock)} is the one over this database.
     */
    public static MyBatisJournal journal(DataSource dataSource, JournalSettings settings, int shards, Clock clock) {
        return new MyBatisJournal(sessions(dataSource), settings, shards, clock);
    }

    /** A journal over this database's {@link #gate()}; the caller closes it (before this database). */
    public MyBatisJournal journal(JournalSettings settings, int shards, Clock clock) {
        return journal(gate, settings, shards, clock);
    }

    /** As {@link #journal(JournalSettings, int, Clock)} with {@link #SETTINGS}. */
    public MyBatisJournal journal(int shards, Clock clock) {
        return journal(SETTINGS, shards, clock);
    }

    /**
     * A new database on the machine's MariaDB, reached with MySQL's driver (Connector/J); fails at once,
     * saying how to start it, when it is down.
     */
    public static JournalDatabase mariaDb() {
        return mariaDb(randomName(), MARIADB_SERVER_URL, MYSQL_DRIVER_OPTIONS, true, 8);
    }

    /** As {@link #mariaDb()}, reached with MariaDB's own driver (its bulk protocol for batches). */
    public static JournalDatabase mariaDbWithMariaDbDriver() {
        return mariaDb(randomName(), "jdbc:mariadb://" + MARIADB_HOST + ":" + MARIADB_PORT + "/", "", true, 8);
    }

    /**
     * An empty database {@code dq_test_<label>_<random>} on the machine's MariaDB for a service under test (in
     * this JVM or another), whose Flyway applies the schema at start-up; point it at {@link #jdbcUrl()} as
     * {@link #MARIADB_USER} with {@link #MARIADB_PASSWORD}. The test's own connections (two at most) read it.
     */
    public static JournalDatabase forService(String label) {
        String clean = label.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
        String name = "dq_test_" + clean.substring(0, Math.min(16, clean.length())) + "_"
                + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        return mariaDb(name, MARIADB_SERVER_URL, MYSQL_DRIVER_OPTIONS, false, 2);
    }

    private static String randomName() {
        return "dq_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    }

    private static JournalDatabase mariaDb(
            String name, String serverUrl, String options, boolean migrate, int poolSize) {
        executeOnServer("CREATE DATABASE " + name + " CHARACTER SET utf8mb4");
        try {
            return new JournalDatabase(name, true, serverUrl + name + options, MARIADB_USER, migrate, poolSize);
        } catch (RuntimeException e) {
            executeOnServer("DROP DATABASE IF EXISTS " + name);
            throw e;
        }
    }

    /** A new H2 in-memory database in MySQL mode, as the embedded default runs it (but not on disk). */
    public static JournalDatabase h2() {
        String name = randomName();
        return new JournalDatabase(
                name,
                false,
                "jdbc:h2:mem:" + name
                        + ";DB_CLOSE_DELAY=-1;MODE=MySQL;DATABASE_TO_LOWER=TRUE;CASE_INSENSITIVE_IDENTIFIERS=TRUE",
                "sa",
                true,
                8);
    }

    /**
     * A new SQLite database in a file of a temporary folder (deleted by {@link #close()}), with the options of the
     * embedded default ({@link #SQLITE_OPTIONS}).
     */
    public static JournalDatabase sqlite() {
        return sqlite(SQLITE_OPTIONS);
    }

    /** As {@link #sqlite()}, with the URL's options ({@code ?journal_mode=WAL&...}) given. */
    public static JournalDatabase sqlite(String options) {
        String name = randomName();
        Path folder;
        try {
            folder = Files.createTempDirectory(name);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new JournalDatabase(
                name, false, "jdbc:sqlite:" + folder.resolve("delay-queue.db") + options, "", true, 8, folder);
    }

    /** The options of the embedded default's URL (delay-core's {@code application.properties}). */
    public static final String SQLITE_OPTIONS = "?journal_mode=WAL&synchronous=NORMAL&busy_timeout=10000";

    public String name() {
        return name;
    }

    public boolean isMariaDb() {
        return mariaDb;
    }

    /** What the journal's connections go through. */
    public Gate gate() {
        return gate;
    }

    /** The JDBC URL of this MariaDB database, as a service is configured for it. */
    public String jdbcUrl() {
        return jdbcUrl(MARIADB_PORT);
    }

    /** The JDBC URL of this MariaDB database reached through {@code port} on 127.0.0.1 (a proxy, say). */
    public String jdbcUrl(int port) {
        if (!mariaDb) {
            throw new IllegalStateException(name + " is an in-memory H2 database");
        }
        return "jdbc:mysql://" + MARIADB_HOST + ":" + port + "/" + name + MYSQL_DRIVER_OPTIONS;
    }

    /** A connection straight to the database (not through the gate), to play another writer. */
    public Connection connection() throws SQLException {
        return pool.getConnection();
    }

    /** One number from a query run directly (not through the gate), e.g. {@code SELECT COUNT(*) ...}. */
    public long queryLong(String sql) {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            if (!rs.next()) {
                throw new AssertionError("no row from " + sql);
            }
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + " failed in " + name, e);
        }
    }

    /** The first column of every row of a query run directly. */
    public List<String> queryStrings(String sql) {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            List<String> out = new ArrayList<>();
            while (rs.next()) {
                out.add(rs.getString(1));
            }
            return out;
        } catch (SQLException e) {
            throw new IllegalStateException(sql + " failed in " + name, e);
        }
    }

    /** One string from a query run directly, or null. */
    public String queryString(String sql) {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        } catch (SQLException e) {
            throw new IllegalStateException(sql + " failed in " + name, e);
        }
    }

    @Override
    public void close() {
        gate.open();
        pool.close();
        if (mariaDb) {
            executeOnServer("DROP DATABASE IF EXISTS " + name);
        }
        if (folder != null) {
            try (Stream<Path> files = Files.walk(folder)) {
                for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(file);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** The folder of a SQLite database's files ({@link #sqlite()}). */
    public Path folder() {
        if (folder == null) {
            throw new IllegalStateException(name + " is not a SQLite database");
        }
        return folder;
    }

    /** Whether the MariaDB server still has this database (after {@link #close()}: it should not). */
    public boolean existsOnServer() {
        try (Connection c = DriverManager.getConnection(MARIADB_SERVER_URL, MARIADB_USER, MARIADB_PASSWORD);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW DATABASES LIKE '" + name + "'")) {
            return rs.next();
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "SHOW DATABASES failed on MariaDB at " + MARIADB_HOST + ":" + MARIADB_PORT, e);
        }
    }

    /** Runs a statement on the MariaDB server as root, outside any test database. */
    public static void executeOnServer(String sql) {
        try (Connection c = DriverManager.getConnection(MARIADB_SERVER_URL, MARIADB_USER, MARIADB_PASSWORD);
                Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "'" + sql + "' failed on MariaDB at " + MARIADB_HOST + ":" + MARIADB_PORT
                            + " (root, empty password); start it with bin/services",
                    e);
        }
    }

    /**
     * A data source in front of the pool that a test can close: {@link #hold()} makes every new connection
     * wait until {@link #open()}, {@link #refuse()} makes them fail as if the database were down.
     */
    public static final class Gate implements DataSource {
        private enum State {
            OPEN,
            HOLD,
            REFUSE
        }

        private final DataSource target;
        private final AtomicReference<State> state = new AtomicReference<>(State.OPEN);
        private final AtomicInteger waiting = new AtomicInteger();
        private final AtomicInteger refused = new AtomicInteger();
        private final Object lock = new Object();

        Gate(DataSource target) {
            this.target = target;
        }

        public void hold() {
            state.set(State.HOLD);
        }

        public void refuse() {
            state.set(State.REFUSE);
            synchronized (lock) {
                lock.notifyAll();
            }
        }

        public void open() {
            state.set(State.OPEN);
            synchronized (lock) {
                lock.notifyAll();
            }
        }

        /** Connections being held right now. */
        public int waiting() {
            return waiting.get();
        }

        /** Connections refused so far. */
        public int refused() {
            return refused.get();
        }

        @Override
        public Connection getConnection() throws SQLException {
            pass();
            return target.getConnection();
        }

        @Override
        public Connection getConnection(String username, String password) throws SQLException {
            pass();
            return target.getConnection(username, password);
        }

        private void pass() throws SQLException {
            if (state.get() == State.HOLD) {
                waiting.incrementAndGet();
                try {
                    synchronized (lock) {
                        while (state.get() == State.HOLD) {
                            lock.wait();
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new SQLException("interrupted at the test's gate", e);
                } finally {
                    waiting.decrementAndGet();
                }
            }
            if (state.get() == State.REFUSE) {
                refused.incrementAndGet();
                throw new SQLException("Connection refused (the test's gate is closed)", "08001");
            }
        }

        @Override
        public PrintWriter getLogWriter() throws SQLException {
            return target.getLogWriter();
        }

        @Override
        public void setLogWriter(PrintWriter out) throws SQLException {
            target.setLogWriter(out);
        }

        @Override
        public void setLoginTimeout(int seconds) throws SQLException {
            target.setLoginTimeout(seconds);
        }

        @Override
        public int getLoginTimeout() throws SQLException {
            return target.getLoginTimeout();
        }

        @Override
        public Logger getParentLogger() throws SQLFeatureNotSupportedException {
            return target.getParentLogger();
        }

        @Override
        public <T> T unwrap(Class<T> iface) throws SQLException {
            return target.unwrap(iface);
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) throws SQLException {
            return target.isWrapperFor(iface);
        }
    }
}
