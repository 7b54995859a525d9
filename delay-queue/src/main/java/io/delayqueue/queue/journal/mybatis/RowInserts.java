package io.delayqueue.queue.journal.mybatis;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobIds;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.List;
import org.apache.ibatis.exceptions.PersistenceException;

/**
 * The two inserts of a group commit (new jobs, log rows), bound by hand as one JDBC batch each on the
 * session's connection, in its transaction. They are most of a group's rows: MyBatis's parameter mapping
 * (a statement handler and a reflective look-up per property per row) adds about a third to the JVM CPU per job
 * (measured in {@link MyBatisJournal}'s Javadoc). The driver turns each batch into its bulk or
 * multi-row form as the mapper's BATCH session would. Every other statement of the journal goes through
 * {@link JournalMapper}, the journal's one other style.
 */
final class RowInserts {
    static final String INSERT_JOB = "INSERT INTO delay_queue_job (id, topic, subtopic, biz_key, body, ttr,"
            + " max_attempts, url, priority, status, attempts, due_at, create_time, update_time, version, shard)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?)";
    static final String INSERT_LOG_ROW = "INSERT INTO delay_queue_job_log (job_id, event, from_status, to_status,"
            + " event_time, host, worker, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";

    private RowInserts() {}

    /**
     * Inserts {@code jobs}, each with its shard among {@code shards} (which the tier loader reads by); no IGNORE:
     * an id that exists fails the group, which is written again.
     */
    static void insertJobs(Connection connection, List<Job> jobs, int shards) {
        insertAll(connection, INSERT_JOB, jobs, "jobs", (insert, job) -> {
            insert.setString(1, job.id());
            insert.setString(2, job.topic());
            setNullable(insert, 3, job.subtopic());
            setNullable(insert, 4, job.bizKey());
            insert.setString(5, job.body());
            insert.setLong(6, job.ttr());
            insert.setInt(7, job.maxAttempts());
            setNullable(insert, 8, job.url());
            insert.setInt(9, job.priority());
            insert.setString(10, job.status().name());
            insert.setInt(11, job.attempts());
            insert.setLong(12, job.executeAt());
            insert.setLong(13, job.createTime());
            insert.setLong(14, job.createTime());
            insert.setInt(15, JobIds.shardOf(job.id(), shards));
        });
    }

    static void insertLogRows(Connection connection, List<LogRow> rows) {
        insertAll(connection, INSERT_LOG_ROW, rows, "log rows", (insert, row) -> {
            insert.setString(1, row.getJobId());
            insert.setString(2, row.getEvent());
            setNullable(insert, 3, row.getFromStatus());
            insert.setString(4, row.getToStatus());
            insert.setLong(5, row.getEventTime());
            setNullable(insert, 6, row.getHost());
            setNullable(insert, 7, row.getWorker());
            setNullable(insert, 8, row.getDetail());
        });
    }

    /** Sets the parameters of one row. */
    @FunctionalInterface
    private interface Binder<T> {
        void bind(PreparedStatement insert, T row) throws SQLException;
    }

    private static <T> void insertAll(Connection connection, String sql, List<T> rows, String what, Binder<T> binder) {
        if (rows.isEmpty()) {
            return;
        }
        try (PreparedStatement insert = connection.prepareStatement(sql)) {
            for (T row : rows) {
                binder.bind(insert, row);
                insert.addBatch();
            }
            insert.executeBatch();
        } catch (SQLException e) {
            throw new PersistenceException("inserting " + rows.size() + " " + what + " failed: " + e.getMessage(), e);
        }
    }

    private static void setNullable(PreparedStatement statement, int index, String value) throws SQLException {
        if (value == null) {
            statement.setNull(index, Types.VARCHAR);
        } else {
            statement.setString(index, value);
        }
    }
}
