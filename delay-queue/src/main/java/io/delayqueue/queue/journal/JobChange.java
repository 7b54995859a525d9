package io.delayqueue.queue.journal;

import io.delayqueue.common.JobStatus;

/**
 * A job's state as last journaled, without its body: what the fail-over protocol replays onto a new Redis master.
 *
 * @param updatedAt when its last transition was journaled (the journaling instance's clock)
 */
public record JobChange(String id, String topic, JobStatus status, int attempts, long dueAt, long ttr, long updatedAt) {

    /** Its place in a keyset walk ordered by (update time, id). */
    public JobCursor cursor() {
        return new JobCursor(updatedAt, id);
    }

    /**
     * Parses the one column the journal reads it as, {@code update_time|attempts|due_at|ttr|topic|id} (a topic has
     * no {@code |}; the id, which may, comes last).
     */
    public static JobChange parse(JobStatus status, String row) {
        String[] f = row.split("\\|", 6);
        return new JobChange(
                f[5],
                f[4],
                status,
                Integer.parseInt(f[1]),
                Long.parseLong(f[2]),
                Long.parseLong(f[3]),
                Long.parseLong(f[0]));
    }
}
