package io.delayqueue.config;

import io.delayqueue.queue.engine.EngineConfig;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * Every {@code delay.*} setting of the service, one class per group ({@code delay.scanner.*}: {@link
 * ScannerProperties}, ...). Each also binds from an environment variable ({@code DELAY_SHARDS}, {@code
 * DELAY_REDIS_URI}, ...).
 *
 * <p>Where a default lives: a setting the engine or an adapter consumes has its default as a {@code DEFAULT_*}
 * constant beside the record it fills ({@link EngineConfig}, {@code ScannerSettings}, {@code JournalSettings},
 * {@code RocketMqSettings}, ...), and its properties class refers to that constant; a setting only Spring reads
 * ({@code delay.redis.max-connections}, {@code delay.metrics.max-topics}, {@code delay.journal.restore-on-start},
 * ...) has its default as a literal in its properties class. The configuration processor cannot read another
 * class's constants, so {@code META-INF/additional-spring-configuration-metadata.json} repeats those defaults for
 * the IDE; {@code MetadataDefaultsTest} checks that it agrees with the fields.
 */
@ConfigurationProperties("delay")
public class DelayProperties {

    /** Number of shards (delay buckets); fixed for the life of a queue, since a job's shard follows from its id. */
    private int shards = EngineConfig.DEFAULT_SHARDS;

    /** How long a finished or deleted job stays readable in Redis (and its client id taken). */
    private Duration retention = EngineConfig.DEFAULT_RETENTION;

    @NestedConfigurationProperty
    private final RedisProperties redis = new RedisProperties();

    @NestedConfigurationProperty
    private final ScannerProperties scanner = new ScannerProperties();

    @NestedConfigurationProperty
    private final PullProperties pull = new PullProperties();

    @NestedConfigurationProperty
    private final LimitsProperties limits = new LimitsProperties();

    @NestedConfigurationProperty
    private final DispatchProperties dispatch = new DispatchProperties();

    @NestedConfigurationProperty
    private final RetryProperties retry = new RetryProperties();

    @NestedConfigurationProperty
    private final SecurityProperties security = new SecurityProperties();

    @NestedConfigurationProperty
    private final MetricsProperties metrics = new MetricsProperties();

    @NestedConfigurationProperty
    private final HaProperties ha = new HaProperties();

    @NestedConfigurationProperty
    private final ZkProperties zk = new ZkProperties();

    @NestedConfigurationProperty
    private final JournalProperties journal = new JournalProperties();

    @NestedConfigurationProperty
    private final RocketMqProperties rocketmq = new RocketMqProperties();

    @NestedConfigurationProperty
    private final ActiveMqProperties activemq = new ActiveMqProperties();

    @NestedConfigurationProperty
    private final HttpProperties http = new HttpProperties();

    @NestedConfigurationProperty
    private final TierProperties tier = new TierProperties();

    @NestedConfigurationProperty
    private final DeadProperties dead = new DeadProperties();

    @NestedConfigurationProperty
    private final WarmUpProperties warmUp = new WarmUpProperties();

    /** The engine's settings; throws {@link IllegalArgumentException} naming a value it cannot work with. */
    public EngineConfig toEngineConfig() {
        return new EngineConfig(
                shards,
                redis.getPrefix(),
                retention,
                scanner.toSettings(),
                pull.toSettings(),
                limits.toSettings(),
                dispatch.toSettings(),
                retry.toSettings(),
                journal.toSettings(),
                tier.toSettings(),
                dead.toSettings());
    }

    public int getShards() {
        return shards;
    }

    public void setShards(int shards) {
        this.shards = shards;
    }

    public Duration getRetention() {
        return retention;
    }

    public void setRetention(Duration retention) {
        this.retention = retention;
    }

    public RedisProperties getRedis() {
        return redis;
    }

    public ScannerProperties getScanner() {
        return scanner;
    }

    public PullProperties getPull() {
        return pull;
    }

    public LimitsProperties getLimits() {
        return limits;
    }

    public DispatchProperties getDispatch() {
        return dispatch;
    }

    public RetryProperties getRetry() {
        return retry;
    }

    public SecurityProperties getSecurity() {
        return security;
    }

    public MetricsProperties getMetrics() {
        return metrics;
    }

    public HaProperties getHa() {
        return ha;
    }

    public ZkProperties getZk() {
        return zk;
    }

    public JournalProperties getJournal() {
        return journal;
    }

    public RocketMqProperties getRocketmq() {
        return rocketmq;
    }

    public ActiveMqProperties getActivemq() {
        return activemq;
    }

    public HttpProperties getHttp() {
        return http;
    }

    public TierProperties getTier() {
        return tier;
    }

    public DeadProperties getDead() {
        return dead;
    }

    public WarmUpProperties getWarmUp() {
        return warmUp;
    }
}
