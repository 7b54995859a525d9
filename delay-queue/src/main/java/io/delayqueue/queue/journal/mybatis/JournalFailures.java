package io.delayqueue.queue.journal.mybatis;

import io.delayqueue.common.DelayQueueException;
import java.sql.SQLException;
import java.sql.SQLIntegrityConstraintViolationException;
import java.sql.SQLTransactionRollbackException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How the journal reads a database failure (worth writing again, a row refused for what it holds, or the
 * database away) and what it answers its callers for each. Stateless; safe from any thread.
 */
final class JournalFailures {
    private static final Pattern REFUSED_COLUMN =
            Pattern.compile("column [`'\"]?(?:\\w+[`'\"]?\\.[`'\"]?)*(\\w+)[`'\"]?");
    /**
     * SQLite names the column in its constraint's message ({@code NOT NULL constraint failed: delay_queue_job.url};
     * the schema's length checks are named after their columns: {@code CHECK constraint failed: url}).
     */
    private static final Pattern REFUSED_CONSTRAINT = Pattern.compile("constraint failed: (?:\\w+\\.)?(\\w+)");

    private JournalFailures() {}

    /** The commit statement itself failed: the database may have committed before the connection broke. */
    static final class CommitBrokeOff extends RuntimeException {
        CommitBrokeOff(RuntimeException cause) {
            super(cause.getMessage(), cause);
        }
    }

    /**
     * Whether a failed commit is worth writing again at once: a deadlock or lock wait (SQLState class 40,
     * MySQL errors 1213 and 1205), or a duplicate key (1062, SQLState 23505, SQLite's primary key constraint), which
     * is a client-supplied id that another writer committed meanwhile (the retry finds it and reports it as existing).
     */
    static boolean isTransient(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLTransactionRollbackException || t instanceof SQLIntegrityConstraintViolationException) {
                return true;
            }
            if (t instanceof SQLException sql) {
                String state = sql.getSQLState();
                int code = sql.getErrorCode();
                if (code == 1213
                        || code == 1205
                        || code == 1062
                        || "23505".equals(state) // a unique key (H2)
                        || (state != null && state.startsWith("40"))
                        || isSqlite(sql, "SQLITE_CONSTRAINT_PRIMARYKEY", "SQLITE_CONSTRAINT_UNIQUE")) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Whether the database refused a row for what it holds rather than for its own state: a data exception
     * (SQLState class 22: data too long, a string it cannot store, a number out of range) or an integrity
     * violation other than a duplicate id (which {@link #isTransient} retries). Writing it again cannot succeed.
     */
    static boolean isRowRefused(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException sql) {
                String state = sql.getSQLState();
                int code = sql.getErrorCode();
                if (code == 1062
                        || "23505".equals(state)
                        || isSqlite(sql, "SQLITE_CONSTRAINT_PRIMARYKEY", "SQLITE_CONSTRAINT_UNIQUE")) {
                    return false;
                }
                if ((state != null && (state.startsWith("22") || state.startsWith("23")))
                        || isSqlite(sql, "SQLITE_CONSTRAINT", "SQLITE_TOOBIG", "SQLITE_MISMATCH")
                        || code == 1366 // incorrect string value
                        || code == 1406 // data too long
                        || code == 1048 // column cannot be null
                        || code == 1264) { // out of range
                    return true;
                }
            }
        }
        return false;
    }

    /** The 400 of a push whose row the database refuses, naming the job's field where the message names a column. */
    static DelayQueueException rowRefused(Throwable failure) {
        String message = rootMessage(failure);
        Matcher column = REFUSED_COLUMN.matcher(message);
        Matcher constraint = REFUSED_CONSTRAINT.matcher(message);
        String field =
                column.find() ? fieldOf(column.group(1)) : constraint.find() ? fieldOf(constraint.group(1)) : "job";
        return new DelayQueueException.InvalidField(
                field, "is refused by the journal database, nothing was written: " + message);
    }

    /**
     * Whether {@code e} is the SQLite driver's, with one of the result codes (or their extended codes): it starts
     * its messages with the code's name in brackets ({@code [SQLITE_BUSY] ...}) and sets no SQLState.
     */
    private static boolean isSqlite(SQLException e, String... codes) {
        String message = e.getMessage();
        if (message == null || !message.startsWith("[SQLITE_")) {
            return false;
        }
        for (String code : codes) {
            if (message.startsWith("[" + code + "]") || message.startsWith("[" + code + "_")) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code failure} or one of its causes is the SQLite driver's, with one of the result codes. */
    private static boolean causedBySqlite(Throwable failure, String... codes) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException sql && isSqlite(sql, codes)) {
                return true;
            }
        }
        return false;
    }

    private static String fieldOf(String column) {
        return switch (column) {
            case "biz_key" -> "bizKey";
            case "max_attempts" -> "maxAttempts";
            case "due_at" -> "executeAt";
            default -> column;
        };
    }

    /**
     * Whether the database said that the transaction did not commit, though its commit statement failed: SQLite's
     * {@code SQLITE_FULL} (the disk or the database full: the transaction's pages or log frames could not be written,
     * and a WAL commit is a commit frame written whole) and {@code SQLITE_READONLY} with its extended codes (the
     * database cannot be written, its file moved or deleted under it, say: refused before anything is written). Either
     * way nothing of the transaction is in the database and the answer is 503, not 504. Other failures of a commit
     * ({@code SQLITE_IOERR}: a write or a sync may have failed after the commit frame was written) stay unknown.
     */
    static boolean isRefusedCommit(Throwable failure) {
        return causedBySqlite(failure, "SQLITE_FULL", "SQLITE_READONLY");
    }

    /** What a waiting caller of a failed commit is answered: unknown when the commit itself broke off. */
    static DelayQueueException failureOf(Throwable failure) {
        if (causedBySqlite(failure, "SQLITE_FULL")) {
            return new DelayQueueException.Unavailable(
                    "not written: the journal database's disk is full: " + rootMessage(failure), failure);
        }
        if (failure instanceof DelayQueueException.Unavailable refused) {
            return refused; // says what was not written, and why
        }
        if (failure instanceof CommitBrokeOff) {
            return new DelayQueueException.OutcomeUnknown(
                    "the journal's commit broke off and may or may not have landed: " + rootMessage(failure), failure);
        }
        return new DelayQueueException.Unavailable(
                "not written: the journal database is unavailable: " + rootMessage(failure), failure);
    }

    /** A failure shared by the callers of one entry, as an exception of one caller's own (callers add data). */
    static DelayQueueException forOneCaller(Throwable failure) {
        if (failure instanceof DelayQueueException.OutcomeUnknown) {
            return new DelayQueueException.OutcomeUnknown(failure.getMessage(), failure);
        }
        if (failure instanceof DelayQueueException.Unavailable) {
            return new DelayQueueException.Unavailable(failure.getMessage(), failure);
        }
        if (failure instanceof DelayQueueException d) {
            return new DelayQueueException(d.httpStatus(), d.getMessage(), d);
        }
        return new DelayQueueException.Unavailable("not written: the journal could not commit: " + failure, failure);
    }

    static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + ": " + root.getMessage();
    }
}
