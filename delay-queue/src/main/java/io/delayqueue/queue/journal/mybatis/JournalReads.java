package io.delayqueue.queue.journal.mybatis;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.Job;
import io.delayqueue.common.JobIds;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.journal.JobChange;
import io.delayqueue.queue.journal.JobCursor;
import io.delayqueue.queue.journal.JobEvent;
import io.delayqueue.queue.journal.JobHistory;
import io.delayqueue.queue.journal.JobQuery;
import io.delayqueue.queue.journal.JournalEntry;
import io.delayqueue.queue.journal.PurgedRows;
import io.delayqueue.queue.journal.TopicCount;
import io.delayqueue.queue.journal.Transition;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.ibatis.exceptions.PersistenceException;
import org.apache.ibatis.session.ExecutorType;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;
import org.apache.ibatis.session.TransactionIsolationLevel;

/**
 * Everything of the journal but the group commits: look-ups, restore and tier pages, the reconciler's count,
 * the shard backfill and retention's purge. Each call opens a session (connection) of its own, apart from the
 * writers, and turns a database failure into {@link DelayQueueException.Unavailable}. The purge and the backfill
 * write: on SQLite they take their turn among the writers ({@link WriterTurns}).
 *
 * <p>Threading: stateless; safe from any thread.
 */
final class JournalReads {
    private final SqlSessionFactory sessions;
    private final WriterTurns turns;
    private final int shards;

    JournalReads(SqlSessionFactory sessions, WriterTurns turns, int shards) {
        this.sessions = sessions;
        this.turns = turns;
        this.shards = shards;
    }

    Optional<Job> find(String id) {
        return read(m -> Optional.ofNullable(m.find(id)).map(JobRow::toJob));
    }

    /** The columns {@link #findAll} reads, in the order {@link #jobOf} takes them. */
    private static final String FIND_ALL_COLUMNS = "SELECT id, topic, subtopic, biz_key, body, ttr, max_attempts, url,"
            + " priority, status, attempts, due_at, create_time FROM delay_queue_job WHERE id IN (";

    /**
     * One statement per {@link JournalMapper#chunksOf chunk} of ids, on one connection, bound and read by hand: as a
     * MyBatis {@code <foreach>} IN list the statement's dynamic SQL (an OGNL evaluation and a parameter mapping per
     * id) and the bean mapping per row cost about 37 µs a job, most of the fail-over replay's put-back of 50,000 jobs.
     */
    Map<String, Job> findAll(Collection<String> ids) {
        if (ids.isEmpty()) {
            return Map.of();
        }
        try (SqlSession session = sessions.openSession(true)) {
            Connection connection = session.getConnection();
            Map<String, Job> found = new HashMap<>();
            for (List<String> chunk : JournalMapper.chunksOf(List.copyOf(ids))) {
                String sql = FIND_ALL_COLUMNS + "?,".repeat(chunk.size() - 1) + "?)";
                try (PreparedStatement select = connection.prepareStatement(sql)) {
                    for (int i = 0; i < chunk.size(); i++) {
                        select.setString(i + 1, chunk.get(i));
                    }
                    try (ResultSet rows = select.executeQuery()) {
                        while (rows.next()) {
                            Job job = jobOf(rows);
                            found.put(job.id(), job);
                        }
                    }
                }
            }
            return found;
        } catch (SQLException e) {
            throw unavailable(new PersistenceException("reading " + ids.size() + " jobs failed: " + e.getMessage(), e));
        } catch (RuntimeException e) {
            throw unavailable(e);
        }
    }

    /** A row of {@link #FIND_ALL_COLUMNS}, as {@link JobRow#toJob} maps one. */
    private static Job jobOf(ResultSet row) throws SQLException {
        return new Job(
                row.getString(1),
                row.getString(2),
                row.getString(3),
                row.getString(4),
                row.getString(5),
                row.getLong(12),
                row.getLong(6),
                row.getInt(7),
                row.getString(8),
                row.getInt(9),
                row.getLong(13),
                JobStatus.valueOf(row.getString(10)),
                row.getInt(11));
    }

    List<JournalEntry> history(String id) {
        return JobHistory.inOrder(
                read(m -> m.history(id).stream().map(LogRow::toEntry).toList()));
    }

    List<Job> page(JobStatus status, JobCursor after, long dueBefore, int limit) {
        return read(m -> m.page(status.name(), after.dueAt(), after.id(), dueBefore, limit).stream()
                .map(JobRow::toJob)
                .toList());
    }

    List<JobChange> changedSince(JobStatus status, long since, JobCursor after, int limit) {
        return read(m -> {
            List<String> rows = new ArrayList<>();
            long time = Math.max(since - 1, after.dueAt());
            if (after.dueAt() >= since) {
                rows.addAll(m.changedAt(status.name(), after.dueAt(), after.id(), limit));
            }
            if (rows.size() < limit) {
                rows.addAll(m.changedAfter(status.name(), time, limit - rows.size()));
            }
            return rows.stream().map(row -> JobChange.parse(status, row)).toList();
        });
    }

    List<Job> browse(JobQuery query) {
        boolean newest = query.order() == JobQuery.Order.NEWEST;
        JobCursor after = query.after();
        long afterValue = after != null ? after.dueAt() : newest ? Long.MAX_VALUE : Long.MIN_VALUE;
        // no job was created at Long.MAX_VALUE nor is due at Long.MIN_VALUE: the first page needs no id bound
        String afterId = after != null ? after.id() : "";
        return read(
                m -> m.browse(query.status().name(), query.topic(), newest, afterValue, afterId, query.limit()).stream()
                        .map(JobRow::toJob)
                        .toList());
    }

    /**
     * The error events, latest last per job: the latest wins, but a death that only says the attempts ran out
     * ({@link Transition#MAX_ATTEMPTS_REACHED}) is a job's error only when nothing before it says more.
     */
    Map<String, String> lastErrors(Collection<String> ids) {
        Map<String, String> errors = new HashMap<>();
        if (ids.isEmpty()) {
            return errors;
        }
        read(m -> {
            for (List<String> chunk : JournalMapper.chunksOf(List.copyOf(ids))) {
                for (LogRow row : m.errorRows(chunk)) {
                    boolean bareDeath = JobEvent.DEAD.name().equals(row.getEvent())
                            && (row.getDetail() == null || Transition.MAX_ATTEMPTS_REACHED.equals(row.getDetail()));
                    if (!bareDeath || errors.get(row.getJobId()) == null) {
                        errors.put(row.getJobId(), row.getDetail());
                    }
                }
            }
            return null;
        });
        errors.values().removeIf(Objects::isNull);
        return errors;
    }

    List<TopicCount> countByTopic() {
        return read(m -> m.countByTopic().stream().map(TopicCountRow::toCount).toList());
    }

    /**
     * One batch of retention, apart from the writers, on a connection of its own: select the batch (a plain read),
     * then in one READ COMMITTED transaction delete those jobs guarded again by status and update time, and the
     * log rows of exactly the jobs deleted. A job that changed since the select stays with its history; one that
     * was deleted stays locked until the commit, so nothing can write its id meanwhile. The transaction touches
     * about four rows per job, by key, so its locks are few and held for milliseconds.
     */
    PurgedRows purgeFinished(long updatedBefore, int limit) {
        try (SqlSession session = sessions.openSession(ExecutorType.SIMPLE, TransactionIsolationLevel.READ_COMMITTED);
                WriterTurns.Turn turn = takeTurn(session)) {
            try {
                JournalMapper mapper = session.getMapper(JournalMapper.class);
                // one status at a time: an equality and a range on the index (H2 answers an IN list over it with
                // LIMIT with some rows twice)
                List<String> ids = new ArrayList<>(mapper.purgeable(JobStatus.FINISHED.name(), updatedBefore, limit));
                if (ids.size() < limit) {
                    ids.addAll(mapper.purgeable(JobStatus.DELETED.name(), updatedBefore, limit - ids.size()));
                }
                if (ids.isEmpty()) {
                    return PurgedRows.NONE;
                }
                int jobs = mapper.deletePurgeable(ids, updatedBefore);
                List<String> deleted = ids;
                if (jobs < ids.size()) {
                    // some changed since the select: those are still there (and, the deleted ones being locked by
                    // this transaction, nothing else can be)
                    Set<String> stayed = new HashSet<>(mapper.existingIds(ids));
                    deleted = ids.stream().filter(id -> !stayed.contains(id)).toList();
                }
                int logRows = deleted.isEmpty() ? 0 : mapper.deleteLogRows(deleted);
                session.commit(true);
                return new PurgedRows(ids.size(), jobs, logRows);
            } catch (RuntimeException failure) {
                try {
                    session.rollback(true);
                } catch (RuntimeException suppressed) {
                    failure.addSuppressed(suppressed);
                }
                throw failure;
            }
        } catch (RuntimeException e) {
            throw unavailable(e);
        }
    }

    List<JobCursor> delayedKeysOfShard(int shard, JobCursor after, long dueAtMost, int limit) {
        return read(m -> m.delayedKeysOfShard(shard, after.dueAt(), after.id(), dueAtMost, limit).stream()
                .map(JournalReads::key)
                .toList());
    }

    /** A key as {@link JournalMapper#delayedKeysOfShard} reads it: {@code due|id}. */
    private static JobCursor key(String dueAndId) {
        int bar = dueAndId.indexOf('|');
        return new JobCursor(Long.parseLong(dueAndId.substring(0, bar)), dueAndId.substring(bar + 1));
    }

    long countDelayedDueAfter(long dueAfter) {
        return read(m -> m.countDelayedDueAfter(dueAfter));
    }

    /**
     * Reads the ids of up to {@code limit} rows without a shard, then sets it per shard with {@code ... WHERE shard
     * IS NULL AND id IN (...)} (auto-committed statements of at most {@link JournalMapper#IDS_PER_STATEMENT} ids:
     * short row locks, no long transaction beside the pushes). Two instances running it at once write the same
     * values.
     */
    int assignMissingShards(int limit) {
        return write(m -> {
            List<String> ids = m.idsWithoutShard(limit);
            Map<Integer, List<String>> byShard = new TreeMap<>();
            for (String id : ids) {
                byShard.computeIfAbsent(JobIds.shardOf(id, shards), k -> new ArrayList<>())
                        .add(id);
            }
            for (var entry : byShard.entrySet()) {
                for (List<String> chunk : JournalMapper.chunksOf(entry.getValue())) {
                    m.assignShard(entry.getKey(), chunk);
                }
            }
            return ids.size();
        });
    }

    private <T> T read(Function<JournalMapper, T> query) {
        try (SqlSession session = sessions.openSession(true)) {
            return query.apply(session.getMapper(JournalMapper.class));
        } catch (RuntimeException e) {
            throw unavailable(e);
        }
    }

    /** As {@link #read}, for auto-committed writes: in this writer's turn on SQLite ({@link WriterTurns}). */
    private <T> T write(Function<JournalMapper, T> statements) {
        try (SqlSession session = sessions.openSession(true);
                WriterTurns.Turn turn = takeTurn(session)) {
            return statements.apply(session.getMapper(JournalMapper.class));
        } catch (RuntimeException e) {
            throw unavailable(e);
        }
    }

    private WriterTurns.Turn takeTurn(SqlSession session) {
        try {
            return turns.take(session.getConnection());
        } catch (SQLException e) {
            throw new PersistenceException(e.getMessage(), e);
        }
    }

    private static DelayQueueException.Unavailable unavailable(RuntimeException e) {
        return new DelayQueueException.Unavailable(
                "the journal database is unavailable: " + JournalFailures.rootMessage(e), e);
    }
}
