package io.delayqueue.core;

import io.delayqueue.config.RedisProperties;
import io.delayqueue.queue.store.redis.ReplicaWait;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.JedisSentineled;
import redis.clients.jedis.UnifiedJedis;

/**
 * Clients for the Redis deployments besides a single node: a master found through Sentinel
 * ({@link JedisSentineled}, the {@code UnifiedJedis} form of {@code JedisSentinelPool}: it follows the
 * sentinels' {@code +switch-master} to the promoted replica) and Redis Cluster ({@link JedisCluster}, which
 * routes each script by the slot of its keys; all keys of a shard share one hash tag, so one slot).
 */
final class RedisDeployments {
    private RedisDeployments() {}

    /** Whether {@code delay.redis} asks for Sentinel or Cluster rather than {@code delay.redis.uri}. */
    static boolean configured(RedisProperties redis) {
        return redis.getSentinel().isConfigured() || redis.getCluster().isConfigured();
    }

    /**
     * Where the deployment has replicas (Sentinel, Cluster), a delete answers 200 only once one replica took it (a
     * fail-over to a replica that lacks it would hand the job over); the wait is bounded by half the read timeout,
     * since {@code WAIT} blocks its call.
     */
    static ReplicaWait replicaWait(RedisProperties redis) {
        return configured(redis) ? new ReplicaWait(1, redis.getTimeout().dividedBy(2)) : ReplicaWait.NONE;
    }

    static UnifiedJedis create(RedisProperties redis) {
        RedisProperties.Sentinel sentinel = redis.getSentinel();
        RedisProperties.Cluster cluster = redis.getCluster();
        if (sentinel.isConfigured() && cluster.isConfigured()) {
            throw new IllegalArgumentException(
                    "set either delay.redis.sentinel.* or delay.redis.cluster.nodes, not both");
        }
        GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
        pool.setMaxTotal(redis.getMaxConnections());
        pool.setMaxIdle(redis.getMaxConnections());
        // a caller waits for a free connection no longer than for an answer: a push's wait stays bounded
        pool.setMaxWait(redis.getTimeout());
        pool.setJmxEnabled(false);
        JedisClientConfig dataNodes = clientConfig(redis, redis.getUsername(), redis.getPassword());
        if (sentinel.isConfigured()) {
            Set<HostAndPort> sentinels = nodes(sentinel.getNodes(), "delay.redis.sentinel.nodes");
            return new JedisSentineled(
                    sentinel.getMaster(),
                    dataNodes,
                    pool,
                    sentinels,
                    clientConfig(redis, null, sentinel.getPassword()));
        }
        if (cluster.getMaxAttempts() < 1) {
            throw new IllegalArgumentException("delay.redis.cluster.max-attempts must be at least 1");
        }
        // one call's retries (a node down, a fail-over under way) last at most the read timeout, not the timeout
        // times the attempts (Jedis' default): a call that began while a master was down would otherwise sleep in its
        // back-off for seconds after the cluster promoted its replica, and hold up the scanner that made it
        return new JedisCluster(
                nodes(cluster.getNodes(), "delay.redis.cluster.nodes"),
                dataNodes,
                cluster.getMaxAttempts(),
                redis.getTimeout(),
                pool);
    }

    private static JedisClientConfig clientConfig(RedisProperties redis, String user, String password) {
        int timeoutMs = (int) redis.getTimeout().toMillis();
        return DefaultJedisClientConfig.builder()
                .user(blankToNull(user))
                .password(blankToNull(password))
                .connectionTimeoutMillis(timeoutMs)
                .socketTimeoutMillis(timeoutMs)
                .clientName("delay-queue")
                .build();
    }

    private static Set<HostAndPort> nodes(List<String> nodes, String property) {
        Set<HostAndPort> parsed = new LinkedHashSet<>();
        for (String node : nodes) {
            String n = node.trim();
            int colon = n.lastIndexOf(':');
            if (colon <= 0 || colon == n.length() - 1) {
                throw new IllegalArgumentException(property + " must list host:port entries, got '" + node + "'");
            }
            try {
                parsed.add(new HostAndPort(n.substring(0, colon), Integer.parseInt(n.substring(colon + 1))));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(property + " has a bad port in '" + node + "'", e);
            }
        }
        if (parsed.isEmpty()) {
            throw new IllegalArgumentException(property + " must list at least one host:port");
        }
        return parsed;
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
