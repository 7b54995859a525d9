package io.delayqueue.queue.coordination.curator;

import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * How to reach ZooKeeper ({@code delay.zk.*}). The {@code DEFAULT_*} constants are the one source of the
 * defaults; the Spring properties refer to them.
 *
 * <p>The session timeout bounds a fail-over: an instance that dies keeps its leadership or shards until
 * ZooKeeper expires its session, and a live one that loses its connection stops scanning when Curator
 * reports {@code SUSPENDED}, before that. The server clamps the timeout to 2 to 20 of its ticks.
 *
 * @param connect {@code host:port[,host:port...]}
 * @param namespace a prefix of every path this service writes, so that it can share an ensemble
 * @param retryBaseSleep first wait of the exponential back-off between retried ZooKeeper operations
 * @param retryMaxRetries most retries of one operation
 * @param retryMaxSleep longest wait between two retries
 */
public record ZooKeeperSettings(
        String connect,
        String namespace,
        Duration sessionTimeout,
        Duration connectionTimeout,
        Duration retryBaseSleep,
        int retryMaxRetries,
        Duration retryMaxSleep) {

    public static final String DEFAULT_NAMESPACE = "delay-queue";
    public static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(10);
    public static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(5);
    public static final Duration DEFAULT_RETRY_BASE_SLEEP = Duration.ofMillis(200);
    public static final int DEFAULT_RETRY_MAX_RETRIES = 10;
    public static final Duration DEFAULT_RETRY_MAX_SLEEP = Duration.ofSeconds(5);

    /** Rejects settings Curator cannot work with, naming the property. */
    public ZooKeeperSettings {
        require(connect != null && !connect.isBlank(), "delay.zk.connect must name the ZooKeeper servers");
        require(
                namespace != null && !namespace.isBlank() && !namespace.startsWith("/") && !namespace.endsWith("/"),
                "delay.zk.namespace must be a path without leading or trailing '/'");
        requirePositive(sessionTimeout, "delay.zk.session-timeout");
        requirePositive(connectionTimeout, "delay.zk.connection-timeout");
        requirePositive(retryBaseSleep, "delay.zk.retry.base-sleep");
        require(retryMaxRetries >= 0 && retryMaxRetries <= 29, "delay.zk.retry.max-retries must be between 0 and 29");
        requirePositive(retryMaxSleep, "delay.zk.retry.max-sleep");
    }

    /** Defaults for everything but the servers. */
    public static ZooKeeperSettings of(String connect) {
        return new ZooKeeperSettings(
                connect,
                DEFAULT_NAMESPACE,
                DEFAULT_SESSION_TIMEOUT,
                DEFAULT_CONNECTION_TIMEOUT,
                DEFAULT_RETRY_BASE_SLEEP,
                DEFAULT_RETRY_MAX_RETRIES,
                DEFAULT_RETRY_MAX_SLEEP);
    }

    public ZooKeeperSettings withTimeouts(Duration session, Duration connection) {
        return new ZooKeeperSettings(
                connect, namespace, session, connection, retryBaseSleep, retryMaxRetries, retryMaxSleep);
    }

    /** A Curator client with these settings, not yet started. */
    public CuratorFramework newClient() {
        return CuratorFrameworkFactory.builder()
                .connectString(connect)
                .namespace(namespace)
                .sessionTimeoutMs(millis(sessionTimeout))
                .connectionTimeoutMs(millis(connectionTimeout))
                .retryPolicy(
                        new ExponentialBackoffRetry(millis(retryBaseSleep), retryMaxRetries, millis(retryMaxSleep)))
                .build();
    }

    private static int millis(Duration d) {
        return (int) Math.min(Integer.MAX_VALUE, d.toMillis());
    }

    private static void requirePositive(Duration d, String name) {
        require(d != null && !d.isNegative() && !d.isZero(), name + " must be positive");
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }
}
