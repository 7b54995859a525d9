package io.delayqueue.common;

/**
 * The states of a job. {@link #FINISHED}, {@link #DELETED} and {@link #DEAD} are final ({@code DEAD}
 * until a dead letter is requeued).
 *
 * <pre>
 *   DELAY -> READY -> RESERVED -> FINISHED        (pull topics)
 *   DELAY -> RESERVED (dispatching) -> FINISHED   (push topics, once the receiver confirmed)
 *   RESERVED -> DELAY / READY (TTR expired or send failed, attempts + 1) or DEAD (past maxAttempts)
 *   DELAY / READY -> DELETED
 * </pre>
 */
public enum JobStatus {
    /** Waiting in its shard's bucket for its due time. */
    DELAY,
    /** Due, in its topic's ready list, waiting for a pull consumer. */
    READY,
    /** Taken by a pull consumer or being dispatched; comes back if not finished before its deadline. */
    RESERVED,
    /** Acknowledged by a consumer or confirmed by the receiver. */
    FINISHED,
    /** Cancelled before it was delivered. */
    DELETED,
    /** Gave up after {@code maxAttempts}; listed in the topic's dead letters. */
    DEAD;

    public boolean isFinal() {
        return this == FINISHED || this == DELETED || this == DEAD;
    }
}
