package io.delayqueue.queue.journal.mybatis;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.journal.JobEvent;
import io.delayqueue.queue.journal.Transition;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.ibatis.exceptions.PersistenceException;
import org.apache.ibatis.session.ExecutorType;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;
import org.apache.ibatis.session.TransactionIsolationLevel;

/**
 * The SQL of one group commit: writes the rows of a group of {@link WriteEntry entries} in ONE transaction of
 * multi-row statements (new jobs, log rows, status updates), commits it, forces it to disk on H2, and rolls it
 * back whole on any failure. On SQLite it waits for its turn first ({@link WriterTurns}). Deciding when to write a
 * group, retrying it and answering its callers is the {@link GroupCommitWriter}'s job; this class writes once per
 * call.
 *
 * <p>Two persistence styles meet here, on purpose: the two inserts (most of a group's rows) are plain JDBC batches
 * ({@link RowInserts}) on the session's connection, every other statement goes through {@link JournalMapper}; all
 * of them in the one transaction of the session. {@link MyBatisJournal} says why, with the measurement.
 *
 * <p>Threading: stateless but for the cached database product; called by the writer threads, each call on a
 * session (connection) of its own.
 */
final class GroupTransaction {
    private final SqlSessionFactory sessions;
    private final int shards;
    private final String host;
    private final Clock clock;
    /** One writer at a time on SQLite; and the database's dialect, known at the first write. */
    private final WriterTurns turns;
    /** SQLite's log when commits leave it to be forced ({@code synchronous=NORMAL}); known at the first write. */
    private volatile WalSync walSync;

    private volatile boolean walResolved;
    /** A rehearsal's ({@link MyBatisJournal#rehearsal()}): each group is rolled back where it would commit. */
    private final boolean rollsBack;

    /** One committed group: per create entry the ids that already existed, the rows written, the time it took. */
    record Written(Map<WriteEntry, Set<String>> existing, int rows, long nanos) {}

    /**
     * @param shards the queue's shard count: each job row records its shard
     * @param host what the log rows' {@code host} column says
     */
    GroupTransaction(
            SqlSessionFactory sessions, WriterTurns turns, int shards, String host, Clock clock, boolean rollsBack) {
        this.rollsBack = rollsBack;
        this.sessions = sessions;
        this.turns = turns;
        this.shards = shards;
        this.host = host;
        this.clock = clock;
    }

    /**
     * Writes a batch in one transaction; returns, per create entry, the ids that already existed.
     *
     * @param lookUpIds whether to look for the new ids in the table first. The first attempt does not:
     *     generated ids are unique, and a client-supplied id pushed twice fails the insert on the primary key,
     *     which rolls the group back; the retry then looks them up and reports those that exist. One query and
     *     round trip less per commit, where a second push of an id is the exception.
     * @throws JournalFailures.CommitBrokeOff when the commit statement itself failed (it may have landed)
     */
    Written write(List<WriteEntry> batch, boolean lookUpIds) {
        long startNanos = System.nanoTime();
        boolean durable = batch.stream().anyMatch(e -> e.done() != null);
        long[] commitNumber = {0};
        WalSync sound = walSync;
        if (sound != null) {
            sound.requireSound(); // the log or database file replaced, an fsync failed: nothing more is written
        }
        Written written = writeInTurn(batch, lookUpIds, durable, commitNumber);
        WalSync wal = walSync;
        if (durable && wal != null) {
            // outside the turn: the next group commits while this fsync runs, and one fsync covers both
            try {
                wal.force(commitNumber[0]);
            } catch (IOException e) {
                throw new JournalFailures.CommitBrokeOff(new DelayQueueException.OutcomeUnknown(
                        "the journal committed but could not force its log to disk: " + e.getMessage(), e));
            }
        }
        return new Written(written.existing(), written.rows(), System.nanoTime() - startNanos);
    }

    /** The group's transaction, in this writer's turn; {@code commitNumber[0]} gets the commit's number for a wal. */
    private Written writeInTurn(List<WriteEntry> batch, boolean lookUpIds, boolean durable, long[] commitNumber) {
        long now = clock.millis();
        // A BATCH session: the existence query runs at once, then every insert and update is queued as a JDBC
        // batch of one static statement and sent at commit; with rewriteBatchedStatements=true, MySQL's driver
        // turns each batch into multi-row statements (sized to max_allowed_packet). Far cheaper on the CPU
        // than a dynamic <foreach> of thousands of rows.
        // READ COMMITTED: the group only inserts and updates by primary key, so it needs none of the gap locks
        // of REPEATABLE READ, which are what concurrent inserts into one index range deadlock on.
        // On MySQL and MariaDB the transaction is begun and ended by statements (StatementTransaction: four round
        // trips a group fewer), once a first write has read the dialect.
        boolean statements = turns.knownDialect() == JournalDialect.MYSQL;
        try (SqlSession session = statements
                        ? sessions.openSession(ExecutorType.BATCH, true)
                        : sessions.openSession(ExecutorType.BATCH, TransactionIsolationLevel.READ_COMMITTED);
                WriterTurns.Turn turn = takeTurn(session)) {
            if (!rollsBack) {
                resolveWalSync(session); // a rehearsal forces nothing to disk
            }
            try {
                if (statements) {
                    StatementTransaction.begin(session.getConnection());
                }
                JournalMapper mapper = session.getMapper(JournalMapper.class);
                // grows with the group: the second push of one client id in a group finds the first
                Set<String> existingAll = lookUpIds
                        ? existing(
                                mapper,
                                batch.stream()
                                        .flatMap(e -> e.created().stream())
                                        .toList())
                        : new HashSet<>();
                GroupRows rows = rowsOf(batch, existingAll);
                // Rows in id order: concurrent writers then take their row locks in one order, which makes
                // deadlocks between them rarer (the writer's retry handles the rest).
                rows.newJobs.sort(Comparator.comparing(Job::id));
                RowInserts.insertJobs(session.getConnection(), rows.newJobs, shards);
                RowInserts.insertLogRows(session.getConnection(), rows.logRows);
                RowUpdates.update(session.getConnection(), rows.updates.values(), now);
                if (rollsBack) {
                    // a rehearsal: every statement ran (flushed, as the commit would), none of it is kept
                    session.flushStatements();
                    rollback(session, statements);
                    return new Written(rows.existingByEntry, rows.newJobs.size() + rows.logRows.size(), 0);
                }
                // forced: MyBatis commits (and rolls back) only a session it saw write, and the inserts
                // bypass it
                try {
                    if (statements) {
                        session.flushStatements();
                        StatementTransaction.commit(session.getConnection());
                    } else {
                        session.commit(true);
                    }
                    WalSync wal = walSync;
                    if (wal != null) {
                        commitNumber[0] = wal.committed();
                    }
                    if (durable) {
                        // lagged entries alone need not wait for the disk: H2 writes them within its WRITE_DELAY,
                        // and the next forced commit forces them too (as the next fsync of SQLite's log does)
                        forceToDisk(session.getConnection());
                    }
                } catch (RuntimeException broken) {
                    if (JournalFailures.isRefusedCommit(broken)) {
                        throw broken; // the database says nothing of it committed (a full disk): 503, not 504
                    }
                    throw new JournalFailures.CommitBrokeOff(broken);
                }
                return new Written(rows.existingByEntry, rows.newJobs.size() + rows.logRows.size(), 0);
            } catch (RuntimeException | Error failure) {
                // nothing of a failed group may land: closing the session does not roll back (see above), and
                // its reset of the connection to auto-commit would commit what the group wrote so far
                try {
                    rollback(session, statements);
                } catch (RuntimeException suppressed) {
                    failure.addSuppressed(suppressed);
                }
                throw failure;
            }
        }
    }

    /** What one group writes. */
    private static final class GroupRows {
        final List<Job> newJobs = new ArrayList<>();
        final List<LogRow> logRows = new ArrayList<>();
        /** By job id, in id order (the row-lock order, as for the inserts). */
        final Map<String, JobUpdate> updates = new TreeMap<>();
        /** By identity: an entry's hashCode would hash every job in it, bodies and all. */
        final Map<WriteEntry, Set<String>> existingByEntry = new IdentityHashMap<>();
    }

    private GroupRows rowsOf(List<WriteEntry> batch, Set<String> existingAll) {
        GroupRows rows = new GroupRows();
        for (WriteEntry e : batch) {
            if (!e.created().isEmpty()) {
                // an id twice in one entry (a batch) is written once and is not "existing": its caller
                // tells the two apart; an id of an earlier entry or an earlier commit is existing
                Set<String> existing = null;
                Set<String> inEntry = e.created().size() > 1 ? new HashSet<>() : null;
                Set<String> withdrawn = e.withdrawn(); // async pushes Redis did not take, answered 503
                for (Job job : e.created()) {
                    if (inEntry != null && !inEntry.add(job.id()) || withdrawn.contains(job.id())) {
                        continue;
                    }
                    if (existingAll.add(job.id())) {
                        rows.newJobs.add(job);
                        rows.logRows.add(new LogRow(
                                job.id(),
                                JobEvent.CREATED,
                                null,
                                JobStatus.DELAY,
                                job.createTime(),
                                host,
                                e.worker(),
                                null));
                    } else {
                        existing = existing == null ? new HashSet<>() : existing;
                        existing.add(job.id());
                    }
                }
                if (existing != null) {
                    rows.existingByEntry.put(e, existing);
                }
            }
            for (Transition t : e.transitions()) {
                rows.logRows.add(
                        new LogRow(t.jobId(), t.event(), t.from(), t.to(), t.at(), host, e.worker(), t.detail()));
                if (t.event() != JobEvent.LOADED) {
                    // a load changes nothing of the row (it was DELAY, and stays so); writing DELAY could
                    // overwrite a transition of the job journaled just before it
                    rows.updates.merge(t.jobId(), update(t), GroupTransaction::fold);
                }
            }
        }
        return rows;
    }

    /**
     * Why commits cannot be kept now (SQLite's log or database file deleted or replaced under the journal, an fsync
     * failed: {@link WalSync#whyUnsound()}), or null.
     */
    String whyUnsound() {
        WalSync wal = walSync;
        return wal == null ? null : wal.whyUnsound();
    }

    /** Lets go of what forcing SQLite's log holds open (after the writers stopped). */
    void close() {
        WalSync wal = walSync;
        if (wal != null) {
            wal.close();
        }
    }

    /** Reads once whether commits leave SQLite's log to be forced by {@link WalSync}. */
    private void resolveWalSync(SqlSession session) {
        if (walResolved) {
            return;
        }
        try {
            Connection connection = session.getConnection();
            walSync = turns.dialect(connection) == JournalDialect.SQLITE ? WalSync.of(connection) : null;
            walResolved = true;
        } catch (SQLException e) {
            throw new PersistenceException("the journal database is unavailable: " + e.getMessage(), e);
        }
    }

    /**
     * Rolls back the group's transaction: by statement where {@link StatementTransaction} began it (the session
     * itself, in auto-commit, would do nothing).
     */
    private static void rollback(SqlSession session, boolean statements) {
        if (statements) {
            StatementTransaction.rollback(session.getConnection());
        } else {
            session.rollback(true);
        }
    }

    /** This writer's turn on a single-writer database (SQLite), taken before the group's first statement. */
    private WriterTurns.Turn takeTurn(SqlSession session) {
        try {
            return turns.take(session.getConnection());
        } catch (SQLException e) {
            throw new PersistenceException("the journal database is unavailable: " + e.getMessage(), e);
        }
    }

    /**
     * Makes a commit durable where the commit alone does not ({@link JournalDialect#forceToDisk}: H2). One per
     * group that a caller waits for, shared by every push in it.
     *
     * <p>A failure here comes after the commit: the rows are committed but perhaps not on disk, so the callers'
     * outcome is unknown, not refused.
     */
    private void forceToDisk(Connection connection) {
        try {
            turns.dialect(connection).forceToDisk(connection);
        } catch (SQLException e) {
            throw new DelayQueueException.OutcomeUnknown(
                    "the journal committed but could not force the commit to disk: " + e.getMessage(), e);
        }
    }

    private static Set<String> existing(JournalMapper mapper, List<Job> jobs) {
        Set<String> found = new HashSet<>();
        List<String> ids = jobs.stream().map(Job::id).toList();
        for (List<String> chunk : JournalMapper.chunksOf(ids)) {
            found.addAll(mapper.existingIds(chunk));
        }
        return found;
    }

    private static JobUpdate update(Transition t) {
        int delta = t.event() == JobEvent.TTR_EXPIRED && t.attempts() == null ? 1 : 0;
        return new JobUpdate(t.jobId(), t.to().name(), t.attempts(), delta, t.dueAt());
    }

    /**
     * Two transitions of one job in one commit: the later wins, attempts add up unless one sets them; but a final
     * state ({@code FINISHED}, {@code DELETED}) stays, as the update statements keep it against later commits. (A
     * reconciler pass can restore a job and journal its {@code RESTORED} just after a delete of it committed: in
     * one group the {@code RESTORED} came later and made a deleted job live again in the journal.)
     */
    private static JobUpdate fold(JobUpdate earlier, JobUpdate later) {
        if (isFinal(earlier.status()) || isReadyAfterReserved(earlier, later)) {
            return earlier;
        }
        Integer attempts = later.attempts() != null
                ? later.attempts()
                : earlier.attempts() != null ? Integer.valueOf(earlier.attempts() + later.attemptsDelta()) : null;
        int delta = later.attempts() != null || earlier.attempts() != null
                ? 0
                : earlier.attemptsDelta() + later.attemptsDelta();
        Long dueAt = later.dueAt() != null ? later.dueAt() : earlier.dueAt();
        return new JobUpdate(later.id(), later.status(), attempts, delta, dueAt);
    }

    /** A consumer's RESERVED journaled before the scanner's READY of the same move: the job is reserved (as above). */
    private static boolean isReadyAfterReserved(JobUpdate earlier, JobUpdate later) {
        return JobStatus.RESERVED.name().equals(earlier.status())
                && JobStatus.READY.name().equals(later.status())
                && later.attempts() == null
                && later.attemptsDelta() == 0;
    }

    private static boolean isFinal(String status) {
        return JobStatus.FINISHED.name().equals(status)
                || JobStatus.DELETED.name().equals(status);
    }
}
