package io.delayqueue.queue.journal.mybatis;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.journal.JobChange;
import io.delayqueue.queue.journal.JobCursor;
import io.delayqueue.queue.journal.JobQuery;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.journal.JournalEntry;
import io.delayqueue.queue.journal.JournalListener;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.journal.JournalSettings;
import io.delayqueue.queue.journal.PurgedRows;
import io.delayqueue.queue.journal.TopicCount;
import io.delayqueue.queue.journal.Transition;
import java.net.InetAddress;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.ibatis.exceptions.PersistenceException;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Journal} on MySQL/MariaDB, SQLite (the embedded default) or H2 in MySQL mode through MyBatis, with a
 * group-commit writer; what differs between them is in {@link JournalDialect}. This class
 * turns the journal's calls into {@link WriteEntry entries} and answers; the work is done by:
 *
 * <ul>
 *   <li>{@link JournalBacklog}: the queues of entries not settled yet, and the back-pressure on them;
 *   <li>{@link GroupCommitWriter}: the writer threads, which gather entries into groups and write the lagged
 *       ones again when the database is back;
 *   <li>{@link GroupCommit}: one group's commit, re-issued on a deadlock, split down to a refused entry, its
 *       entries answered;
 *   <li>{@link GroupTransaction}: the SQL of one group, in one transaction;
 *   <li>{@link JournalReads}: look-ups, pages, the reconciler's count, the shard backfill and retention's purge.
 * </ul>
 *
 * <p>Writer threads own the writes: new jobs go to a queue served by {@code createWriters} threads (while one
 * waits for its commit to reach the disk, another gathers the next group), transitions to a queue served by
 * one thread, so that each job's transitions commit in order. A job's transitions cannot overtake its
 * creation: in sync mode they only happen once the job is in Redis, which is after its row committed, and
 * in async mode creations queue with the transitions. Callers put entries on a queue; a writer takes everything
 * that has accumulated (while the previous commit ran, or, when only lagged entries wait, for up to a quarter of
 * the lag) and writes it in ONE transaction of multi-row statements. So a thousand concurrent pushes cost a
 * handful of commits, not a thousand: durability without a per-row commit ceiling. Sync callers wait for
 * their entry's commit; lagged entries that fail are kept and written again, in order, once the database
 * answers, and flushed on {@link #close()}.
 *
 * <p>Each caller's rows are an entry of their own, and the database refusing a row (data too long, say) fails
 * only the entry it belongs to: the group is split until the entry at fault is found, and the rest is written.
 * The backlog is bounded by {@code queueCapacity} rows and {@code queueCapacityBytes} bytes: over either, nobody
 * waits: pushes and deletes are refused (503) and lagged transitions are not journaled (Redis holds their jobs'
 * state; see {@link JournalBacklog}), so that memory stays bounded during an outage and no thread is held. In async
 * mode a push's new jobs are held back from the writer until its caller said which of them Redis did not take
 * ({@link Journal.PendingCreate#release}): those are never written. A sync caller that times out gets 503 when no writer had taken its entry (it is then never written) and 504
 * when a commit of it was under way (it may still land).
 *
 * <p>Two persistence styles, on purpose. The journal's style is MyBatis ({@link JournalMapper}): the SQL is
 * declared beside its parameters, rows map onto {@link JobRow} and {@link LogRow}, and the IN lists and optional
 * columns are dynamic SQL. The one exception is the two inserts of a group commit (new jobs and log rows, most of
 * the rows the journal writes), which are plain JDBC batches bound by hand ({@link RowInserts}) on the session's
 * connection, in its transaction: through the mapper, MyBatis builds a statement handler and looks every property
 * up by reflection per row. Measured with {@code bin/bench-journal 100000 128} (async and sync, two runs each on a
 * busy two-core machine), the mapper's inserts took 93 to 121 us of JVM CPU per job against 62 to 94 us for the
 * JDBC batches (about a third more), and sync throughput dropped with them. The other statements write few rows
 * each (updates by id or by IN list) or none, so writing them by hand would add code for no measurable gain.
 * Either way the driver receives the same batches.
 *
 * <p>Threading: {@code record*} and {@code start*} methods are safe from any thread; reads use their own sessions.
 */
public final class MyBatisJournal implements Journal {
    private static final Logger log = LoggerFactory.getLogger(MyBatisJournal.class);
    /** The detail a consumer's transition is counted with when its room is taken (theirs are shorter). */
    private static final int ROOM_DETAIL_CHARS = 64;

    private final JournalMode mode;
    private final long commitTimeoutMs;
    private final JournalBacklog backlog;
    private final GroupTransaction group;
    private final GroupCommit commit;
    private final GroupCommitWriter writer;
    private final JournalReads reads;
    /** What {@link #rehearsal()} shares: the sessions, the settings, the shard count, the clock, the writers' turns. */
    private final SqlSessionFactory sessions;

    private final JournalSettings settings;
    private final int shards;
    private final Clock clock;
    private final WriterTurns turns;
    /** A rehearsal's journal: its groups are rolled back, its reads find nothing ({@link #rehearsal()}). */
    private final boolean rehearsal;

    /** @param shards the queue's shard count ({@code delay.shards}): each row records its job's shard */
    public MyBatisJournal(SqlSessionFactory sessions, JournalSettings settings, int shards, Clock clock) {
        this(sessions, settings, shards, clock, new WriterTurns(), false);
    }

    private MyBatisJournal(
            SqlSessionFactory sessions,
            JournalSettings settings,
            int shards,
            Clock clock,
            WriterTurns turns,
            boolean rehearsal) {
        if (settings.mode() == JournalMode.OFF) {
            throw new IllegalArgumentException("journal mode off needs no MyBatisJournal; use Journal.NONE");
        }
        if (shards < 1) {
            throw new IllegalArgumentException("shards must be at least 1");
        }
        this.mode = settings.mode();
        this.commitTimeoutMs = settings.commitTimeout().toMillis();
        if (!sessions.getConfiguration().hasMapper(JournalMapper.class)) {
            sessions.getConfiguration().addMapper(JournalMapper.class);
        }
        if (mode == JournalMode.SYNC && !rehearsal) {
            checkDurableCommits(sessions);
        }
        this.sessions = sessions;
        this.settings = settings;
        this.shards = shards;
        this.clock = clock;
        this.turns = turns;
        this.rehearsal = rehearsal;
        this.reads = new JournalReads(sessions, turns, shards);
        this.backlog = new JournalBacklog(clock, settings.queueCapacity(), settings.queueCapacityBytes());
        this.group = new GroupTransaction(sessions, turns, shards, truncated(hostName(), 255), clock, rehearsal);
        this.commit = new GroupCommit(group, backlog);
        this.writer = new GroupCommitWriter(
                backlog,
                commit,
                clock,
                settings.lag().toMillis(),
                settings.maxRowsPerCommit(),
                settings.createWriters(),
                commitTimeoutMs);
    }

    /**
     * A journal for a rehearsal of the queue (the start-up warm-up): the same writers, statements and database as this
     * one, with this one's settings, but every group it writes is rolled back instead of committed (nothing is forced
     * to disk), and every read answers as an empty journal does. So an engine on it runs the journal's whole write
     * path and never sees, nor leaves, a row: no restore, reconciler, tier loader or fail-over replay of it can pick
     * up a real job. On SQLite it takes its turns with this journal's writers. Close it apart from this one.
     */
    public MyBatisJournal rehearsal() {
        return new MyBatisJournal(sessions, settings, shards, clock, turns, true);
    }

    /** Whether this is a {@link #rehearsal()}'s journal. */
    public boolean rollsBack() {
        return rehearsal;
    }

    @Override
    public JournalMode mode() {
        return mode;
    }

    public long commits() {
        return commit.commits();
    }

    /** Nanoseconds spent writing and committing groups, over {@link #commits()} groups. */
    public long commitNanos() {
        return commit.commitNanos();
    }

    public long rowsWritten() {
        return commit.rowsWritten();
    }

    /** Commits rolled back by a deadlock, a lock wait timeout or a duplicate id, and written again. */
    public long transientFailures() {
        return commit.transientFailures();
    }

    /** Lagged entries the database refused on their own (logged, not written): each one a bug to look into. */
    public long refusedEntries() {
        return commit.refusedEntries();
    }

    @Override
    public Set<String> recordCreated(List<Job> jobs) {
        return startCreated(jobs).await(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(commitTimeoutMs));
    }

    @Override
    public PendingCreate startCreated(List<Job> jobs) {
        return startCreatedGroups(List.of(jobs)).get(0);
    }

    /**
     * One entry for every group, so that a combined round takes one place in the queue and one commit; each
     * group still gets its own answer (a refused row fails only its group).
     */
    @Override
    public List<PendingCreate> startCreatedGroups(List<List<Job>> groups) {
        List<Job> all = new ArrayList<>();
        List<List<Job>> copies = new ArrayList<>(groups.size());
        for (List<Job> group : groups) {
            List<Job> copy = List.copyOf(group);
            copies.add(copy);
            all.addAll(copy);
        }
        List<PendingCreate> pending = new ArrayList<>(groups.size());
        if (all.isEmpty()) {
            for (int g = 0; g < groups.size(); g++) {
                pending.add(deadline -> Set.of());
            }
            return pending;
        }
        boolean durable = mode == JournalMode.SYNC;
        // async: held until each caller says which of its jobs Redis did not take (those are never written)
        WriteEntry entry = new WriteEntry(
                List.copyOf(all),
                List.copyOf(copies),
                List.of(),
                worker(),
                durable ? new CompletableFuture<>() : null,
                !durable);
        RuntimeException refused = null;
        try {
            backlog.enqueue(entry);
        } catch (RuntimeException e) {
            refused = e;
        }
        for (int g = 0; g < groups.size(); g++) {
            int group = g;
            if (refused != null) {
                RuntimeException cause = refused;
                pending.add(deadline -> {
                    throw JournalFailures.forOneCaller(cause);
                });
            } else if (durable) {
                pending.add(deadline -> entry.await(group, deadline, commitTimeoutMs));
            } else {
                pending.add(new PendingCreate() {
                    @Override
                    public Set<String> await(long deadlineNanos) {
                        return Set.of();
                    }

                    @Override
                    public boolean release(Set<String> notStored) {
                        return entry.release(notStored);
                    }
                });
            }
        }
        return pending;
    }

    @Override
    public Duration commitTimeout() {
        return Duration.ofMillis(commitTimeoutMs);
    }

    @Override
    public void recordTransitions(List<Transition> transitions) {
        if (!transitions.isEmpty()) {
            backlog.enqueue(new WriteEntry(List.of(), List.copyOf(transitions), worker(), null));
        }
    }

    @Override
    public void recordTransitionsDurably(List<Transition> transitions) {
        if (transitions.isEmpty()) {
            return;
        }
        boolean durable = mode == JournalMode.SYNC;
        // async: lagged, but refused (not dropped) when the backlog has no room for them
        WriteEntry entry = durable
                ? new WriteEntry(List.of(), List.copyOf(transitions), worker(), new CompletableFuture<>())
                : WriteEntry.answered(List.copyOf(transitions), worker());
        backlog.enqueue(entry);
        if (durable) {
            entry.await(0, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(commitTimeoutMs), commitTimeoutMs);
        }
    }

    @Override
    public long queueCapacityRows() {
        return settings.queueCapacity();
    }

    /** Rows handed to the writers and not settled yet (written, failed, or given up by their callers). */
    @Override
    public long queuedRows() {
        return backlog.queuedRows();
    }

    /** Rows of lagged transitions not journaled because the backlog was full, since start. */
    @Override
    public long droppedRows() {
        return backlog.droppedRows();
    }

    /**
     * Room for a consumer's call, taken before it changes Redis (503 when there is none): each transition counted at
     * two rows and its object with a detail of {@link #ROOM_DETAIL_CHARS} characters; what the call records replaces
     * it.
     */
    @Override
    public Room takeRoom(int transitions) {
        JournalBacklog.Room room =
                backlog.takeRoom(transitions * 2, transitions * WriteEntry.transitionBytes(ROOM_DETAIL_CHARS));
        return new Room() {
            @Override
            public void record(List<Transition> recorded) {
                if (recorded.isEmpty()) {
                    backlog.giveBack(room);
                } else {
                    backlog.enqueue(WriteEntry.answered(List.copyOf(recorded), worker()), room);
                }
            }

            @Override
            public void close() {
                backlog.giveBack(room);
            }
        };
    }

    /** The age of the oldest entry not settled yet, queued or held by a writer. */
    @Override
    public long lagMillis() {
        return writer.lagMillis();
    }

    @Override
    public boolean awaitWritten(long queuedByMs, Duration timeout) throws InterruptedException {
        return writer.awaitWritten(queuedByMs, timeout);
    }

    @Override
    public void setListener(JournalListener listener) {
        commit.setListener(listener);
    }

    // ---- reads (a rehearsal's find nothing: it must never see a real job) ----

    @Override
    public Optional<Job> find(String id) {
        return rehearsal ? Optional.empty() : reads.find(id);
    }

    @Override
    public Map<String, Job> findAll(Collection<String> ids) {
        return rehearsal ? Map.of() : reads.findAll(ids);
    }

    @Override
    public List<JournalEntry> history(String id) {
        return rehearsal ? List.of() : reads.history(id);
    }

    @Override
    public List<Job> page(JobStatus status, JobCursor after, long dueBefore, int limit) {
        return rehearsal ? List.of() : reads.page(status, after, dueBefore, limit);
    }

    @Override
    public List<JobChange> changedSince(JobStatus status, long since, JobCursor after, int limit) {
        return rehearsal ? List.of() : reads.changedSince(status, since, after, limit);
    }

    @Override
    public List<Job> browse(JobQuery query) {
        return rehearsal ? List.of() : reads.browse(query);
    }

    @Override
    public Map<String, String> lastErrors(Collection<String> ids) {
        return rehearsal ? Map.of() : reads.lastErrors(ids);
    }

    @Override
    public List<TopicCount> countByTopic() {
        return rehearsal ? List.of() : reads.countByTopic();
    }

    @Override
    public PurgedRows purgeFinished(long updatedBefore, int limit) {
        return rehearsal ? PurgedRows.NONE : reads.purgeFinished(updatedBefore, limit);
    }

    @Override
    public List<JobCursor> delayedKeysOfShard(int shard, JobCursor after, long dueAtMost, int limit) {
        return rehearsal ? List.of() : reads.delayedKeysOfShard(shard, after, dueAtMost, limit);
    }

    @Override
    public long countDelayedDueAfter(long dueAfter) {
        return rehearsal ? 0 : reads.countDelayedDueAfter(dueAfter);
    }

    @Override
    public int assignMissingShards(int limit) {
        return rehearsal ? 0 : reads.assignMissingShards(limit);
    }

    /** The writers have 10 s from now to write what they hold ({@link GroupCommitWriter#CLOSE_BOUND}). */
    @Override
    public void startClosing() {
        writer.startClosing();
    }

    /**
     * Stops taking entries and lets the writers flush what is queued until 10 s after {@link #startClosing} (or after
     * this call, without one), whatever the database does.
     */
    @Override
    public void close() {
        writer.close();
        group.close();
    }

    /** Why the embedded journal cannot keep its commits now ({@link WalSync#whyUnsound()}); empty when it can. */
    @Override
    public Optional<String> unsound() {
        return Optional.ofNullable(group.whyUnsound());
    }

    /**
     * Refuses to start on a database whose commits this user cannot make durable ({@link
     * JournalDialect#checkForceToDisk}: H2 with a user that is not an admin). A database that cannot be reached now
     * is left to the writers, which report it on every push.
     */
    private static void checkDurableCommits(SqlSessionFactory sessions) {
        try (SqlSession session = sessions.openSession()) {
            Connection connection = session.getConnection();
            JournalDialect.of(connection).checkForceToDisk(connection);
        } catch (SQLException | PersistenceException unreachable) {
            log.warn("could not check the journal database at start-up: {}", unreachable.toString());
        }
    }

    /** The thread's name, as long as the log's {@code worker} column takes. */
    private static String worker() {
        return truncated(Thread.currentThread().getName(), 64);
    }

    private static String truncated(String s, int length) {
        return s.length() <= length ? s : s.substring(0, length);
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "unknown";
        }
    }
}
