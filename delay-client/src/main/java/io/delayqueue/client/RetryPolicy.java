package io.delayqueue.client;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How a call that may be repeated safely is repeated: at most {@code maxAttempts} calls, waiting {@code
 * initialBackoff} after the first failure and twice as long after each next one (up to {@code maxBackoff}, with
 * up to a fifth taken off at random so that clients that failed together do not retry together), all within {@code
 * deadline} counted from the first call. A call is repeated after an answer of 429, 500, 502, 503 or 504, and after
 * no answer at all (a connection refused or reset, a request timeout).
 *
 * @param maxAttempts calls in all, the first included (1: no retry)
 * @param initialBackoff the wait after the first failed call
 * @param maxBackoff the longest wait between two calls
 * @param deadline the longest time from the first call to the last answer; each call's own timeout is cut to what
 *     is left of it
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff, Duration deadline) {
    public static final int DEFAULT_MAX_ATTEMPTS = 5;
    public static final Duration DEFAULT_INITIAL_BACKOFF = Duration.ofMillis(200);
    public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(5);
    public static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(30);

    public RetryPolicy {
        Objects.requireNonNull(initialBackoff, "initialBackoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
        Objects.requireNonNull(deadline, "deadline");
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1: " + maxAttempts);
        }
        if (initialBackoff.isNegative() || maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException(
                    "backoff must satisfy 0 <= initialBackoff <= maxBackoff: " + initialBackoff + ", " + maxBackoff);
        }
        if (deadline.isNegative() || deadline.isZero()) {
            throw new IllegalArgumentException("deadline must be positive: " + deadline);
        }
    }

    /** Five calls, 200 ms doubling up to 5 s between them, within 30 s. */
    public static RetryPolicy defaults() {
        return new RetryPolicy(DEFAULT_MAX_ATTEMPTS, DEFAULT_INITIAL_BACKOFF, DEFAULT_MAX_BACKOFF, DEFAULT_DEADLINE);
    }

    /** One call, never repeated (within {@code deadline}). */
    public static RetryPolicy none(Duration deadline) {
        return new RetryPolicy(1, Duration.ZERO, Duration.ZERO, deadline);
    }

    public RetryPolicy withMaxAttempts(int attempts) {
        return new RetryPolicy(attempts, initialBackoff, maxBackoff, deadline);
    }

    public RetryPolicy withBackoff(Duration initial, Duration max) {
        return new RetryPolicy(maxAttempts, initial, max, deadline);
    }

    public RetryPolicy withDeadline(Duration newDeadline) {
        return new RetryPolicy(maxAttempts, initialBackoff, maxBackoff, newDeadline);
    }

    /** The wait after the {@code failedCalls}-th failed call (1 for the first), jitter taken off. */
    long backoffNanos(int failedCalls) {
        long base = initialBackoff.toNanos();
        long max = maxBackoff.toNanos();
        long wait = base;
        for (int i = 1; i < failedCalls && wait < max; i++) {
            wait = wait > max / 2 ? max : wait * 2;
        }
        wait = Math.min(wait, max);
        return wait - (wait <= 0 ? 0 : ThreadLocalRandom.current().nextLong(wait / 5 + 1));
    }

    /** Whether an answer of {@code status} may be followed by the same call again. */
    static boolean isRetryable(int status) {
        return status == 429 || status == 500 || status == 502 || status == 503 || status == 504;
    }
}
