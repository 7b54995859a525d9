package io.delayqueue.queue.journal;

/** What happened to a job, as written to the journal's log. */
public enum JobEvent {
    CREATED,
    READY,
    RESERVED,
    FINISHED,
    DELETED,
    TTR_EXPIRED,
    RETRIED,
    /** Not sent (its dispatcher was full or turned it away): back to DELAY without counting an attempt. */
    DEFERRED,
    DEAD,
    RESTORED,
    REQUEUED,
    /**
     * Loaded from the journal tier into Redis ahead of its due time by its shard's owner (a far job, or a {@code
     * DELAY} job again after Redis lost its data). The job stays {@code DELAY}: the row is left as it is.
     */
    LOADED,
    /**
     * Made due at once by an operator ("run now": {@code POST /jobs/{id}/run-now}): still {@code DELAY}, its due time
     * now. Its attempts are unchanged.
     */
    DUE_NOW
}
