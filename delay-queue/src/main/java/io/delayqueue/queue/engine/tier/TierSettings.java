package io.delayqueue.queue.engine.tier;

import static io.delayqueue.queue.SettingChecks.require;

import java.time.Duration;

/**
 * Tiered storage ({@code delay.tier.*}): Redis holds the near future, the journal the rest. The {@code
 * DEFAULT_*} constant is the one source of the default.
 *
 * @param horizon jobs due further ahead than this are kept in the journal only ({@code 0}: every job in Redis)
 */
public record TierSettings(Duration horizon) {
    /**
     * Jobs due further ahead than this are kept in the journal only and loaded into Redis ahead of their due time
     * by their shard's owner ({@code 0}: every job in Redis). An hour keeps Redis at an hour of arrivals while the
     * loader reads each shard's journal rows ahead of time, in pages, every quarter of the horizon (at most 10 s).
     */
    public static final Duration DEFAULT_HORIZON = Duration.ofHours(1);

    public static final TierSettings DEFAULTS = new TierSettings(DEFAULT_HORIZON);

    /**
     * Oldest a page of the journal tier may be when it is loaded into Redis: the loader refuses older pages and
     * reads them again.
     */
    public static final Duration MAX_PAGE_AGE = Duration.ofSeconds(30);

    /**
     * The shortest {@code delay.retention} while tiers are on: a deleted far job's tombstone lives that long, and
     * must outlive by far any page read before the delete ({@link #MAX_PAGE_AGE}), or such a page would load the
     * job again. Ten times the page age.
     */
    public static final Duration MIN_RETENTION = MAX_PAGE_AGE.multipliedBy(10);

    public TierSettings {
        require(horizon != null && !horizon.isNegative(), "delay.tier.horizon must not be negative (0: off)");
    }
}
