package io.delayqueue.queue.journal.mybatis;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The journal's writing transactions (group commits, retention's purge, the shard backfill) on a database that
 * takes one writer at a time ({@link JournalDialect#singleWriter()}, SQLite) take turns on this lock, so that none
 * of them meets the database's own lock and waits in its busy handler (which sleeps in steps of 1 to 100 ms). On
 * other databases {@link #take} takes nothing. The dialect is read from the first connection that writes, and
 * kept: the journal's database does not change under it.
 *
 * <p>Another process writing the same SQLite file still meets the database's lock; its {@code busy_timeout}
 * bounds that wait.
 *
 * <p>Threading: safe from any thread; a turn is released by the thread that took it.
 */
final class WriterTurns {
    private final ReentrantLock lock = new ReentrantLock();
    private volatile JournalDialect dialect;

    /** The dialect of the journal's database, read from {@code connection} the first time. */
    JournalDialect dialect(Connection connection) throws SQLException {
        JournalDialect known = dialect;
        if (known == null) {
            dialect = known = JournalDialect.of(connection);
        }
        return known;
    }

    /** The dialect of the journal's database once a write has read it; {@code null} before. */
    JournalDialect knownDialect() {
        return dialect;
    }

    /**
     * Waits for this thread's turn to write through {@code connection} when the database takes one writer at a
     * time, and in a transaction takes the database's write lock at once ({@link JournalDialect#beginWrite});
     * returns the turn to {@link Turn#close() close} once the transaction committed or rolled back.
     */
    Turn take(Connection connection) throws SQLException {
        JournalDialect known = dialect(connection);
        if (!known.singleWriter()) {
            return Turn.NONE;
        }
        lock.lock();
        try {
            if (!connection.getAutoCommit()) {
                known.beginWrite(connection);
            }
        } catch (SQLException | RuntimeException e) {
            lock.unlock();
            throw e;
        }
        return lock::unlock;
    }

    /** A writer's turn; closing it lets the next writer in. */
    @FunctionalInterface
    interface Turn extends AutoCloseable {
        Turn NONE = () -> {};

        @Override
        void close();
    }
}
