package io.delayqueue.config;

import io.delayqueue.queue.engine.EngineConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The Redis that holds the queue. */
public class RedisProperties {
    /** {@code redis://[user:password@]host:port[/db]}; unset runs an embedded Redis on a free port. */
    private String uri;

    /** Prefix of every key, so that several queues or tests can share one Redis. */
    private String prefix = EngineConfig.DEFAULT_REDIS_PREFIX;

    /** Largest number of pooled connections. */
    private int maxConnections = 32;

    /** Connect and read timeout of each Redis call. */
    private Duration timeout = Duration.ofSeconds(2);

    /** User of the Redis data nodes under Sentinel or Cluster (a single node takes it from the uri). */
    private String username;

    /** Password of the Redis data nodes under Sentinel or Cluster (a single node takes it from the uri). */
    private String password;

    private final Sentinel sentinel = new Sentinel();
    private final Cluster cluster = new Cluster();

    public String getUri() {
        return uri;
    }

    public void setUri(String uri) {
        this.uri = uri;
    }

    public String getPrefix() {
        return prefix;
    }

    public void setPrefix(String prefix) {
        this.prefix = prefix;
    }

    public int getMaxConnections() {
        return maxConnections;
    }

    public void setMaxConnections(int maxConnections) {
        this.maxConnections = maxConnections;
    }

    public Duration getTimeout() {
        return timeout;
    }

    public void setTimeout(Duration timeout) {
        this.timeout = timeout;
    }

    public String getUsername() {
        return username;
    }

    public void setUsername(String username) {
        this.username = username;
    }

    public String getPassword() {
        return password;
    }

    public void setPassword(String password) {
        this.password = password;
    }

    public Sentinel getSentinel() {
        return sentinel;
    }

    public Cluster getCluster() {
        return cluster;
    }

    /** A Redis master found through Sentinel; set {@code master} and {@code nodes} to use it instead of the uri. */
    public static class Sentinel {
        /** Name of the master set the sentinels monitor. */
        private String master;

        /** The sentinels, {@code host:port} each. */
        private List<String> nodes = new ArrayList<>();

        /** Password of the sentinels themselves, when they require one. */
        private String password;

        public boolean isConfigured() {
            return master != null && !master.isBlank();
        }

        public String getMaster() {
            return master;
        }

        public void setMaster(String master) {
            this.master = master;
        }

        public List<String> getNodes() {
            return nodes;
        }

        public void setNodes(List<String> nodes) {
            this.nodes = nodes;
        }

        public String getPassword() {
            return password;
        }

        public void setPassword(String password) {
            this.password = password;
        }
    }

    /** A Redis Cluster; set {@code nodes} to use it instead of the uri. */
    public static class Cluster {
        /** Some nodes of the cluster, {@code host:port} each; the client discovers the rest. */
        private List<String> nodes = new ArrayList<>();

        /** Most attempts of one command while slots move or a master fails over. */
        private int maxAttempts = 5;

        public boolean isConfigured() {
            return nodes != null && !nodes.isEmpty();
        }

        public List<String> getNodes() {
            return nodes;
        }

        public void setNodes(List<String> nodes) {
            this.nodes = nodes;
        }

        public int getMaxAttempts() {
            return maxAttempts;
        }

        public void setMaxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
        }
    }
}
