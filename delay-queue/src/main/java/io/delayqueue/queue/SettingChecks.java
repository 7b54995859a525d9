package io.delayqueue.queue;

import java.time.Duration;

/** The checks the settings records run in their constructors; each message names the property. */
public final class SettingChecks {
    private SettingChecks() {}

    public static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }

    public static void requirePositive(Duration d, String property) {
        require(d != null && !d.isNegative() && !d.isZero(), property + " must be positive");
    }

    public static void requireNotNegative(Duration d, String property) {
        require(d != null && !d.isNegative(), property + " must not be negative");
    }

    public static void requireBetween(int value, int min, int max, String property) {
        require(value >= min && value <= max, property + " must be between " + min + " and " + max);
    }
}
