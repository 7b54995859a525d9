package io.delayqueue.e2e.support;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import redis.clients.jedis.Jedis;

/**
 * One master, one replica and one sentinel on loopback ports. The sentinel monitors the master as
 * {@value #MASTER_NAME} with a quorum of one and declares it down after a second without answers, so
 * killing the master makes it promote the replica within a few seconds.
 */
public final class RedisSentinelFixture implements AutoCloseable {
    public static final String MASTER_NAME = "dq-master";

    private final RedisServerProcess master;
    private final RedisServerProcess replica;
    private final RedisServerProcess sentinel;
    private final Path sentinelConfig;

    public RedisSentinelFixture() {
        RedisServerProcess m = null;
        RedisServerProcess r = null;
        Path config = null;
        try {
            m = RedisServerProcess.start("master", null, List.of());
            r = RedisServerProcess.start(
                    "replica", null, List.of("--replicaof", "127.0.0.1", Integer.toString(m.port())));
            RedisServerProcess replicaOfM = r;
            await("the replica is in sync").atMost(Duration.ofSeconds(30)).until(() -> {
                try (Jedis jedis = replicaOfM.connect()) {
                    return jedis.info("replication").contains("master_link_status:up");
                }
            });
            config = Files.createTempFile("sentinel-", ".conf");
            Files.writeString(
                    config,
                    String.join(
                            "\n",
                            "sentinel monitor " + MASTER_NAME + " 127.0.0.1 " + m.port() + " 1",
                            "sentinel down-after-milliseconds " + MASTER_NAME + " 1000",
                            "sentinel failover-timeout " + MASTER_NAME + " 10000",
                            "sentinel parallel-syncs " + MASTER_NAME + " 1",
                            ""));
            this.sentinel = RedisServerProcess.start("sentinel", config, List.of("--sentinel"));
        } catch (IOException e) {
            closeQuietly(m, r);
            throw new UncheckedIOException(e);
        } catch (RuntimeException | Error e) {
            closeQuietly(m, r);
            throw e;
        }
        this.master = m;
        this.replica = r;
        this.sentinelConfig = config;
        await("the sentinel knows the replica").atMost(Duration.ofSeconds(30)).until(() -> {
            try (Jedis jedis = sentinel.connect()) {
                return jedis.sentinelReplicas(MASTER_NAME).stream()
                        .anyMatch(s -> String.valueOf(replica.port()).equals(s.get("port"))
                                && !s.get("flags").contains("disconnected"));
            }
        });
    }

    private static void closeQuietly(RedisServerProcess... servers) {
        for (RedisServerProcess s : servers) {
            if (s != null) {
                s.close();
            }
        }
    }

    public RedisServerProcess master() {
        return master;
    }

    public RedisServerProcess replica() {
        return replica;
    }

    /** {@code host:port} of the sentinel, for {@code delay.redis.sentinel.nodes}. */
    public String sentinelNodes() {
        return sentinel.hostAndPort();
    }

    /** The port the sentinel currently names for the master. */
    public int currentMasterPort() {
        try (Jedis jedis = sentinel.connect()) {
            return Integer.parseInt(
                    jedis.sentinelGetMasterAddrByName(MASTER_NAME).get(1));
        }
    }

    @Override
    public void close() {
        closeQuietly(sentinel, replica, master);
        try {
            Files.deleteIfExists(sentinelConfig);
        } catch (IOException e) {
            // a temporary file left behind
        }
    }
}
