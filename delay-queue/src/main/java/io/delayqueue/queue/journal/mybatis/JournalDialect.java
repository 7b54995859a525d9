package io.delayqueue.queue.journal.mybatis;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;

/**
 * What differs between the databases the journal runs on, in one place (as db-scheduler's
 * {@code JdbcCustomization}): where the schema's migrations are, whether the database takes one writer at a time,
 * and what makes a commit durable. The SQL itself is the same on all of them ({@link JournalMapper},
 * {@link RowInserts}).
 */
public enum JournalDialect {
    /** MySQL or MariaDB (InnoDB): a commit is durable, writers run side by side. */
    MYSQL("classpath:db/migration", false),
    /** H2 in MySQL mode, the embedded default before SQLite: a commit is durable after {@code CHECKPOINT SYNC}. */
    H2("classpath:db/migration", false),
    /**
     * SQLite in WAL mode, the embedded default: a commit appends the pages it changed to the write-ahead log; with
     * {@code synchronous=FULL} it forces the log itself, with {@code synchronous=NORMAL} (the default URL) the
     * journal forces it after the commit, outside the writers' turn ({@link WalSync}). One writer at a time: a second one would
     * wait in SQLite's busy handler, which sleeps in steps of milliseconds, so the journal's writers take turns
     * on a lock of their own instead ({@link WriterTurns}).
     */
    SQLITE("classpath:db/sqlite", true);

    private final String migrations;
    private final boolean singleWriter;

    JournalDialect(String migrations, boolean singleWriter) {
        this.migrations = migrations;
        this.singleWriter = singleWriter;
    }

    /** The dialect of a JDBC URL: {@code jdbc:sqlite:}, {@code jdbc:h2:}, anything else is MySQL's. */
    public static JournalDialect ofUrl(String jdbcUrl) {
        String url = jdbcUrl == null ? "" : jdbcUrl.toLowerCase(Locale.ROOT);
        if (url.startsWith("jdbc:sqlite:")) {
            return SQLITE;
        }
        if (url.startsWith("jdbc:h2:")) {
            return H2;
        }
        return MYSQL;
    }

    /** The dialect of an open connection, from the database's product name. */
    public static JournalDialect of(Connection connection) throws SQLException {
        String product = connection.getMetaData().getDatabaseProductName();
        if ("SQLite".equalsIgnoreCase(product)) {
            return SQLITE;
        }
        if ("H2".equalsIgnoreCase(product)) {
            return H2;
        }
        return MYSQL;
    }

    /** Where Flyway finds this database's migrations (the jar's copy of {@code sql/} or {@code sql/sqlite/}). */
    public String migrations() {
        return migrations;
    }

    /** Whether the database takes one writing transaction at a time. */
    public boolean singleWriter() {
        return singleWriter;
    }

    /**
     * Starts the write of a transaction that may read before it writes. SQLite begins a transaction deferred: a
     * read takes a snapshot, and a later write fails at once ({@code SQLITE_BUSY}) when another connection
     * committed since; a statement that writes nothing but takes the write lock first makes the transaction wait
     * for the lock (up to {@code busy_timeout}) and read the latest rows. (The driver's {@code transaction_mode=
     * IMMEDIATE} would do it too, but it also begins the next transaction at each commit, holding the lock while
     * the connection sits in the pool.)
     */
    void beginWrite(Connection connection) throws SQLException {
        if (this == SQLITE) {
            try (Statement lock = connection.createStatement()) {
                lock.executeUpdate("DELETE FROM delay_queue_job_log WHERE 0");
            }
        }
    }

    /**
     * Makes a committed transaction durable where the commit alone does not. H2 keeps a committed transaction in
     * memory and writes its store out later ({@code WRITE_DELAY}, 500 ms by default), and even a written store is
     * in the OS's cache: {@code CHECKPOINT SYNC} writes the store and forces the file, so that an answered push
     * survives {@code kill -9}, an OS crash and a power loss. MySQL/MariaDB (with the default
     * {@code innodb_flush_log_at_trx_commit=1}) and SQLite with {@code synchronous=FULL} force their log in the
     * commit itself; SQLite with {@code synchronous=NORMAL} has it forced after the commit ({@link WalSync}).
     */
    void forceToDisk(Connection connection) throws SQLException {
        if (this == H2) {
            try (Statement sync = connection.createStatement()) {
                sync.execute("CHECKPOINT SYNC");
            }
        }
    }

    /** H2's error code when a statement needs an admin user ({@code ErrorCode.ADMIN_RIGHTS_REQUIRED}). */
    private static final int H2_ADMIN_RIGHTS_REQUIRED = 90040;

    /**
     * Checks at start-up that {@link #forceToDisk} can run for the journal's user, so that the service refuses to
     * start rather than answer every push 504 (written, but not known to be on disk). H2 runs {@code CHECKPOINT SYNC}
     * only for an admin user; the check runs it once.
     *
     * @throws IllegalStateException naming the user and what to do, when it cannot
     * @throws SQLException any other failure of the check (the database unreachable, say)
     */
    void checkForceToDisk(Connection connection) throws SQLException {
        try {
            forceToDisk(connection);
        } catch (SQLException e) {
            if (this == H2 && e.getErrorCode() == H2_ADMIN_RIGHTS_REQUIRED) {
                throw new IllegalStateException(
                        "the journal's H2 user '" + connection.getMetaData().getUserName()
                                + "' is not an admin: H2 runs CHECKPOINT SYNC, which puts each commit on disk before"
                                + " its pushes are answered, only for an admin user, so every push would be answered"
                                + " 504. Journal to H2 as an admin user (spring.datasource.username=sa, say), or use"
                                + " the embedded SQLite journal (leave spring.datasource.url unset) or MySQL/MariaDB",
                        e);
            }
            throw e;
        }
    }
}
