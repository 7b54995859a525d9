package io.delayqueue.core;

import io.delayqueue.config.DelayProperties;
import io.delayqueue.queue.coordination.Coordinator;
import io.delayqueue.queue.coordination.HaMode;
import io.delayqueue.queue.coordination.StandaloneCoordinator;
import io.delayqueue.queue.coordination.WakeUpChannel;
import io.delayqueue.queue.coordination.curator.LeaderLatchCoordinator;
import io.delayqueue.queue.coordination.curator.ShardOwnershipCoordinator;
import io.delayqueue.queue.coordination.curator.ZooKeeperSettings;
import io.delayqueue.queue.engine.EngineConfig;
import io.delayqueue.queue.store.redis.RedisWakeUpChannel;
import org.apache.curator.framework.CuratorFramework;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.type.AnnotatedTypeMetadata;
import redis.clients.jedis.UnifiedJedis;

/**
 * Wiring of {@code delay.ha.mode}: the coordinator that decides which shards this instance scans, the
 * ZooKeeper client it needs in {@code master-slave} and {@code cluster} mode, and the Redis pub/sub
 * wake-ups between instances. A queue's ZooKeeper nodes live under {@code /<delay.redis.prefix>} in the
 * {@code delay.zk.namespace}, so queues with different prefixes never share a leader or shards.
 *
 * <p>An auto-configuration, like {@link DelayQueueConfiguration}: an application's own {@link Coordinator},
 * {@link WakeUpChannel} or {@link CuratorFramework} replaces the service's.
 */
@AutoConfiguration
@EnableConfigurationProperties(DelayProperties.class)
public class HaConfiguration {
    private static final Logger log = LoggerFactory.getLogger(HaConfiguration.class);

    /** Matches when {@code delay.ha.mode} needs ZooKeeper. */
    static final class UsesZooKeeper implements Condition {
        @Override
        public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return Binder.get(context.getEnvironment())
                            .bind("delay.ha.mode", HaMode.class)
                            .orElse(HaMode.DEFAULT)
                    != HaMode.STANDALONE;
        }
    }

    /** Started here; the coordinator waits for the connection in the background. */
    @Bean(destroyMethod = "close")
    @Conditional(UsesZooKeeper.class)
    @ConditionalOnMissingBean
    public CuratorFramework curatorFramework(DelayProperties properties) {
        ZooKeeperSettings settings = properties.getZk().toSettings();
        CuratorFramework client = settings.newClient();
        client.start();
        log.info(
                "ZooKeeper {} (namespace {}, session timeout {}, connection timeout {})",
                settings.connect(),
                settings.namespace(),
                settings.sessionTimeout(),
                settings.connectionTimeout());
        return client;
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public Coordinator coordinator(
            DelayProperties properties, EngineConfig config, ObjectProvider<CuratorFramework> zookeeper) {
        HaMode mode = properties.getHa().getMode();
        String basePath = "/" + config.redisPrefix();
        return switch (mode) {
            case STANDALONE -> new StandaloneCoordinator();
            case MASTER_SLAVE -> new LeaderLatchCoordinator(
                    zookeeper.getObject(), basePath, properties.getHa().instanceIdOrGenerated());
            case CLUSTER -> new ShardOwnershipCoordinator(
                    zookeeper.getObject(),
                    basePath,
                    config.shards(),
                    properties.getHa().instanceIdOrGenerated());
        };
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public WakeUpChannel wakeUpChannel(DelayProperties properties, EngineConfig config, UnifiedJedis redis) {
        if (properties.getHa().getMode() == HaMode.STANDALONE) {
            return WakeUpChannel.NONE;
        }
        return new RedisWakeUpChannel(redis, config.redisPrefix(), config.shards());
    }
}
