package io.delayqueue.queue.store.redis;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import redis.clients.jedis.BuilderFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.CommandObject;
import redis.clients.jedis.CommandObjects;
import redis.clients.jedis.Connection;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * Waits until Redis replicas took the writes made so far, so that a fail-over to a replica cannot lose them (Redis
 * replicates asynchronously: a write the master answered may be missing on the replica promoted next). Used where the
 * deployment has replicas (Sentinel, Cluster) for writes that must not be undone by a fail-over: a delete answered
 * 200.
 *
 * <p>Where the deployment has replicas: a master that has shown none connected since the service started (a Redis
 * Cluster of masters alone, or a replica promoted when its master died) is not waited for; once one has shown a
 * replica, a delete waits for one even while it is cut off (a replica that misses the delete could still be
 * promoted). Each wait asks the master for its replication state first ({@code INFO replication}), on the same
 * connection.
 *
 * <p>{@code WAIT} counts the replicas that reached the offset of its own connection's last write, and the store's
 * commands take any pooled connection: so one connection writes a mark under the shard's hash tag (the same master
 * as the shard's scripts, in Cluster too) and then waits. The replication stream is ordered, so a replica that has
 * the mark has every write the master made before it. A fail-over between the write and the mark cannot be told
 * apart (the mark lands on the new master): the fail-over protocol (engine.failover) makes the new master agree with
 * the journal before anything of it is handed over.
 */
public final class ReplicaWait {
    /** No replicas to wait for (a single node, the embedded Redis). */
    public static final ReplicaWait NONE = new ReplicaWait(0, Duration.ZERO);

    private static final CommandObjects COMMANDS = new CommandObjects();

    /** {@code connected_slaves:} of {@code INFO replication}, at least one. */
    private static final Pattern CONNECTED_REPLICAS = Pattern.compile("(?m)^connected_slaves:[1-9]");
    /** {@code master_replid:} of {@code INFO replication}. */
    private static final Pattern REPLICATION_ID = Pattern.compile("(?m)^master_replid:(\\w+)");

    private final int replicas;
    private final long timeoutMs;
    /** The replication ids of the masters that have shown a connected replica. */
    private final Set<String> replicated = ConcurrentHashMap.newKeySet();

    /**
     * @param replicas replicas that must have taken the writes (0: do not wait)
     * @param timeout how long to wait for them; below the client's read timeout, since {@code WAIT} blocks its call
     */
    public ReplicaWait(int replicas, Duration timeout) {
        if (replicas < 0) {
            throw new IllegalArgumentException("replicas must not be negative");
        }
        if (replicas > 0 && timeout.toMillis() < 1) {
            throw new IllegalArgumentException("the replica wait needs a timeout of at least 1 ms");
        }
        this.replicas = replicas;
        this.timeoutMs = timeout.toMillis();
    }

    public int replicas() {
        return replicas;
    }

    /**
     * Whether at least {@link #replicas()} replicas took every write made before this call, within the timeout
     * (always true when none are wanted, and while the master of {@code markKey} has shown no replica yet: a Redis
     * Cluster of masters alone). Redis failures throw, as every store call does.
     */
    boolean await(UnifiedJedis redis, String markKey) {
        if (replicas == 0) {
            return true;
        }
        return RedisFailures.call(() -> {
            if (redis instanceof JedisCluster cluster) {
                try (Connection connection = cluster.getConnectionFromSlot(JedisClusterCRC16.getSlot(markKey))) {
                    return await(connection::executeCommand, markKey);
                }
            }
            try (Pipeline pipeline = (Pipeline) redis.pipelined()) {
                return await(
                        new OneConnection() {
                            @Override
                            public <T> T run(CommandObject<T> command) {
                                Response<T> response = pipeline.appendCommand(command);
                                pipeline.sync();
                                return response.get();
                            }
                        },
                        markKey);
            }
        });
    }

    private boolean await(OneConnection connection, String markKey) {
        String info = connection.run(new CommandObject<>(
                new CommandArguments(Protocol.Command.INFO).add("replication"), BuilderFactory.STRING));
        Matcher id = REPLICATION_ID.matcher(info);
        // a master is known by its replication id, which a promoted replica changes
        String master = id.find() ? id.group(1) : markKey;
        if (CONNECTED_REPLICAS.matcher(info).find()) {
            // from now on this master is known to have replicas: one that drops out is waited for
            replicated.add(master);
        } else if (!replicated.contains(master)) {
            return true;
        }
        connection.run(COMMANDS.incr(markKey));
        return connection.run(COMMANDS.waitReplicas(replicas, timeoutMs)) >= replicas;
    }

    /** Commands run one after the other on one connection. */
    private interface OneConnection {
        <T> T run(CommandObject<T> command);
    }
}
