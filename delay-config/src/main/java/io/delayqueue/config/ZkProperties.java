package io.delayqueue.config;

import io.delayqueue.queue.coordination.curator.ZooKeeperSettings;
import java.time.Duration;

/** ZooKeeper, used by the {@code master-slave} and {@code cluster} modes. */
public class ZkProperties {
    /** The ensemble, {@code host:port[,host:port...]}. */
    private String connect;

    /** Prefix of every ZooKeeper path the service writes (each queue then lives under its redis prefix). */
    private String namespace = ZooKeeperSettings.DEFAULT_NAMESPACE;

    /** A dead instance keeps its leadership or shards this long; the fail-over takes about this plus a second. */
    private Duration sessionTimeout = ZooKeeperSettings.DEFAULT_SESSION_TIMEOUT;

    /** Longest wait for a connection to ZooKeeper. */
    private Duration connectionTimeout = ZooKeeperSettings.DEFAULT_CONNECTION_TIMEOUT;

    private final RetryPolicy retry = new RetryPolicy();

    public String getConnect() {
        return connect;
    }

    public void setConnect(String connect) {
        this.connect = connect;
    }

    public String getNamespace() {
        return namespace;
    }

    public void setNamespace(String namespace) {
        this.namespace = namespace;
    }

    public Duration getSessionTimeout() {
        return sessionTimeout;
    }

    public void setSessionTimeout(Duration sessionTimeout) {
        this.sessionTimeout = sessionTimeout;
    }

    public Duration getConnectionTimeout() {
        return connectionTimeout;
    }

    public void setConnectionTimeout(Duration connectionTimeout) {
        this.connectionTimeout = connectionTimeout;
    }

    public RetryPolicy getRetry() {
        return retry;
    }

    /** The Curator settings; throws {@link IllegalArgumentException} naming a value it cannot work with. */
    public ZooKeeperSettings toSettings() {
        return new ZooKeeperSettings(
                connect,
                namespace,
                sessionTimeout,
                connectionTimeout,
                retry.baseSleep,
                retry.maxRetries,
                retry.maxSleep);
    }

    /** Exponential back-off between retried ZooKeeper operations. */
    public static class RetryPolicy {
        /** First wait. */
        private Duration baseSleep = ZooKeeperSettings.DEFAULT_RETRY_BASE_SLEEP;

        /** Most retries of one operation. */
        private int maxRetries = ZooKeeperSettings.DEFAULT_RETRY_MAX_RETRIES;

        /** Longest wait. */
        private Duration maxSleep = ZooKeeperSettings.DEFAULT_RETRY_MAX_SLEEP;

        public Duration getBaseSleep() {
            return baseSleep;
        }

        public void setBaseSleep(Duration baseSleep) {
            this.baseSleep = baseSleep;
        }

        public int getMaxRetries() {
            return maxRetries;
        }

        public void setMaxRetries(int maxRetries) {
            this.maxRetries = maxRetries;
        }

        public Duration getMaxSleep() {
            return maxSleep;
        }

        public void setMaxSleep(Duration maxSleep) {
            this.maxSleep = maxSleep;
        }
    }
}
