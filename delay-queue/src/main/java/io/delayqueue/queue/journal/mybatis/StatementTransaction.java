package io.delayqueue.queue.journal.mybatis;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.apache.ibatis.exceptions.PersistenceException;

/**
 * A group commit's transaction on MySQL or MariaDB, begun and ended by statements on a connection that stays in
 * auto-commit at its pool's isolation level: {@code SET TRANSACTION ISOLATION LEVEL READ COMMITTED} (for this
 * transaction only) and {@code START TRANSACTION}, sent together, then {@code COMMIT} or {@code ROLLBACK}.
 *
 * <p>Why: MyBatis's session with an isolation level sets it and auto-commit on the connection for the group, and
 * the connection pool sets both back when the connection returns to it: four round trips a group ({@code SET
 * SESSION TRANSACTION ISOLATION LEVEL}, {@code set autocommit=0}, {@code set autocommit=1}, and the pool's reset of
 * the isolation), against three for the rows and the commit. On a loaded two-core machine a round trip is tens to
 * hundreds of microseconds of thread switches on both sides, and a one-job push waits for a group commit
 * (issue 29: measured with MariaDB's general log and the push's own timers).
 *
 * <p>Nothing here may leave a connection inside a transaction when it goes back to the pool: a failed {@code
 * ROLLBACK} aborts the connection, so that the pool drops it.
 */
final class StatementTransaction {
    private StatementTransaction() {}

    /** Begins a READ COMMITTED transaction: one round trip where the driver sends a batch at once (MariaDB's). */
    static void begin(Connection connection) {
        try (Statement begin = connection.createStatement()) {
            // READ COMMITTED: see GroupTransaction; for this transaction only, so nothing is left to set back
            begin.addBatch("SET TRANSACTION ISOLATION LEVEL READ COMMITTED");
            begin.addBatch("START TRANSACTION");
            begin.executeBatch();
        } catch (SQLException e) {
            throw new PersistenceException("beginning a journal transaction failed: " + e.getMessage(), e);
        }
    }

    /** Commits the transaction {@link #begin} began. */
    static void commit(Connection connection) {
        try (Statement commit = connection.createStatement()) {
            commit.execute("COMMIT");
        } catch (SQLException e) {
            throw new PersistenceException("committing a journal transaction failed: " + e.getMessage(), e);
        }
    }

    /**
     * Rolls back the transaction {@link #begin} began (nothing, when none is open). When the rollback fails, the
     * connection is aborted: it is never handed out again with the transaction open.
     */
    static void rollback(Connection connection) {
        try (Statement rollback = connection.createStatement()) {
            rollback.execute("ROLLBACK");
        } catch (SQLException e) {
            try {
                connection.abort(Runnable::run);
            } catch (SQLException | RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw new PersistenceException("rolling back a journal transaction failed: " + e.getMessage(), e);
        }
    }
}
