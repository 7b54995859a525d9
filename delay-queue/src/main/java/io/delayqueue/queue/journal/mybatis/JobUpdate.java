package io.delayqueue.queue.journal.mybatis;

/**
 * The net change of one job's row from the transitions of one commit.
 *
 * @param attempts new attempts, or {@code null} to add {@code attemptsDelta} to the stored value
 * @param dueAt new due time, or {@code null} to keep it
 */
public record JobUpdate(String id, String status, Integer attempts, int attemptsDelta, Long dueAt) {
    boolean statusOnly() {
        return attempts == null && attemptsDelta == 0 && dueAt == null;
    }

    public String getId() {
        return id;
    }

    public String getStatus() {
        return status;
    }

    public Integer getAttempts() {
        return attempts;
    }

    public int getAttemptsDelta() {
        return attemptsDelta;
    }

    public Long getDueAt() {
        return dueAt;
    }
}
