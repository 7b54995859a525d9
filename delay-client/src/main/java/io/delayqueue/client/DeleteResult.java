package io.delayqueue.client;

/**
 * How a delete ended.
 *
 * @param status the last HTTP status, 0 when the last call had no answer
 * @param message the service's message, or why no answer came
 */
public record DeleteResult(String id, Outcome outcome, int status, String message) {
    public enum Outcome {
        /** 200: {@code DELETED} is committed in the journal; the job is never delivered. Also a deleted job again. */
        DELETED,
        /** 404: no such job. */
        NOT_FOUND,
        /** 409: the job is being delivered ({@code RESERVED}) or is {@code FINISHED}: not deleted. */
        CONFLICT,
        /** Another 4xx (the message says why; 401: the token). */
        REFUSED,
        /**
         * The retries ran out (503, 504, no answer): after a 504 the job is held, not delivered, until a delete
         * again (safe to repeat) or the service's reconciler settles it.
         */
        UNKNOWN
    }
}
