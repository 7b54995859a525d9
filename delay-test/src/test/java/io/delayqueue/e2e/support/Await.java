package io.delayqueue.e2e.support;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Polls a condition until it holds or a deadline passes; never sleeps a fixed time and hopes. */
public final class Await {
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    private Await() {}

    /** Waits until {@code condition} holds; fails with {@code what} and the last state when the deadline passes. */
    public static void until(Duration timeout, String what, BooleanSupplier condition) {
        until(timeout, what, condition, () -> "");
    }

    /**
     * Waits until {@code condition} holds; on timeout fails naming {@code what} and {@code state} (evaluated
     * then, to show how far things got).
     */
    public static void until(Duration timeout, String what, BooleanSupplier condition, Supplier<?> state) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline >= 0) {
                throw new AssertionError(
                        "timed out after " + timeout.toMillis() + " ms waiting until " + what + " " + state.get());
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }
}
