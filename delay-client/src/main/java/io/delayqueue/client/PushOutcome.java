package io.delayqueue.client;

/** Which of the service's answers to a push ended it (the README's and http-api.md's table of push answers). */
public enum PushOutcome {
    /** 200: committed in the journal and in Redis; delivered at its time. Also a retry of a job that exists. */
    DURABLE,
    /**
     * 202: committed in the journal; Redis could not take it now and the service puts it there once Redis answers.
     * Delivered at its due time, or within seconds of Redis's return. Nothing to do.
     */
    JOURNALED,
    /** A 4xx other than 409: nothing written; the message names the field (a bad job is never retried). */
    REFUSED,
    /** 409: the id already names another job, which is kept as it is; push this one under a new id. */
    CONFLICT,
    /**
     * The retries ran out (503, 504, 5xx, no answer within the deadline): the job may or may not exist. Push it
     * again with the same id ({@link PushResult#id()}): the retry is safe, one job either way.
     */
    UNKNOWN;

    /** Whether the job is held by the service (durable or journaled). */
    public boolean isAccepted() {
        return this == DURABLE || this == JOURNALED;
    }
}
