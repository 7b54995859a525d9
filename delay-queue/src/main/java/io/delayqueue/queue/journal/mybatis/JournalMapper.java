package io.delayqueue.queue.journal.mybatis;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.ibatis.annotations.Delete;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;
import org.apache.ibatis.annotations.Update;

/**
 * SQL of the journal but a group commit's inserts and updates ({@link RowInserts}, {@link RowUpdates}). Portable
 * between MySQL/MariaDB, SQLite and H2 in MySQL mode. Writes are batched (one round trip per statement for a whole
 * group commit); reads are keyset pages over the {@code (status, due_at)} index.
 * Final states ({@code FINISHED}, {@code DELETED}) are never overwritten, whatever order transitions of
 * several instances arrive in.
 */
public interface JournalMapper {

    /** Ids per IN list. */
    int IDS_PER_STATEMENT = 1000;

    /** {@code ids} in lists of at most {@link #IDS_PER_STATEMENT}, for the statements that take an IN list. */
    static <T> List<List<T>> chunksOf(List<T> ids) {
        List<List<T>> chunks = new ArrayList<>();
        for (int i = 0; i < ids.size(); i += IDS_PER_STATEMENT) {
            chunks.add(ids.subList(i, Math.min(ids.size(), i + IDS_PER_STATEMENT)));
        }
        return chunks;
    }

    String JOB_COLUMNS = "id, topic, subtopic, biz_key AS bizKey, body, ttr, max_attempts AS maxAttempts, url,"
            + " priority, status, attempts, due_at AS dueAt, create_time AS createTime";

    @Select("<script>SELECT id FROM delay_queue_job WHERE id IN"
            + "<foreach item='id' collection='ids' open='(' separator=',' close=')'>#{id}</foreach></script>")
    List<String> existingIds(@Param("ids") Collection<String> ids);

    @Select("SELECT " + JOB_COLUMNS + " FROM delay_queue_job WHERE id = #{id}")
    JobRow find(@Param("id") String id);

    @Select(
            "SELECT job_id AS jobId, event, from_status AS fromStatus, to_status AS toStatus,"
                    + " event_time AS eventTime, host, worker, detail FROM delay_queue_job_log WHERE job_id = #{id} ORDER BY id")
    List<LogRow> history(@Param("id") String id);

    @Select("SELECT " + JOB_COLUMNS + " FROM delay_queue_job WHERE status = #{status} AND due_at < #{before}"
            + " AND (due_at > #{afterDue} OR (due_at = #{afterDue} AND id > #{afterId}))"
            + " ORDER BY due_at, id LIMIT #{limit}")
    List<JobRow> page(
            @Param("status") String status,
            @Param("afterDue") long afterDue,
            @Param("afterId") String afterId,
            @Param("before") long before,
            @Param("limit") int limit);

    /**
     * Final jobs of one status for retention's purge: up to {@code limit} over the {@code (status, update_time)} index. A plain
     * (consistent, non-locking) read: the purge's delete locks only the rows it deletes, by primary key, and a
     * locking read here would lock whatever index records the plan walks past (on InnoDB: rows pushes update).
     */
    @Select("SELECT id FROM delay_queue_job WHERE status = #{status} AND update_time < #{before} LIMIT #{limit}")
    List<String> purgeable(@Param("status") String status, @Param("before") long before, @Param("limit") int limit);

    /** Guarded as {@link #purgeable} selected them: a row that changed meanwhile stays. */
    @Delete("<script>DELETE FROM delay_queue_job WHERE id IN"
            + "<foreach item='id' collection='ids' open='(' separator=',' close=')'>#{id}</foreach>"
            + " AND status IN ('FINISHED', 'DELETED') AND update_time &lt; #{before}</script>")
    int deletePurgeable(@Param("ids") Collection<String> ids, @Param("before") long before);

    @Delete("<script>DELETE FROM delay_queue_job_log WHERE job_id IN"
            + "<foreach item='id' collection='ids' open='(' separator=',' close=')'>#{id}</foreach></script>")
    int deleteLogRows(@Param("ids") Collection<String> ids);
    /**
     * The tier loader's page: the keys of rows strictly after the cursor, from the {@code (shard, status, due_at,
     * id)} index alone, each as one string {@code due|id}: a single column read as a string skips MyBatis' row
     * mapping, which was most of the cost of this read (a page per pass holds every job pushed near the horizon).
     */
    /**
     * The fail-over replay's page, in two statements that each follow the {@code (status, update_time)} index (InnoDB
     * keeps the primary key after it): the rest of one update time after an id, then the update times after it. (One
     * statement with {@code update_time > t OR (update_time = t AND id > i)} scans every row of time {@code t} again
     * for each page.) Each row one column, {@code update_time|attempts|due_at|ttr|topic|id}, read as a string,
     * without MyBatis' per-row bean mapping.
     */
    @Select("SELECT CONCAT(update_time, '|', attempts, '|', due_at, '|', ttr, '|', topic, '|', id) FROM delay_queue_job"
            + " WHERE status = #{status} AND update_time = #{time} AND id > #{afterId} ORDER BY id LIMIT #{limit}")
    List<String> changedAt(
            @Param("status") String status,
            @Param("time") long time,
            @Param("afterId") String afterId,
            @Param("limit") int limit);

    /** The second statement of {@link #changedAt}'s walk: the rows of the update times after {@code after}. */
    @Select("SELECT CONCAT(update_time, '|', attempts, '|', due_at, '|', ttr, '|', topic, '|', id) FROM delay_queue_job"
            + " WHERE status = #{status} AND update_time > #{after} ORDER BY update_time, id LIMIT #{limit}")
    List<String> changedAfter(@Param("status") String status, @Param("after") long after, @Param("limit") int limit);

    @Select("SELECT CONCAT(due_at, '|', id) FROM delay_queue_job WHERE shard = #{shard} AND status = 'DELAY'"
            + " AND due_at <= #{upTo} AND (due_at > #{afterDue} OR (due_at = #{afterDue} AND id > #{afterId}))"
            + " ORDER BY due_at, id LIMIT #{limit}")
    List<String> delayedKeysOfShard(
            @Param("shard") int shard,
            @Param("afterDue") long afterDue,
            @Param("afterId") String afterId,
            @Param("upTo") long upTo,
            @Param("limit") int limit);

    /**
     * The console's page: one status (and topic), keyset after the cursor; soonest due first over the {@code
     * (status, due_at)} index, or newest first over the {@code (status, create_time, id)} one.
     */
    @Select("<script>SELECT " + JOB_COLUMNS + " FROM delay_queue_job WHERE status = #{status}"
            + "<if test='topic != null'> AND topic = #{topic}</if>"
            + "<choose><when test='newest'>"
            + " AND (create_time &lt; #{afterValue} OR (create_time = #{afterValue} AND id &lt; #{afterId}))"
            + " ORDER BY create_time DESC, id DESC</when>"
            + "<otherwise> AND (due_at &gt; #{afterValue} OR (due_at = #{afterValue} AND id &gt; #{afterId}))"
            + " ORDER BY due_at, id</otherwise></choose> LIMIT #{limit}</script>")
    List<JobRow> browse(
            @Param("status") String status,
            @Param("topic") String topic,
            @Param("newest") boolean newest,
            @Param("afterValue") long afterValue,
            @Param("afterId") String afterId,
            @Param("limit") int limit);

    /** The log rows that say why jobs failed, oldest first, over the {@code (job_id, id)} index. */
    @Select("<script>SELECT job_id AS jobId, event, from_status AS fromStatus, to_status AS toStatus,"
            + " event_time AS eventTime, host, worker, detail FROM delay_queue_job_log WHERE job_id IN"
            + "<foreach item='id' collection='ids' open='(' separator=',' close=')'>#{id}</foreach>"
            + " AND event IN ('RETRIED', 'TTR_EXPIRED', 'DEFERRED', 'DEAD') ORDER BY id</script>")
    List<LogRow> errorRows(@Param("ids") Collection<String> ids);

    @Select("SELECT topic, status, COUNT(*) AS jobs FROM delay_queue_job"
            + " WHERE status IN ('DELAY', 'READY', 'RESERVED', 'DEAD') GROUP BY topic, status")
    List<TopicCountRow> countByTopic();

    @Select("SELECT COUNT(*) FROM delay_queue_job WHERE status = 'DELAY' AND due_at > #{after}")
    long countDelayedDueAfter(@Param("after") long after);

    @Select("SELECT id FROM delay_queue_job WHERE shard IS NULL LIMIT #{limit}")
    List<String> idsWithoutShard(@Param("limit") int limit);

    @Update("<script>UPDATE delay_queue_job SET shard = #{shard} WHERE shard IS NULL AND id IN"
            + "<foreach item='id' collection='ids' open='(' separator=',' close=')'>#{id}</foreach></script>")
    int assignShard(@Param("shard") int shard, @Param("ids") Collection<String> ids);
}
