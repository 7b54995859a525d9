package io.delayqueue.e2e.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.params.ClientKillParams;

/**
 * A Redis Cluster of masters on free loopback ports, each with a free cluster bus port ({@code cluster-port}, Redis
 * 7): each node started with {@code cluster-enabled}, an equal share of the 16384 slots assigned to each, the nodes
 * introduced with {@code CLUSTER MEET}, ready once every node reports {@code cluster_state:ok}. {@link
 * #withReplicas} gives each master a replica ({@code CLUSTER REPLICATE}), which follows it as a user of its own that
 * {@link #cutReplicaLink} disables: the replica keeps trying and receives nothing, and lags as far as the test writes.
 */
public final class RedisClusterFixture implements AutoCloseable {
    private static final int SLOTS = 16384;

    /** The user a replica follows its master as ({@link #withReplicas}). */
    private static final String REPLICA_USER = "dq-replica";

    private final List<RedisServerProcess> nodes = new ArrayList<>();
    private final List<Integer> busPorts = new ArrayList<>();
    /** The replica of each master, by the master's index ({@link #withReplicas}); empty without. */
    private final List<RedisServerProcess> replicas = new ArrayList<>();

    private final List<Integer> replicaBusPorts = new ArrayList<>();

    public RedisClusterFixture(int masters) {
        this(masters, false);
    }

    /** A cluster of {@code masters}, each with one replica. */
    public static RedisClusterFixture withReplicas(int masters) {
        return new RedisClusterFixture(masters, true);
    }

    private static RedisServerProcess startNode(String name, int busPort, List<String> more) {
        List<String> args = new ArrayList<>(List.of(
                "--cluster-enabled", "yes",
                "--cluster-config-file", "nodes.conf",
                "--cluster-node-timeout", "2000",
                "--cluster-port", Integer.toString(busPort)));
        args.addAll(more);
        return RedisServerProcess.start(name, null, args);
    }

    private RedisClusterFixture(int masters, boolean withReplicas) {
        try {
            List<String> replicaUser = withReplicas
                    ? List.of("--user", REPLICA_USER, "on", ">" + REPLICA_USER, "~*", "&*", "+@all")
                    : List.of();
            for (int i = 0; i < masters; i++) {
                busPorts.add(HaServiceProcess.freePort());
                nodes.add(startNode("cluster" + i, busPorts.get(i), replicaUser));
            }
            if (withReplicas) {
                for (int i = 0; i < masters; i++) {
                    replicaBusPorts.add(HaServiceProcess.freePort());
                    replicas.add(startNode(
                            "cluster-replica" + i,
                            replicaBusPorts.get(i),
                            List.of("--masteruser", REPLICA_USER, "--masterauth", REPLICA_USER)));
                }
            }
            for (int i = 0; i < masters; i++) {
                int from = SLOTS * i / masters;
                int to = SLOTS * (i + 1) / masters;
                try (Jedis jedis = nodes.get(i).connect()) {
                    jedis.clusterAddSlots(IntStream.range(from, to).toArray());
                }
            }
            try (Jedis first = nodes.get(0).connect()) {
                for (int i = 1; i < masters; i++) {
                    // with its bus port: the default, port + 10000, may be taken or out of range
                    first.sendCommand(
                            Protocol.Command.CLUSTER,
                            "MEET",
                            "127.0.0.1",
                            Integer.toString(nodes.get(i).port()),
                            Integer.toString(busPorts.get(i)));
                }
                for (int i = 0; i < replicas.size(); i++) {
                    first.sendCommand(
                            Protocol.Command.CLUSTER,
                            "MEET",
                            "127.0.0.1",
                            Integer.toString(replicas.get(i).port()),
                            Integer.toString(replicaBusPorts.get(i)));
                }
            }
            for (int i = 0; i < replicas.size(); i++) {
                String masterId;
                try (Jedis master = nodes.get(i).connect()) {
                    masterId = master.clusterMyId();
                }
                RedisServerProcess replica = replicas.get(i);
                await("the replica knows its master")
                        .atMost(Duration.ofSeconds(30))
                        .ignoreExceptions()
                        .until(() -> {
                            try (Jedis jedis = replica.connect()) {
                                return "OK".equals(jedis.clusterReplicate(masterId));
                            }
                        });
            }
            await("the cluster is ok on every node")
                    .atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(this.ready())
                            .as(() -> "the cluster is ok on every node" + " " + this.states())
                            .isTrue());
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    private boolean ready() {
        int known = nodes.size() + replicas.size();
        for (RedisServerProcess node : nodes) {
            try (Jedis jedis = node.connect()) {
                String info = jedis.clusterInfo();
                if (!info.contains("cluster_state:ok") || !info.contains("cluster_known_nodes:" + known)) {
                    return false;
                }
            }
        }
        for (RedisServerProcess replica : replicas) {
            try (Jedis jedis = replica.connect()) {
                if (!jedis.info("replication").contains("master_link_status:up")) {
                    return false;
                }
            }
        }
        return true;
    }

    /** The replica of the master at {@code index} ({@link #withReplicas}). */
    public RedisServerProcess replicaOf(int index) {
        return replicas.get(index);
    }

    /** The index of the master that holds {@code slot}. */
    public int masterOfSlot(int slot) {
        int masters = nodes.size();
        for (int i = 0; i < masters; i++) {
            if (slot < SLOTS * (i + 1) / masters) {
                return i;
            }
        }
        throw new IllegalArgumentException("no slot " + slot);
    }

    /** Waits until the replica of the master at {@code index} has every write its master made so far. */
    public void awaitReplicaInSync(int index) {
        long offset;
        try (Jedis master = nodes.get(index).connect()) {
            offset = replicationOffset(master.info("replication"), "master_repl_offset");
        }
        await("the replica took every write of its master")
                .atMost(Duration.ofSeconds(30))
                .until(() -> {
                    try (Jedis replica = replicas.get(index).connect()) {
                        return replicationOffset(replica.info("replication"), "slave_repl_offset") >= offset;
                    }
                });
    }

    static long replicationOffset(String info, String field) {
        return info.lines()
                .filter(l -> l.startsWith(field + ":"))
                .mapToLong(l -> Long.parseLong(l.substring(field.length() + 1).trim()))
                .findFirst()
                .orElse(-1);
    }

    /**
     * Cuts the replica of the master at {@code index} off (its user disabled, its link closed) and waits until it says
     * its link is down: from then on it receives nothing, and keeps trying.
     */
    public void cutReplicaLink(int index) {
        try (Jedis master = nodes.get(index).connect()) {
            master.aclSetUser(REPLICA_USER, "off");
            master.clientKill(ClientKillParams.clientKillParams().user(REPLICA_USER));
        }
        await("the replica lost its master").atMost(Duration.ofSeconds(30)).until(() -> {
            try (Jedis jedis = replicas.get(index).connect()) {
                return jedis.info("replication").contains("master_link_status:down");
            }
        });
    }

    /**
     * Whether the replica of the master at {@code index} is a master now (promoted) and the cluster serves its slots
     * again ({@code cluster_state:ok} there): a client can reach the slots from then on, not before.
     */
    public boolean promoted(int index) {
        try (Jedis jedis = replicas.get(index).connect()) {
            return jedis.info("replication").contains("role:master")
                    && jedis.clusterInfo().contains("cluster_state:ok");
        }
    }

    private String states() {
        return nodes.stream()
                .map(n -> {
                    try (Jedis jedis = n.connect()) {
                        return n.port() + ": "
                                + jedis.clusterInfo().lines().limit(3).toList();
                    }
                })
                .collect(Collectors.joining("; "));
    }

    /** {@code host:port,host:port,...} for {@code delay.redis.cluster.nodes}. */
    public String nodes() {
        return nodes.stream().map(RedisServerProcess::hostAndPort).collect(Collectors.joining(","));
    }

    public List<RedisServerProcess> servers() {
        return nodes;
    }

    @Override
    public void close() {
        nodes.forEach(RedisServerProcess::close);
        replicas.forEach(RedisServerProcess::close);
    }
}
