package io.delayqueue.queue.journal.mybatis;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.ibatis.exceptions.PersistenceException;

/**
 * The status updates of a group commit, bound by hand on the session's connection, in its transaction, as {@link
 * RowInserts} binds the inserts. A hand-over writes one update per job (RESERVED, then FINISHED): as a MyBatis
 * {@code <foreach>} IN list, the dynamic SQL's bindings (an OGNL context, a parameter mapping and a property
 * tokenizer per id) were 27% of the service's CPU during bursts of HTTP callbacks (JFR), more than the driver and
 * the database's own work for them. Same statements as before: one IN list per status and {@link
 * JournalMapper#IDS_PER_STATEMENT} ids for the updates that set the status alone, and the others one by one in id
 * order, consecutive ones of one form in one JDBC batch. A final state ({@code FINISHED}, {@code DELETED}) is never
 * overwritten.
 */
final class RowUpdates {
    private static final String KEEP_FINAL = " AND status NOT IN ('FINISHED', 'DELETED')";
    /**
     * The scanner's {@code READY} (always from {@code DELAY}) never overwrites {@code RESERVED}: a consumer can
     * reserve a job between the scanner's move and its journaling, and its {@code RESERVED} (another writer, another
     * service) can commit first. Bound to the update's status: {@code ... AND (? <> 'READY' OR status <> 'RESERVED')}.
     */
    private static final String KEEP_RESERVED = " AND (? <> 'READY' OR status <> 'RESERVED')";
    /** The one-row update by {@link #formOf form}: attempts added or set, the due time kept or set. */
    private static final String[] UPDATE_ONE = {
        updateOne(false, false), updateOne(true, false), updateOne(false, true), updateOne(true, true)
    };

    private RowUpdates() {}

    /** Writes {@code updates} (in id order, one per job) with {@code now} as their update time. */
    static void update(Connection connection, Collection<JobUpdate> updates, long now) {
        Map<String, List<String>> statusOnly = new LinkedHashMap<>();
        List<JobUpdate> others = new ArrayList<>();
        for (JobUpdate u : updates) {
            if (u.statusOnly()) {
                statusOnly.computeIfAbsent(u.status(), s -> new ArrayList<>()).add(u.id());
            } else {
                others.add(u);
            }
        }
        try {
            updateEach(connection, others, now);
            for (var entry : statusOnly.entrySet()) {
                for (List<String> ids : JournalMapper.chunksOf(entry.getValue())) {
                    updateStatus(connection, entry.getKey(), ids, now);
                }
            }
        } catch (SQLException e) {
            throw new PersistenceException("updating " + updates.size() + " jobs' status failed: " + e.getMessage(), e);
        }
    }

    /** {@code UPDATE ... WHERE id IN (...)}: one statement for {@code ids}. */
    private static void updateStatus(Connection connection, String status, List<String> ids, long now)
            throws SQLException {
        StringBuilder sql = new StringBuilder(
                        "UPDATE delay_queue_job SET status = ?, update_time = ?, version = version + 1 WHERE id IN (")
                .append("?,".repeat(ids.size()));
        sql.setLength(sql.length() - 1);
        sql.append(')').append(KEEP_FINAL).append(KEEP_RESERVED);
        try (PreparedStatement update = connection.prepareStatement(sql.toString())) {
            update.setString(1, status);
            update.setLong(2, now);
            int i = 3;
            for (String id : ids) {
                update.setString(i++, id);
            }
            update.setString(i, status);
            update.executeUpdate();
        }
    }

    /** One statement per update, in the given order; a run of updates of one form is one JDBC batch. */
    private static void updateEach(Connection connection, List<JobUpdate> updates, long now) throws SQLException {
        int from = 0;
        while (from < updates.size()) {
            int form = formOf(updates.get(from));
            int to = from + 1;
            while (to < updates.size() && formOf(updates.get(to)) == form) {
                to++;
            }
            try (PreparedStatement update = connection.prepareStatement(UPDATE_ONE[form])) {
                for (JobUpdate u : updates.subList(from, to)) {
                    int i = 1;
                    update.setString(i++, u.status());
                    update.setInt(i++, u.attempts() != null ? u.attempts() : u.attemptsDelta());
                    if (u.dueAt() != null) {
                        update.setLong(i++, u.dueAt());
                    }
                    update.setLong(i++, now);
                    update.setString(i++, u.id());
                    update.setString(i, u.status());
                    update.addBatch();
                }
                update.executeBatch();
            }
            from = to;
        }
    }

    /** The index of {@code u}'s statement in {@link #UPDATE_ONE}: whether it sets attempts (1) and the due time (2). */
    private static int formOf(JobUpdate u) {
        return (u.attempts() != null ? 1 : 0) | (u.dueAt() != null ? 2 : 0);
    }

    private static String updateOne(boolean setsAttempts, boolean setsDueAt) {
        return "UPDATE delay_queue_job SET status = ?,"
                + (setsAttempts ? " attempts = ?," : " attempts = attempts + ?,")
                + (setsDueAt ? " due_at = ?," : "")
                + " update_time = ?, version = version + 1 WHERE id = ?" + KEEP_FINAL + KEEP_RESERVED;
    }
}
