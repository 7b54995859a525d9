package io.delayqueue.queue.coordination;

import java.util.List;

/**
 * Decides which shards this instance scans. Standalone owns them all; master-slave owns all while leader
 * and none otherwise; cluster mode divides them among live instances. The engine asks {@link #owns} before
 * every scan pass, and a coordinator that loses ownership (ZooKeeper {@code SUSPENDED}/{@code LOST}) must
 * answer {@code false} before another instance can take over.
 */
public interface Coordinator extends AutoCloseable {

    /** Starts taking part; {@code listener} is told whenever the owned shards change. */
    void start(OwnershipListener listener);

    boolean owns(int shard);

    /**
     * Begins a scan pass of {@code shard}: {@code true} when this instance owns it now, and then the caller
     * must call {@link #endScan} when the pass is over. Until then a coordinator that gives the shard up of
     * its own accord (rebalancing, shutdown) waits before it lets another instance take it, so two instances
     * never scan one shard at once. A lost ZooKeeper connection cannot wait: {@link #owns} turns {@code false}
     * at once, well before the session expires and another instance can take over.
     */
    default boolean tryBeginScan(int shard) {
        return owns(shard);
    }

    /** Ends a pass begun by a successful {@link #tryBeginScan}, on the same thread. */
    default void endScan(int shard) {}

    /**
     * Whether the shards can change hands between instances, so that the moves of a shard's jobs must be fenced by
     * an owner epoch taken for each {@link #ownershipTerm}: {@code true} for the ZooKeeper coordinators; {@code
     * false} for one that owns its shards for its whole life (standalone), whose moves carry no epoch.
     */
    default boolean fencesOwnership() {
        return false;
    }

    /**
     * What proves this instance's current hold of {@code shard} (for ZooKeeper, the path of its lock or latch
     * node): it changes whenever the instance takes the shard anew, and {@link #confirmTerm} tells whether it
     * still holds. The engine takes a new owner epoch in the store for each term (see {@link
     * io.delayqueue.queue.store.JobStore#takeEpoch}). {@code null} when the shard is not owned (then its jobs are
     * never moved), and always for a coordinator that does not {@link #fencesOwnership fence}.
     */
    default String ownershipTerm(int shard) {
        return null;
    }

    /**
     * Asks the coordination service now (a round trip) whether {@code term} still holds: this instance has held
     * {@code shard} without a break since the term began, so no other instance can have owned it meanwhile.
     */
    default boolean confirmTerm(int shard, String term) {
        return true;
    }

    /** This instance's role for {@code /stats} and health: {@code standalone}, {@code leader}, ... */
    String role();

    /** The instances, their roles and shards, and the ZooKeeper connection, for the web console. */
    default CoordinationView view() {
        return new CoordinationView(
                "standalone",
                "this instance",
                null,
                List.of(new CoordinationView.Instance("this instance", role(), null)));
    }

    @Override
    void close();

    /** Told when the set of owned shards changed. */
    @FunctionalInterface
    interface OwnershipListener {
        void ownershipChanged();
    }
}
