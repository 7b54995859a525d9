package io.delayqueue.queue.journal.mybatis;

/**
 * The net change of one job's row from the transitions of one commit ({@link RowUpdates} writes it).
 *
 * @param attempts new attempts, or {@code null} to add {@code attemptsDelta} to the stored value
 * @param dueAt new due time, or {@code null} to keep it
 */
record JobUpdate(String id, String status, Integer attempts, int attemptsDelta, Long dueAt) {
    boolean statusOnly() {
        return attempts == null && attemptsDelta == 0 && dueAt == null;
    }
}
