package io.delayqueue.queue.engine;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Settings of the engine. The {@code DEFAULT_*} constants are the one source of every default; the Spring
 * properties refer to them. {@link Builder#build()} rejects values the engine cannot work with.
 */
public record EngineConfig(
        int shards,
        String redisPrefix,
        int scanBatchSize,
        Duration maxScanSleep,
        Duration scanLead,
        Duration dispatchTimeout,
        int maxInFlight,
        Duration defaultTtr,
        int defaultMaxAttempts,
        Duration maxDelay,
        int maxBodyBytes,
        int maxBatchSize,
        Duration maxPollTimeout,
        Duration pullRecheck,
        Duration retention,
        List<Duration> retryBackoff,
        String defaultDispatcher,
        Map<String, String> topicDispatchers,
        Duration reconcileInterval,
        Duration reconcileGrace,
        int restorePageSize,
        int maxInFlightPerTopic,
        Map<String, TopicRetry> topicRetries,
        Duration shutdownWait,
        Duration journalRetention,
        int purgeBatchSize,
        Duration purgeInterval,
        Duration purgePause,
        Duration tierHorizon) {

    public static final int DEFAULT_SHARDS = 8;
    public static final String DEFAULT_REDIS_PREFIX = "dq";
    public static final int DEFAULT_SCAN_BATCH_SIZE = 500;
    public static final Duration DEFAULT_MAX_SCAN_SLEEP = Duration.ofSeconds(1);
    /**
     * How long before its due time a push-topic job is taken from Redis: the move's round trip is then behind
     * it when it is due, and the scanner hands it over at its due time, never sooner. A delete in that window
     * answers 409 (being delivered).
     */
    public static final Duration DEFAULT_SCAN_LEAD = Duration.ofMillis(2);

    public static final Duration DEFAULT_DISPATCH_TIMEOUT = Duration.ofSeconds(30);
    public static final int DEFAULT_MAX_IN_FLIGHT = 10_000;
    public static final Duration DEFAULT_TTR = Duration.ofSeconds(30);
    public static final int DEFAULT_MAX_ATTEMPTS = 10;
    public static final Duration DEFAULT_MAX_DELAY = Duration.ofDays(365);
    public static final int DEFAULT_MAX_BODY_BYTES = 64 * 1024;
    /** The largest body the journal holds (its {@code body} column is a MEDIUMTEXT): a larger limit is capped. */
    public static final int MAX_JOURNAL_BODY_BYTES = 16 * 1024 * 1024 - 1;

    public static final int DEFAULT_MAX_BATCH_SIZE = 1000;
    public static final Duration DEFAULT_MAX_POLL_TIMEOUT = Duration.ofSeconds(30);
    public static final Duration DEFAULT_PULL_RECHECK = Duration.ofMillis(250);
    public static final Duration DEFAULT_RETENTION = Duration.ofHours(1);
    public static final List<Duration> DEFAULT_RETRY_BACKOFF = List.of(
            Duration.ofSeconds(15),
            Duration.ofMinutes(3),
            Duration.ofMinutes(10),
            Duration.ofMinutes(30),
            Duration.ofMinutes(30),
            Duration.ofHours(1),
            Duration.ofHours(2),
            Duration.ofHours(6),
            Duration.ofHours(15));
    /** The console adapter's routing name ({@code ConsoleDispatcher.NAME}; a test checks that they agree). */
    public static final String DEFAULT_DISPATCHER = "console";

    public static final Duration DEFAULT_RECONCILE_INTERVAL = Duration.ofSeconds(5);
    public static final Duration DEFAULT_RECONCILE_GRACE = Duration.ofSeconds(30);
    public static final int DEFAULT_RESTORE_PAGE_SIZE = 1000;
    /** The routing name of topics consumed over {@code GET /get/{topic}}. */
    public static final String PULL = "pull";

    public static final int DEFAULT_MAX_IN_FLIGHT_PER_TOPIC = 1000;
    /**
     * How long a graceful stop waits for sends in flight to be confirmed (and acknowledged) before it gives up
     * on them; a send it gave up on is delivered again once its reservation expires.
     */
    public static final Duration DEFAULT_SHUTDOWN_WAIT = Duration.ofSeconds(10);

    /**
     * How long the journal keeps a final job ({@code FINISHED}, {@code DELETED}) and its history after its last
     * update; {@link Duration#ZERO} keeps them forever. At least {@link #DEFAULT_RETENTION}: the journal must not
     * forget a job Redis still holds (and whose client id it still answers for).
     */
    public static final Duration DEFAULT_JOURNAL_RETENTION = Duration.ofDays(7);
    /** Jobs deleted per purge statement and transaction (their log rows, about three each, with them). */
    public static final int DEFAULT_PURGE_BATCH_SIZE = 500;

    public static final Duration DEFAULT_PURGE_INTERVAL = Duration.ofMinutes(1);
    /**
     * The least pause between two purge batches; a batch is followed by a pause four times as long as it took when
     * that is longer (a loaded database makes batches slow).
     */
    public static final Duration DEFAULT_PURGE_PAUSE = Duration.ofMillis(50);
    /**
     * Jobs due further ahead than this are kept in the journal only and loaded into Redis ahead of their due time
     * by their shard's owner ({@code 0}: every job in Redis). An hour keeps Redis at an hour of arrivals while the
     * loader reads each shard's journal rows ahead of time, in pages, every quarter of the horizon (at most 10 s).
     */
    public static final Duration DEFAULT_TIER_HORIZON = Duration.ofHours(1);

    public EngineConfig {
        retryBackoff = List.copyOf(retryBackoff);
        topicDispatchers = Map.copyOf(topicDispatchers);
        topicRetries = Map.copyOf(topicRetries);
    }

    /**
     * The retry settings of one topic; a {@code null} part falls back to the default ({@code
     * delay.retry.backoff}, {@code delay.retry.max-attempts}).
     *
     * @param backoff the topic's backoff ladder
     * @param maxAttempts deliveries before a job of the topic is {@code DEAD}, unless its push says otherwise
     */
    public record TopicRetry(List<Duration> backoff, Integer maxAttempts) {
        public TopicRetry {
            backoff = backoff == null ? null : List.copyOf(backoff);
        }
    }

    /** The backoff ladder of {@code topic}: its own, else the default. */
    public List<Duration> retryBackoffOf(String topic) {
        TopicRetry retry = topicRetries.get(topic);
        return retry != null && retry.backoff() != null ? retry.backoff() : retryBackoff;
    }

    /** The max attempts of a job of {@code topic} whose push gave none: the topic's, else the default. */
    public int defaultMaxAttemptsOf(String topic) {
        TopicRetry retry = topicRetries.get(topic);
        return retry != null && retry.maxAttempts() != null ? retry.maxAttempts() : defaultMaxAttempts;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.shards = shards;
        b.redisPrefix = redisPrefix;
        b.scanBatchSize = scanBatchSize;
        b.maxScanSleep = maxScanSleep;
        b.scanLead = scanLead;
        b.dispatchTimeout = dispatchTimeout;
        b.maxInFlight = maxInFlight;
        b.defaultTtr = defaultTtr;
        b.defaultMaxAttempts = defaultMaxAttempts;
        b.maxDelay = maxDelay;
        b.maxBodyBytes = maxBodyBytes;
        b.maxBatchSize = maxBatchSize;
        b.maxPollTimeout = maxPollTimeout;
        b.pullRecheck = pullRecheck;
        b.retention = retention;
        b.retryBackoff = retryBackoff;
        b.defaultDispatcher = defaultDispatcher;
        b.topicDispatchers = topicDispatchers;
        b.reconcileInterval = reconcileInterval;
        b.reconcileGrace = reconcileGrace;
        b.restorePageSize = restorePageSize;
        b.maxInFlightPerTopic = maxInFlightPerTopic;
        b.topicRetries = topicRetries;
        b.shutdownWait = shutdownWait;
        b.journalRetention = journalRetention;
        b.purgeBatchSize = purgeBatchSize;
        b.purgeInterval = purgeInterval;
        b.purgePause = purgePause;
        b.tierHorizon = tierHorizon;
        return b;
    }

    /** Builder with every default filled in. */
    public static final class Builder {
        private int shards = DEFAULT_SHARDS;
        private String redisPrefix = DEFAULT_REDIS_PREFIX;
        private int scanBatchSize = DEFAULT_SCAN_BATCH_SIZE;
        private Duration maxScanSleep = DEFAULT_MAX_SCAN_SLEEP;
        private Duration scanLead = DEFAULT_SCAN_LEAD;
        private Duration dispatchTimeout = DEFAULT_DISPATCH_TIMEOUT;
        private int maxInFlight = DEFAULT_MAX_IN_FLIGHT;
        private Duration defaultTtr = DEFAULT_TTR;
        private int defaultMaxAttempts = DEFAULT_MAX_ATTEMPTS;
        private Duration maxDelay = DEFAULT_MAX_DELAY;
        private int maxBodyBytes = DEFAULT_MAX_BODY_BYTES;
        private int maxBatchSize = DEFAULT_MAX_BATCH_SIZE;
        private Duration maxPollTimeout = DEFAULT_MAX_POLL_TIMEOUT;
        private Duration pullRecheck = DEFAULT_PULL_RECHECK;
        private Duration retention = DEFAULT_RETENTION;
        private List<Duration> retryBackoff = DEFAULT_RETRY_BACKOFF;
        private String defaultDispatcher = DEFAULT_DISPATCHER;
        private Map<String, String> topicDispatchers = Map.of();
        private Duration reconcileInterval = DEFAULT_RECONCILE_INTERVAL;
        private Duration reconcileGrace = DEFAULT_RECONCILE_GRACE;
        private int restorePageSize = DEFAULT_RESTORE_PAGE_SIZE;
        private int maxInFlightPerTopic = DEFAULT_MAX_IN_FLIGHT_PER_TOPIC;
        private Map<String, TopicRetry> topicRetries = Map.of();
        private Duration shutdownWait = DEFAULT_SHUTDOWN_WAIT;
        private Duration journalRetention = DEFAULT_JOURNAL_RETENTION;
        private int purgeBatchSize = DEFAULT_PURGE_BATCH_SIZE;
        private Duration purgeInterval = DEFAULT_PURGE_INTERVAL;
        private Duration purgePause = DEFAULT_PURGE_PAUSE;
        private Duration tierHorizon = DEFAULT_TIER_HORIZON;

        private Builder() {}

        public Builder shards(int v) {
            shards = v;
            return this;
        }

        public Builder redisPrefix(String v) {
            redisPrefix = v;
            return this;
        }

        public Builder scanBatchSize(int v) {
            scanBatchSize = v;
            return this;
        }

        public Builder maxScanSleep(Duration v) {
            maxScanSleep = v;
            return this;
        }

        public Builder scanLead(Duration v) {
            scanLead = v;
            return this;
        }

        public Builder dispatchTimeout(Duration v) {
            dispatchTimeout = v;
            return this;
        }

        public Builder maxInFlight(int v) {
            maxInFlight = v;
            return this;
        }

        public Builder defaultTtr(Duration v) {
            defaultTtr = v;
            return this;
        }

        public Builder defaultMaxAttempts(int v) {
            defaultMaxAttempts = v;
            return this;
        }

        public Builder maxDelay(Duration v) {
            maxDelay = v;
            return this;
        }

        public Builder maxBodyBytes(int v) {
            maxBodyBytes = v;
            return this;
        }

        public Builder maxBatchSize(int v) {
            maxBatchSize = v;
            return this;
        }

        public Builder maxPollTimeout(Duration v) {
            maxPollTimeout = v;
            return this;
        }

        public Builder pullRecheck(Duration v) {
            pullRecheck = v;
            return this;
        }

        public Builder retention(Duration v) {
            retention = v;
            return this;
        }

        public Builder retryBackoff(List<Duration> v) {
            retryBackoff = v;
            return this;
        }

        public Builder defaultDispatcher(String v) {
            defaultDispatcher = v;
            return this;
        }

        public Builder topicDispatchers(Map<String, String> v) {
            topicDispatchers = v;
            return this;
        }

        public Builder reconcileInterval(Duration v) {
            reconcileInterval = v;
            return this;
        }

        public Builder reconcileGrace(Duration v) {
            reconcileGrace = v;
            return this;
        }

        public Builder restorePageSize(int v) {
            restorePageSize = v;
            return this;
        }

        public Builder maxInFlightPerTopic(int v) {
            maxInFlightPerTopic = v;
            return this;
        }

        public Builder topicRetries(Map<String, TopicRetry> v) {
            topicRetries = v;
            return this;
        }

        public Builder shutdownWait(Duration v) {
            shutdownWait = v;
            return this;
        }

        public Builder journalRetention(Duration v) {
            journalRetention = v;
            return this;
        }

        public Builder purgeBatchSize(int v) {
            purgeBatchSize = v;
            return this;
        }

        public Builder purgeInterval(Duration v) {
            purgeInterval = v;
            return this;
        }

        public Builder purgePause(Duration v) {
            purgePause = v;
            return this;
        }

        public Builder tierHorizon(Duration v) {
            tierHorizon = v;
            return this;
        }

        public EngineConfig build() {
            require(shards >= 1 && shards <= 1024, "shards must be between 1 and 1024");
            require(redisPrefix != null && !redisPrefix.isBlank(), "redis prefix must not be empty");
            require(scanBatchSize >= 1 && scanBatchSize <= 10_000, "scan batch size must be between 1 and 10000");
            requirePositive(maxScanSleep, "max scan sleep");
            require(
                    scanLead != null && !scanLead.isNegative() && scanLead.compareTo(Duration.ofSeconds(1)) <= 0,
                    "scan lead must be between 0 and 1 s");
            requirePositive(dispatchTimeout, "dispatch timeout");
            require(maxInFlight >= scanBatchSize, "max in-flight must be at least the scan batch size");
            requirePositive(defaultTtr, "default ttr");
            require(defaultMaxAttempts >= 1, "default max attempts must be at least 1");
            requirePositive(maxDelay, "max delay");
            require(maxBodyBytes >= 1, "max body size must be at least 1 byte");
            require(maxBatchSize >= 1, "max batch size must be at least 1");
            requirePositive(maxPollTimeout, "max poll timeout");
            requirePositive(pullRecheck, "pull recheck");
            require(retention != null && !retention.isNegative(), "retention must not be negative");
            require(retryBackoff != null && !retryBackoff.isEmpty(), "retry backoff needs at least one step");
            retryBackoff.forEach(
                    d -> require(d != null && !d.isNegative(), "retry backoff steps must not be negative"));
            require(defaultDispatcher != null && !defaultDispatcher.isBlank(), "default dispatcher must be named");
            requirePositive(reconcileInterval, "reconcile interval");
            require(reconcileGrace != null && !reconcileGrace.isNegative(), "reconcile grace must not be negative");
            require(restorePageSize >= 1 && restorePageSize <= 10_000, "restore page size must be between 1 and 10000");
            require(maxInFlightPerTopic >= 1, "max in-flight per topic must be at least 1");
            require(topicRetries != null, "topic retries must not be null");
            require(shutdownWait != null && !shutdownWait.isNegative(), "shutdown wait must not be negative");
            require(
                    journalRetention != null && !journalRetention.isNegative(),
                    "delay.journal.retention must not be negative (0 keeps final jobs forever)");
            require(
                    journalRetention.isZero() || journalRetention.compareTo(retention) >= 0,
                    "delay.journal.retention (" + journalRetention + ") must be 0 (keep forever) or at least"
                            + " delay.retention (" + retention + "): the journal would forget final jobs that Redis"
                            + " still holds and whose client ids it still answers for");
            require(
                    purgeBatchSize >= 1 && purgeBatchSize <= 10_000,
                    "delay.journal.purge-batch-size must be between 1 and 10000");
            requirePositive(purgeInterval, "delay.journal.purge-interval");
            require(purgePause != null && !purgePause.isNegative(), "delay.journal.purge-pause must not be negative");
            require(tierHorizon != null && !tierHorizon.isNegative(), "tier horizon must not be negative (0: off)");
            topicRetries.forEach((topic, retry) -> {
                String what = "retry of topic " + topic + ": ";
                require(retry != null, what + "must not be empty");
                require(
                        retry.backoff() == null || !retry.backoff().isEmpty(),
                        what + "backoff needs at least one step");
                if (retry.backoff() != null) {
                    retry.backoff()
                            .forEach(d ->
                                    require(d != null && !d.isNegative(), what + "backoff steps must not be negative"));
                }
                require(
                        retry.maxAttempts() == null || retry.maxAttempts() >= 1,
                        what + "max attempts must be at least 1");
            });
            return new EngineConfig(
                    shards,
                    redisPrefix,
                    scanBatchSize,
                    maxScanSleep,
                    scanLead,
                    dispatchTimeout,
                    maxInFlight,
                    defaultTtr,
                    defaultMaxAttempts,
                    maxDelay,
                    maxBodyBytes,
                    maxBatchSize,
                    maxPollTimeout,
                    pullRecheck,
                    retention,
                    retryBackoff,
                    defaultDispatcher,
                    topicDispatchers,
                    reconcileInterval,
                    reconcileGrace,
                    restorePageSize,
                    maxInFlightPerTopic,
                    topicRetries,
                    shutdownWait,
                    journalRetention,
                    purgeBatchSize,
                    purgeInterval,
                    purgePause,
                    tierHorizon);
        }

        private static void requirePositive(Duration d, String what) {
            require(d != null && !d.isNegative() && !d.isZero(), what + " must be positive");
        }

        private static void require(boolean ok, String message) {
            if (!ok) {
                throw new IllegalArgumentException(message);
            }
        }
    }
}
