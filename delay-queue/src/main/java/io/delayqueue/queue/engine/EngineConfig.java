package io.delayqueue.queue.engine;

import static io.delayqueue.queue.SettingChecks.require;
import static io.delayqueue.queue.SettingChecks.requireBetween;

import io.delayqueue.queue.engine.handover.DeadLetterSettings;
import io.delayqueue.queue.engine.handover.DispatchSettings;
import io.delayqueue.queue.engine.handover.PullSettings;
import io.delayqueue.queue.engine.handover.RetrySettings;
import io.delayqueue.queue.engine.handover.ScannerSettings;
import io.delayqueue.queue.engine.push.LimitSettings;
import io.delayqueue.queue.engine.tier.TierSettings;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.journal.JournalSettings;
import java.time.Duration;
import java.util.function.UnaryOperator;

/**
 * Settings of the engine: the top-level {@code delay.*} settings and one record per property group, each with
 * its {@code DEFAULT_*} constants beside it, the one source of every default (the Spring properties refer to
 * them). Each record rejects, naming the property, a value the engine cannot work with; this one also checks
 * the settings that span two groups. {@link #DEFAULTS} and the {@code with*} methods build the variants tests
 * need.
 *
 * @param shards number of shards (delay buckets); fixed for the life of a queue
 * @param redisPrefix prefix of every Redis key
 * @param retention how long a finished or deleted job stays readable in Redis (and its client id taken)
 */
public record EngineConfig(
        int shards,
        String redisPrefix,
        Duration retention,
        ScannerSettings scanner,
        PullSettings pull,
        LimitSettings limits,
        DispatchSettings dispatch,
        RetrySettings retry,
        JournalSettings journal,
        TierSettings tier,
        DeadLetterSettings dead) {

    public static final int DEFAULT_SHARDS = 8;
    public static final String DEFAULT_REDIS_PREFIX = "dq";
    public static final Duration DEFAULT_RETENTION = Duration.ofHours(1);

    public static final EngineConfig DEFAULTS = new EngineConfig(
            DEFAULT_SHARDS,
            DEFAULT_REDIS_PREFIX,
            DEFAULT_RETENTION,
            ScannerSettings.DEFAULTS,
            PullSettings.DEFAULTS,
            LimitSettings.DEFAULTS,
            DispatchSettings.DEFAULTS,
            RetrySettings.DEFAULTS,
            JournalSettings.DEFAULTS,
            TierSettings.DEFAULTS,
            DeadLetterSettings.DEFAULTS);

    public EngineConfig {
        requireBetween(shards, 1, 1024, "delay.shards");
        require(redisPrefix != null && !redisPrefix.isBlank(), "delay.redis.prefix must not be empty");
        require(retention != null && !retention.isNegative(), "delay.retention must not be negative");
        require(
                scanner != null
                        && pull != null
                        && limits != null
                        && dispatch != null
                        && retry != null
                        && journal != null
                        && tier != null
                        && dead != null,
                "every settings group must be given");
        require(
                dispatch.maxInFlight() >= scanner.batchSize(),
                "delay.dispatch.max-in-flight (" + dispatch.maxInFlight() + ") must be at least"
                        + " delay.scanner.batch-size (" + scanner.batchSize() + ")");
        require(
                journal.retention().isZero() || journal.retention().compareTo(retention) >= 0,
                "delay.journal.retention (" + journal.retention() + ") must be 0 (keep forever) or at least"
                        + " delay.retention (" + retention + "): the journal would forget final jobs that Redis"
                        + " still holds and whose client ids it still answers for");
        require(
                tier.horizon().isZero()
                        || journal.mode() != JournalMode.SYNC
                        || retention.compareTo(TierSettings.MIN_RETENTION) >= 0,
                "delay.retention (" + retention + ") must be at least " + TierSettings.MIN_RETENTION + " while tiers"
                        + " are on (delay.tier.horizon above 0 with delay.journal.mode=sync): a deleted far job's"
                        + " tombstone lives that long and must outlive any page of the journal tier read before the"
                        + " delete (the loader refuses pages older than " + TierSettings.MAX_PAGE_AGE + "); raise"
                        + " delay.retention or set delay.tier.horizon=0");
    }

    public EngineConfig withShards(int v) {
        return new EngineConfig(v, redisPrefix, retention, scanner, pull, limits, dispatch, retry, journal, tier, dead);
    }

    public EngineConfig withRedisPrefix(String v) {
        return new EngineConfig(shards, v, retention, scanner, pull, limits, dispatch, retry, journal, tier, dead);
    }

    public EngineConfig withRetention(Duration v) {
        return new EngineConfig(shards, redisPrefix, v, scanner, pull, limits, dispatch, retry, journal, tier, dead);
    }

    public EngineConfig withScanner(UnaryOperator<ScannerSettings> change) {
        return new EngineConfig(
                shards,
                redisPrefix,
                retention,
                change.apply(scanner),
                pull,
                limits,
                dispatch,
                retry,
                journal,
                tier,
                dead);
    }

    public EngineConfig withPull(UnaryOperator<PullSettings> change) {
        return new EngineConfig(
                shards,
                redisPrefix,
                retention,
                scanner,
                change.apply(pull),
                limits,
                dispatch,
                retry,
                journal,
                tier,
                dead);
    }

    public EngineConfig withLimits(UnaryOperator<LimitSettings> change) {
        return new EngineConfig(
                shards,
                redisPrefix,
                retention,
                scanner,
                pull,
                change.apply(limits),
                dispatch,
                retry,
                journal,
                tier,
                dead);
    }

    public EngineConfig withDispatch(UnaryOperator<DispatchSettings> change) {
        return new EngineConfig(
                shards,
                redisPrefix,
                retention,
                scanner,
                pull,
                limits,
                change.apply(dispatch),
                retry,
                journal,
                tier,
                dead);
    }

    public EngineConfig withRetry(UnaryOperator<RetrySettings> change) {
        return new EngineConfig(
                shards,
                redisPrefix,
                retention,
                scanner,
                pull,
                limits,
                dispatch,
                change.apply(retry),
                journal,
                tier,
                dead);
    }

    public EngineConfig withJournal(UnaryOperator<JournalSettings> change) {
        return new EngineConfig(
                shards,
                redisPrefix,
                retention,
                scanner,
                pull,
                limits,
                dispatch,
                retry,
                change.apply(journal),
                tier,
                dead);
    }

    public EngineConfig withDead(UnaryOperator<DeadLetterSettings> change) {
        return new EngineConfig(
                shards,
                redisPrefix,
                retention,
                scanner,
                pull,
                limits,
                dispatch,
                retry,
                journal,
                tier,
                change.apply(dead));
    }

    public EngineConfig withTier(UnaryOperator<TierSettings> change) {
        return new EngineConfig(
                shards,
                redisPrefix,
                retention,
                scanner,
                pull,
                limits,
                dispatch,
                retry,
                journal,
                change.apply(tier),
                dead);
    }
}
