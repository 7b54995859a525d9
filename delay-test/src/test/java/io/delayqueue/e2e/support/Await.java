package io.delayqueue.e2e.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Kept only for {@code KillNineTest} and {@code HaServiceProcess}, which another branch is changing; once it
 * has landed they call Awaitility directly and this class is deleted. New waits use Awaitility.
 */
@Deprecated
public final class Await {
    private Await() {}

    /** Waits until {@code condition} holds; fails naming {@code what} when {@code timeout} passes. */
    public static void until(Duration timeout, String what, BooleanSupplier condition) {
        await(what).atMost(timeout).until(condition::getAsBoolean);
    }

    /** As {@link #until(Duration, String, BooleanSupplier)}; the failure also shows {@code state}, read then. */
    public static void until(Duration timeout, String what, BooleanSupplier condition, Supplier<?> state) {
        await(what).atMost(timeout).untilAsserted(() -> assertThat(condition.getAsBoolean())
                .as(() -> what + " " + state.get())
                .isTrue());
    }
}
