package io.delayqueue.config;

import io.delayqueue.queue.engine.handover.DeadLetterSettings;
import java.time.Duration;

/** Dead letters: jobs that used up their attempts. */
public class DeadProperties {
    /**
     * Dead letters whose last delivery was due longer ago than this are deleted (DELETED in the journal first, then
     * in Redis), checked every {@code delay.journal.purge-interval} by each shard's owner; {@code 0} keeps them until
     * an operator requeues or deletes them.
     */
    private Duration retention = DeadLetterSettings.DEFAULT_RETENTION;

    public DeadLetterSettings toSettings() {
        return new DeadLetterSettings(retention);
    }

    public Duration getRetention() {
        return retention;
    }

    public void setRetention(Duration retention) {
        this.retention = retention;
    }
}
