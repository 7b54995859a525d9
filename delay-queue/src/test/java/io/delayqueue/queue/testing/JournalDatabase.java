package io.delayqueue.queue.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.apache.ibatis.mapping.Environment;
import org.apache.ibatis.session.Configuration;
import org.apache.ibatis.session.SqlSessionFactory;
import org.apache.ibatis.session.SqlSessionFactoryBuilder;
import org.apache.ibatis.transaction.jdbc.JdbcTransactionFactory;
import org.flywaydb.core.Flyway;

/**
 * A journal database of its own for one test: on the machine's MariaDB ({@code root@127.0.0.1:3306}, empty
 * password) a database {@code dq_test_<random>} created here and dropped by {@link #close()}, or an H2
 * in-memory database in MySQL mode. The schema comes from the migrations in the jar
 * ({@code classpath:db/migration}, i.e. {@code sql/}), applied by Flyway as the service does.
 *
 * <p>The journal reaches the database through a {@link Gate}: a test can hold every new connection (to make
 * a commit slow) or refuse them (the database is down).
 */
public final class JournalDatabase implements AutoCloseable {
    public static final String MARIADB_HOST = "127.0.0.1";
    public static final int MARIADB_PORT = 3306;
    private static final String MARIADB_SERVER_URL = "jdbc:mysql://" + MARIADB_HOST + ":" + MARIADB_PORT + "/";

    private final String name;
    private final boolean mariaDb;
    private final HikariDataSource pool;
    private final Gate gate;

    private JournalDatabase(String name, boolean mariaDb, String url, String user) {
        this.name = name;
        this.mariaDb = mariaDb;
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword("");
        config.setMaximumPoolSize(8);
        config.setPoolName("journal-test-" + name);
        this.pool = new HikariDataSource(config);
        Flyway.configure()
                .dataSource(pool)
                .locations("classpath:db/migration")
                .load()
                .migrate();
        this.gate = new Gate(pool);
    }

    /**
     * A new database on the machine's MariaDB, reached with MySQL's driver (Connector/J); fails at once,
     * saying how to start it, when it is down.
     */
    public static JournalDatabase mariaDb() {
        return mariaDb(MARIADB_SERVER_URL, "?rewriteBatchedStatements=true");
    }

    /** As {@link #mariaDb()}, reached with MariaDB's own driver (its bulk protocol for batches). */
    public static JournalDatabase mariaDbWithMariaDbDriver() {
        return mariaDb("jdbc:mariadb://" + MARIADB_HOST + ":" + MARIADB_PORT + "/", "");
    }

    private static JournalDatabase mariaDb(String serverUrl, String options) {
        String name = "dq_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        executeOnServer("CREATE DATABASE " + name + " CHARACTER SET utf8mb4");
        try {
            return new JournalDatabase(name, true, serverUrl + name + options, "root");
        } catch (RuntimeException e) {
            executeOnServer("DROP DATABASE IF EXISTS " + name);
            throw e;
        }
    }

    /** A new H2 in-memory database in MySQL mode, as the embedded default runs it (but not on disk). */
    public static JournalDatabase h2() {
        String name = "dq_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        return new JournalDatabase(
                name,
                false,
                "jdbc:h2:mem:" + name
                        + ";DB_CLOSE_DELAY=-1;MODE=MySQL;DATABASE_TO_LOWER=TRUE;CASE_INSENSITIVE_IDENTIFIERS=TRUE",
                "sa");
    }

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

    /** A MyBatis session factory over the gated data source, with JDBC transactions, as the service configures it. */
    public SqlSessionFactory sessions() {
        Configuration configuration =
                new Configuration(new Environment("journal-test", new JdbcTransactionFactory(), gate));
        return new SqlSessionFactoryBuilder().build(configuration);
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
            throw new IllegalStateException(sql + " failed", e);
        }
    }

    /** One string from a query run directly, or null. */
    public String queryString(String sql) {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        } catch (SQLException e) {
            throw new IllegalStateException(sql + " failed", e);
        }
    }

    @Override
    public void close() {
        gate.open();
        pool.close();
        if (mariaDb) {
            executeOnServer("DROP DATABASE IF EXISTS " + name);
        }
    }

    /** Runs a statement on the MariaDB server as root, outside any test database. */
    public static void executeOnServer(String sql) {
        try (Connection c = DriverManager.getConnection(MARIADB_SERVER_URL, "root", "");
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
