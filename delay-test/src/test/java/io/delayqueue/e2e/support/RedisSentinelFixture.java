package io.delayqueue.e2e.support;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ClientKillParams;

/**
 * One master, one replica and one sentinel on loopback ports. The sentinel monitors the master as
 * {@value #MASTER_NAME} with a quorum of one and declares it down after a second without answers, so
 * killing the master makes it promote the replica within a few seconds. {@link #withReplicaLink()} has the replica
 * follow its master as a user of its own, which {@link #cutReplicaLink()} disables: the replica keeps trying and
 * receives nothing, and lags as far as the test writes. (A proxy between them would not do: the sentinel points a
 * replica that follows another address back to the master.)
 */
public final class RedisSentinelFixture implements AutoCloseable {
    public static final String MASTER_NAME = "dq-master";

    private final RedisServerProcess master;
    private final RedisServerProcess replica;
    private final RedisServerProcess sentinel;
    private final Path sentinelConfig;
    /** The user the replica follows its master as ({@link #withReplicaLink()}). */
    private static final String REPLICA_USER = "dq-replica";

    /** Whether the replica follows its master as {@link #REPLICA_USER}, whom {@link #cutReplicaLink} disables. */
    private final boolean linked;

    public RedisSentinelFixture() {
        this(false);
    }

    /** The fixture with the replica following its master through a proxy the test can cut. */
    public static RedisSentinelFixture withReplicaLink() {
        return new RedisSentinelFixture(true);
    }

    private RedisSentinelFixture(boolean linked) {
        RedisServerProcess m = null;
        RedisServerProcess r = null;
        Path config = null;
        try {
            m = RedisServerProcess.start(
                    "master",
                    null,
                    linked
                            ? List.of("--user", REPLICA_USER, "on", ">" + REPLICA_USER, "~*", "&*", "+@all")
                            : List.of());
            List<String> follow = new ArrayList<>(List.of("--replicaof", "127.0.0.1", Integer.toString(m.port())));
            if (linked) {
                follow.addAll(List.of("--masteruser", REPLICA_USER, "--masterauth", REPLICA_USER));
            }
            r = RedisServerProcess.start("replica", null, follow);
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
        this.linked = linked;
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

    /**
     * Cuts the replica off from its master ({@link #withReplicaLink()} only) and waits until the replica says its
     * link is down: from then on it receives nothing, and keeps trying.
     */
    public void cutReplicaLink() {
        if (!linked) {
            throw new IllegalStateException("the replica follows its master directly: use withReplicaLink()");
        }
        try (Jedis jedis = master.connect()) {
            jedis.aclSetUser(REPLICA_USER, "off");
            jedis.clientKill(ClientKillParams.clientKillParams().user(REPLICA_USER));
        }
        await("the replica lost its master").atMost(Duration.ofSeconds(30)).until(() -> {
            try (Jedis jedis = replica.connect()) {
                return jedis.info("replication").contains("master_link_status:down");
            }
        });
    }

    /** Waits until the replica has every write its master made so far. */
    public void awaitReplicaInSync() {
        long offset;
        try (Jedis jedis = master.connect()) {
            offset = RedisClusterFixture.replicationOffset(jedis.info("replication"), "master_repl_offset");
        }
        await("the replica took every write of its master")
                .atMost(Duration.ofSeconds(30))
                .until(() -> {
                    try (Jedis jedis = replica.connect()) {
                        return RedisClusterFixture.replicationOffset(jedis.info("replication"), "slave_repl_offset")
                                >= offset;
                    }
                });
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
