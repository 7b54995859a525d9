package io.delayqueue.queue.coordination.curator;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@link ShardOwnershipCoordinator} lets this instance scan, in memory: per shard, the connection epoch in
 * which holding its lock was last confirmed, the ownership term (the lock node's path), and the gate between
 * scan passes and handing the shard over. The coordinator keeps the ZooKeeper side (membership, locks,
 * sessions) and records here what it holds.
 *
 * <p>Ownership is stamped with the connection epoch it was confirmed in: every connection event starts a new
 * epoch, so a confirmation racing with a connection event never outlives it, and on {@code SUSPENDED} or
 * {@code LOST} every shard stops being owned at once.
 *
 * <p>Threading: scanner threads call {@link #owns}, {@link #term}, {@link #tryBeginScan} and {@link #endScan} at
 * any time; the connection listener calls {@link #connectionChanged}; the balancer thread calls the rest.
 * Confirming and starting an epoch are mutually exclusive under this object's lock.
 */
final class ShardOwnership {
    private static final Logger log = LoggerFactory.getLogger(ShardOwnership.class);
    /** How long handing a shard over waits for its scan pass in progress. */
    static final long CLOSE_WAIT_SECONDS = 10;

    private final int shards;
    private final BooleanSupplier answeredRecently;
    /** Per shard: the path of this instance's lock node while it holds the lock (the ownership term), or null. */
    private final AtomicReferenceArray<String> terms;
    /** Per shard: scan passes hold the read lock; handing the shard over takes the write lock. */
    private final ReentrantReadWriteLock[] passes;
    /** Per shard: the connection epoch in which this instance last confirmed holding its lock, or -1. */
    private final AtomicLongArray ownedInEpoch;

    private final AtomicLong epoch = new AtomicLong(1);
    private volatile boolean connected;

    /** @param answeredRecently whether ZooKeeper answered recently (see {@link SessionLiveness}) */
    ShardOwnership(int shards, BooleanSupplier answeredRecently) {
        this.shards = shards;
        this.answeredRecently = answeredRecently;
        this.terms = new AtomicReferenceArray<>(shards);
        this.passes = new ReentrantReadWriteLock[shards];
        this.ownedInEpoch = new AtomicLongArray(shards);
        for (int s = 0; s < shards; s++) {
            passes[s] = new ReentrantReadWriteLock();
            ownedInEpoch.set(s, -1);
        }
    }

    /**
     * Runs {@code subscribe} (which registers the connection listener) and takes the connection state from
     * {@code isConnected}, both under this object's lock: an event the listener hears from then on is applied
     * after that read, never overwritten by it.
     */
    synchronized void startTracking(Runnable subscribe, BooleanSupplier isConnected) {
        subscribe.run();
        connected = isConnected.getAsBoolean();
    }

    /** A connection event: starts a new epoch, so nothing confirmed before it counts any more. */
    synchronized void connectionChanged(boolean nowConnected) {
        // a new epoch first: whatever was confirmed before this event no longer counts
        epoch.incrementAndGet();
        connected = nowConnected;
    }

    boolean connected() {
        return connected;
    }

    /** The current connection epoch; hand it to {@link #confirm} after working ZooKeeper in it. */
    long epoch() {
        return epoch.get();
    }

    /** Confirmed in the current connection epoch, and ZooKeeper answered recently (see {@link SessionLiveness}). */
    boolean owns(int shard) {
        return connected && ownedInEpoch.get(shard) == epoch.get() && answeredRecently.getAsBoolean();
    }

    /** The path of this instance's lock node of the shard while it owns the shard, else null. */
    String term(int shard) {
        return owns(shard) ? terms.get(shard) : null;
    }

    /** The path of this instance's lock node of the shard while it holds the lock, owned yet or not. */
    String heldTerm(int shard) {
        return terms.get(shard);
    }

    boolean tryBeginScan(int shard) {
        ReentrantReadWriteLock.ReadLock pass = passes[shard].readLock();
        if (!pass.tryLock()) {
            return false;
        }
        if (owns(shard)) {
            return true;
        }
        pass.unlock();
        return false;
    }

    void endScan(int shard) {
        passes[shard].readLock().unlock();
    }

    /** The shard's lock was taken: its node's path is the term, owned once {@linkplain #confirm confirmed}. */
    void lockTaken(int shard, String lockPath) {
        terms.set(shard, lockPath);
    }

    /** What {@link #confirm} did. */
    enum Confirmation {
        NOTHING_NEW,
        /** Some shard became owned. */
        NEW_SHARDS,
        /** The connection is down, or a connection event came in since the epoch was read: look again. */
        EPOCH_OVER
    }

    /**
     * Confirms the shards in {@code held} as owned in {@code confirmedEpoch}, unless the connection is down or a
     * connection event came in since that epoch was read.
     */
    synchronized Confirmation confirm(boolean[] held, long confirmedEpoch) {
        if (epoch.get() != confirmedEpoch || !connected) {
            return Confirmation.EPOCH_OVER;
        }
        Confirmation result = Confirmation.NOTHING_NEW;
        for (int s = 0; s < shards; s++) {
            if (held[s] && ownedInEpoch.get(s) != confirmedEpoch) {
                ownedInEpoch.set(s, confirmedEpoch);
                result = Confirmation.NEW_SHARDS;
            }
        }
        return result;
    }

    /** Stops scanning {@code shard} and waits for its pass in progress; the lock may be released after. */
    void revokeAndAwaitPass(int shard) {
        ownedInEpoch.set(shard, -1);
        terms.set(shard, null);
        ReentrantReadWriteLock.WriteLock quiet = passes[shard].writeLock();
        boolean waited = false;
        try {
            waited = quiet.tryLock(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (waited) {
            quiet.unlock();
        } else {
            log.warn("cluster: a scan pass of shard {} did not end within {} s", shard, CLOSE_WAIT_SECONDS);
        }
    }

    /** Stops scanning every shard at once (without waiting for passes). */
    void revokeAll() {
        for (int s = 0; s < shards; s++) {
            ownedInEpoch.set(s, -1);
        }
    }

    /** The shards owned now, for the log. */
    List<Integer> owned() {
        List<Integer> owned = new ArrayList<>();
        for (int s = 0; s < shards; s++) {
            if (owns(s)) {
                owned.add(s);
            }
        }
        return owned;
    }
}
