package io.delayqueue.queue.engine.handover;

import java.time.Duration;
import java.util.List;

/**
 * The backoff ladder of failed sends: after the n-th failed attempt the job waits the n-th step; past the
 * last step the last one repeats.
 */
public final class RetryPolicy {
    private final long[] stepsMs;

    public RetryPolicy(List<Duration> ladder) {
        if (ladder.isEmpty()) {
            throw new IllegalArgumentException("a retry ladder needs at least one step");
        }
        stepsMs = ladder.stream().mapToLong(Duration::toMillis).toArray();
    }

    /** @param failedAttempts attempts failed so far, including the one that just failed (1 or more) */
    public long backoffMillis(int failedAttempts) {
        int index = Math.min(Math.max(failedAttempts, 1), stepsMs.length) - 1;
        return stepsMs[index];
    }
}
