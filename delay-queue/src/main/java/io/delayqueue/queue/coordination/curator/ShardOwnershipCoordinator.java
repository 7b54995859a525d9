package io.delayqueue.queue.coordination.curator;

import io.delayqueue.queue.coordination.CoordinationView;
import io.delayqueue.queue.coordination.Coordinator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code cluster}: the shards are divided among the live instances of a queue, each shard scanned by exactly
 * one instance at a time.
 *
 * <ul>
 *   <li>Membership: every instance keeps an ephemeral node {@code <base>/members/<id>} (a Curator
 *       {@link PersistentNode}, re-created after a session loss). It disappears when the instance stops, or
 *       when ZooKeeper expires the session of one that died.
 *   <li>Assignment: over the sorted member ids, shard {@code s} belongs to member {@code s mod n}. Every
 *       instance computes it from what it sees; two instances may briefly see different member lists.
 *   <li>Exclusion: scanning a shard needs its lock, an {@link InterProcessMutex} at
 *       {@code <base>/shards/<s>}. The assignment only says which locks an instance goes for; the lock is
 *       what makes an owner unique while the views disagree. A shard changes hands when its owner stops
 *       scanning it, waits for the pass in progress and releases the lock; the new owner's next attempt
 *       takes it.
 * </ul>
 *
 * <p>All ZooKeeper work runs on one balancer thread (an {@code InterProcessMutex} is released by the thread
 * that took it), woken by membership changes and connection events, and retrying every
 * {@value #UNSETTLED_RETRY_MS} ms while it does not yet hold every lock it wants.
 *
 * <p>On {@code SUSPENDED} or {@code LOST} the connection listener ends ownership of every shard at once:
 * the locks stay held in ZooKeeper until the session expires, which is a full session timeout after the
 * last contact, later than the client notices. A session that comes back ({@code RECONNECTED}) keeps its
 * locks; a new session has lost them and takes them anew. Ownership is stamped with the connection epoch it
 * was confirmed in, so a confirmation racing with a connection event never outlives it: {@link ShardOwnership}
 * keeps that record, and the gate between scan passes and hand-overs; this class works ZooKeeper.
 */
public final class ShardOwnershipCoordinator implements Coordinator {
    private static final Logger log = LoggerFactory.getLogger(ShardOwnershipCoordinator.class);
    static final long UNSETTLED_RETRY_MS = 100;
    private static final long SETTLED_RECHECK_MS = 5_000;

    private enum State {
        LATENT,
        STARTED,
        CLOSED
    }

    private final CuratorFramework client;
    private final int shards;
    private final String id;
    private final String membersPath;
    private final String shardsPath;
    private final PersistentNode member;
    private final ShardLock[] locks;
    private final SessionLiveness liveness;
    private final ShardOwnership ownership;

    private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
    private final ConnectionStateListener connectionListener = (c, newState) -> connectionChanged(newState);
    private final CuratorWatcher membershipWatcher = event -> wake();
    private final Object wakeLock = new Object();
    private volatile OwnershipListener listener = () -> {};
    private volatile List<String> members = List.of();
    /** The last ZooKeeper connection state heard, for {@link #view}. */
    private volatile String zooKeeperState = "CONNECTING";

    private Thread balancer;

    // balancer thread only
    private final boolean[] held;
    private long heldSession;
    private boolean woken;

    /**
     * @param basePath the queue's ZooKeeper path inside the client's namespace, e.g. {@code /dq}
     * @param shards the queue's shard count
     * @param id this instance's member name (unique among the live instances, no {@code /})
     */
    public ShardOwnershipCoordinator(CuratorFramework client, String basePath, int shards, String id) {
        if (id.isEmpty() || id.contains("/")) {
            throw new IllegalArgumentException("member id must be non-empty and free of '/': " + id);
        }
        this.client = client;
        this.shards = shards;
        this.id = id;
        this.membersPath = ZKPaths.makePath(basePath, "members");
        this.shardsPath = ZKPaths.makePath(basePath, "shards");
        this.member = new PersistentNode(
                client,
                CreateMode.EPHEMERAL,
                false,
                ZKPaths.makePath(membersPath, id),
                id.getBytes(StandardCharsets.UTF_8));
        this.locks = new ShardLock[shards];
        this.liveness = new SessionLiveness(client, membersPath, () -> listener.ownershipChanged());
        this.ownership = new ShardOwnership(shards, liveness::answeredRecently);
        this.held = new boolean[shards];
        for (int s = 0; s < shards; s++) {
            locks[s] = new ShardLock(client, ZKPaths.makePath(shardsPath, Integer.toString(s)));
        }
    }

    /** Joins the members and starts the balancer; returns at once. */
    @Override
    public void start(OwnershipListener listener) {
        if (!state.compareAndSet(State.LATENT, State.STARTED)) {
            throw new IllegalStateException("a coordinator can only be started once");
        }
        this.listener = listener;
        ownership.startTracking(
                () -> client.getConnectionStateListenable().addListener(connectionListener),
                client.getZookeeperClient()::isConnected);
        if (client.getZookeeperClient().isConnected()) {
            zooKeeperState = "CONNECTED";
        }
        member.start();
        liveness.start();
        balancer = new Thread(this::balanceUntilClosed, "delay-shard-balancer");
        balancer.setDaemon(true);
        balancer.start();
        log.info("cluster: {} joined {} to share {} shards", id, membersPath, shards);
    }

    private void connectionChanged(ConnectionState newState) {
        boolean nowConnected = newState == ConnectionState.CONNECTED || newState == ConnectionState.RECONNECTED;
        zooKeeperState = newState.name();
        ownership.connectionChanged(nowConnected);
        if (!nowConnected) {
            log.warn("cluster: ZooKeeper connection {}, {} stopped scanning its shards", newState, id);
            listener.ownershipChanged();
        }
        wake();
    }

    /** Confirmed in the current connection epoch, and ZooKeeper answered recently (see {@link SessionLiveness}). */
    @Override
    public boolean owns(int shard) {
        return ownership.owns(shard);
    }

    /** Shards change hands between instances: every move is fenced by an owner epoch. */
    @Override
    public boolean fencesOwnership() {
        return true;
    }

    /** The path of this instance's lock node of the shard: ZooKeeper keeps it while the session lives. */
    @Override
    public String ownershipTerm(int shard) {
        return ownership.term(shard);
    }

    @Override
    public boolean confirmTerm(int shard, String term) {
        return term.equals(ownership.heldTerm(shard)) && SessionLiveness.existsNow(client, term);
    }

    @Override
    public boolean tryBeginScan(int shard) {
        return ownership.tryBeginScan(shard);
    }

    @Override
    public void endScan(int shard) {
        ownership.endScan(shard);
    }

    @Override
    public String role() {
        if (state.get() != State.STARTED) {
            return "stopped";
        }
        return ownership.connected() ? "member" : "disconnected";
    }

    /** The members as the balancer last saw them, each with the shards its rule assigns them. */
    @Override
    public CoordinationView view() {
        return CoordinationView.cluster(id, role(), zooKeeperState, members, shards);
    }

    /** This instance's member id. */
    public String id() {
        return id;
    }

    /** The member ids as the balancer last saw them, sorted. */
    public List<String> members() {
        return members;
    }

    private void wake() {
        synchronized (wakeLock) {
            woken = true;
            wakeLock.notifyAll();
        }
    }

    private void awaitWake(long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        synchronized (wakeLock) {
            while (!woken && state.get() == State.STARTED) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                TimeUnit.NANOSECONDS.timedWait(wakeLock, left);
            }
            woken = false;
        }
    }

    private void balanceUntilClosed() {
        long waitMs = 0;
        try {
            while (state.get() == State.STARTED) {
                awaitWake(waitMs);
                if (state.get() != State.STARTED) {
                    break;
                }
                try {
                    waitMs = rebalance() ? SETTLED_RECHECK_MS : UNSETTLED_RETRY_MS;
                } catch (InterruptedException e) {
                    throw e;
                } catch (Exception e) {
                    log.warn("cluster: rebalancing failed, trying again: {}", e.toString());
                    waitMs = UNSETTLED_RETRY_MS * 5;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            leave();
        }
    }

    /**
     * Takes the locks of the shards assigned to this instance and hands back the others.
     *
     * @return whether it holds exactly the shards it wants (else it tries again shortly)
     */
    private boolean rebalance() throws Exception {
        long confirmedEpoch = ownership.epoch();
        if (!ownership.connected()) {
            return true; // the connection listener wakes us when it is back
        }
        long session = client.getZookeeperClient().getZooKeeper().getSessionId();
        if (session != heldSession && anyHeld()) {
            // the session that held these locks expired, and its lock nodes with it
            log.warn("cluster: ZooKeeper session changed, {} lost the locks of its shards", id);
            for (int s = 0; s < shards; s++) {
                if (held[s]) {
                    handOver(s);
                }
            }
        }
        client.createContainers(membersPath);
        List<String> live = new ArrayList<>(
                client.getChildren().usingWatcher(membershipWatcher).forPath(membersPath));
        Collections.sort(live);
        members = List.copyOf(live);
        int me = live.indexOf(id);

        boolean settled = true;
        boolean gained = false;
        for (int s = 0; s < shards; s++) {
            boolean wanted = me >= 0 && s % live.size() == me;
            if (held[s] && !wanted) {
                handOver(s);
            } else if (!held[s] && wanted) {
                if (locks[s].acquire(0, TimeUnit.MILLISECONDS)) {
                    ownership.lockTaken(s, locks[s].lockPath());
                    held[s] = true;
                    heldSession = session;
                    gained = true;
                } else {
                    settled = false;
                }
            }
        }
        ShardOwnership.Confirmation confirmation = ownership.confirm(held, confirmedEpoch);
        if (confirmation == ShardOwnership.Confirmation.EPOCH_OVER) {
            settled = false; // a connection event came in between: look again
        }
        if (gained || confirmation == ShardOwnership.Confirmation.NEW_SHARDS) {
            log.info("cluster: {} owns shards {} of {} (members {})", id, ownership.owned(), shards, live);
            listener.ownershipChanged();
        }
        return settled;
    }

    private boolean anyHeld() {
        for (boolean h : held) {
            if (h) {
                return true;
            }
        }
        return false;
    }

    /** Stops scanning {@code shard}, waits for its pass in progress, then releases its lock. */
    private void handOver(int shard) {
        ownership.revokeAndAwaitPass(shard);
        held[shard] = false;
        try {
            locks[shard].release();
        } catch (Exception e) {
            // the node goes with the session at the latest; Curator keeps deleting it in the background
            log.warn("cluster: releasing the lock of shard {} failed: {}", shard, e.toString());
        }
    }

    private void leave() {
        ownership.revokeAll();
        for (int s = 0; s < shards; s++) {
            if (held[s]) {
                handOver(s);
            }
        }
        try {
            member.close();
        } catch (IOException | RuntimeException e) {
            log.warn("cluster: removing the member node failed: {}", e.toString());
        }
        log.info("cluster: {} left", id);
    }

    /** Stops scanning, hands every shard over (after the passes in progress) and leaves the members. */
    @Override
    public void close() {
        State previous = state.getAndSet(State.CLOSED);
        if (previous != State.STARTED) {
            return;
        }
        client.getConnectionStateListenable().removeListener(connectionListener);
        liveness.close();
        wake();
        try {
            balancer.join(TimeUnit.SECONDS.toMillis(ShardOwnership.CLOSE_WAIT_SECONDS * 2));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A shard's lock that tells the path of its node (the thread that acquired it must ask). */
    private static final class ShardLock extends InterProcessMutex {
        ShardLock(CuratorFramework client, String path) {
            super(client, path);
        }

        String lockPath() {
            return getLockPath();
        }
    }
}
