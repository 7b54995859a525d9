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

/**
 * A Redis Cluster of masters (no replicas) on free loopback ports, each with a free cluster bus port
 * ({@code cluster-port}, Redis 7): each node started with {@code cluster-enabled}, an equal share of the
 * 16384 slots assigned to each, the nodes introduced with {@code CLUSTER MEET}, ready once every node
 * reports {@code cluster_state:ok}.
 */
public final class RedisClusterFixture implements AutoCloseable {
    private static final int SLOTS = 16384;

    private final List<RedisServerProcess> nodes = new ArrayList<>();
    private final List<Integer> busPorts = new ArrayList<>();

    public RedisClusterFixture(int masters) {
        try {
            for (int i = 0; i < masters; i++) {
                busPorts.add(HaServiceProcess.freePort());
                nodes.add(RedisServerProcess.start(
                        "cluster" + i,
                        null,
                        List.of(
                                "--cluster-enabled", "yes",
                                "--cluster-config-file", "nodes.conf",
                                "--cluster-node-timeout", "2000",
                                "--cluster-port", Integer.toString(busPorts.get(i)))));
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
        for (RedisServerProcess node : nodes) {
            try (Jedis jedis = node.connect()) {
                String info = jedis.clusterInfo();
                if (!info.contains("cluster_state:ok") || !info.contains("cluster_known_nodes:" + nodes.size())) {
                    return false;
                }
            }
        }
        return true;
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
    }
}
