package io.delayqueue.queue.engine.handover;

import static io.delayqueue.queue.SettingChecks.require;

import java.time.Duration;

/**
 * Dead letters ({@code delay.dead.*}). The {@code DEFAULT_*} constant is the one source of the default.
 *
 * @param retention dead letters whose last delivery was due longer ago than this are deleted, in Redis and in the
 *     journal, as an operator's delete deletes them ({@code 0}: kept until requeued or deleted)
 */
public record DeadLetterSettings(Duration retention) {
    /** Dead letters are kept until an operator requeues or deletes them. */
    public static final Duration DEFAULT_RETENTION = Duration.ZERO;

    public static final DeadLetterSettings DEFAULTS = new DeadLetterSettings(DEFAULT_RETENTION);

    public DeadLetterSettings {
        require(retention != null && !retention.isNegative(), "delay.dead.retention must not be negative (0: keep)");
    }
}
