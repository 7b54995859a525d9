package io.delayqueue.client;

/**
 * A call that did not end as asked: the service refused it (a 4xx), or its retries ran out (a 5xx, or no answer).
 * Pushes and deletes say this in their result instead; look-ups, restores and reserves throw it.
 */
public class DelayQueueClientException extends RuntimeException {
    private final int status;

    public DelayQueueClientException(int status, String message, Throwable cause) {
        super(message, cause);
        this.status = status;
    }

    /** The last HTTP status, 0 when the last call had no answer. */
    public int status() {
        return status;
    }

    /** Whether the same call may succeed later (a 5xx, 429, or no answer). */
    public boolean isRetryable() {
        return status == 0 || RetryPolicy.isRetryable(status);
    }
}
