package io.delayqueue.core;

import io.delayqueue.config.DelayProperties;
import io.delayqueue.queue.coordination.Coordinator;
import io.delayqueue.queue.coordination.HaMode;
import io.delayqueue.queue.coordination.curator.LeaderLatchCoordinator;
import io.delayqueue.queue.coordination.curator.ShardOwnershipCoordinator;
import io.delayqueue.queue.engine.EngineConfig;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.curator.framework.CuratorFramework;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;
import org.springframework.stereotype.Component;

/**
 * {@code /actuator/health} component {@code coordination}: the HA mode, this instance's role
 * ({@code standalone}, {@code leader}, {@code follower}, {@code member}, {@code disconnected}) and the shards
 * it scans. Down while a {@code master-slave} or {@code cluster} instance has no ZooKeeper connection:
 * it then scans nothing (it still takes pushes).
 */
@Component("coordination")
public class CoordinationHealthIndicator extends AbstractHealthIndicator {
    private final DelayProperties properties;
    private final EngineConfig config;
    private final Coordinator coordinator;
    private final ObjectProvider<CuratorFramework> zookeeper;

    public CoordinationHealthIndicator(
            DelayProperties properties,
            EngineConfig config,
            Coordinator coordinator,
            ObjectProvider<CuratorFramework> zookeeper) {
        this.properties = properties;
        this.config = config;
        this.coordinator = coordinator;
        this.zookeeper = zookeeper;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        HaMode mode = properties.getHa().getMode();
        List<Integer> owned = IntStream.range(0, config.shards())
                .filter(coordinator::owns)
                .boxed()
                .toList();
        builder.withDetail("mode", mode.name().toLowerCase().replace('_', '-'))
                .withDetail("role", coordinator.role())
                .withDetail("ownedShards", owned);
        if (coordinator instanceof LeaderLatchCoordinator leader) {
            builder.withDetail("instanceId", leader.id());
        } else if (coordinator instanceof ShardOwnershipCoordinator member) {
            builder.withDetail("instanceId", member.id()).withDetail("members", member.members());
        }
        CuratorFramework client = mode == HaMode.STANDALONE ? null : zookeeper.getIfAvailable();
        if (client == null) {
            builder.up();
            return;
        }
        boolean connected = client.getZookeeperClient().isConnected();
        builder.withDetail("zookeeper", client.getZookeeperClient().getCurrentConnectionString())
                .withDetail("zookeeperConnected", connected);
        if (connected) {
            builder.up();
        } else {
            builder.down();
        }
    }
}
