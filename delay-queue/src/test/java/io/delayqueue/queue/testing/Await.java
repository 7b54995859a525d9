package io.delayqueue.queue.testing;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Polls a condition until it holds or a deadline passes. */
public final class Await {
    private Await() {}

    /** Returns once {@code condition} holds; fails with an {@link AssertionError} after {@code timeout}. */
    public static void until(Duration timeout, BooleanSupplier condition) {
        until(timeout, condition, "condition");
    }

    public static void until(Duration timeout, BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError(what + " did not hold within " + timeout.toMillis() + " ms");
            }
            LockSupport.parkNanos(1_000_000);
        }
    }
}
