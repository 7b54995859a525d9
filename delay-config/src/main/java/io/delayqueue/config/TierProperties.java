package io.delayqueue.config;

import io.delayqueue.queue.engine.tier.TierSettings;
import java.time.Duration;

/** Tiered storage: Redis holds the near future, the journal the rest. */
public class TierProperties {
    /**
     * Jobs due further ahead than this live in the journal only and are loaded into Redis ahead of their due
     * time by their shard's owner; {@code 0} keeps every job in Redis. Needs the journal in {@code sync} mode
     * (ignored otherwise).
     */
    private Duration horizon = TierSettings.DEFAULT_HORIZON;

    public TierSettings toSettings() {
        return new TierSettings(horizon);
    }

    public Duration getHorizon() {
        return horizon;
    }

    public void setHorizon(Duration horizon) {
        this.horizon = horizon;
    }
}
