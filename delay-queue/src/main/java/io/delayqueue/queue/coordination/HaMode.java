package io.delayqueue.queue.coordination;

/** How instances of one queue share the work ({@code delay.ha.mode}). */
public enum HaMode {
    /** This process is the only instance and scans every shard. */
    STANDALONE,
    /** A ZooKeeper {@code LeaderLatch} elects one instance that scans every shard; the others serve HTTP only. */
    MASTER_SLAVE,
    /** The shards are divided among the live instances; each shard is scanned by exactly one of them. */
    CLUSTER;

    public static final HaMode DEFAULT = STANDALONE;
}
