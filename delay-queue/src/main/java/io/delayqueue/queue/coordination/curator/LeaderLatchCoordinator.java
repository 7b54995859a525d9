package io.delayqueue.queue.coordination.curator;

import io.delayqueue.queue.coordination.CoordinationView;
import io.delayqueue.queue.coordination.Coordinator;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.Participant;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.utils.ZKPaths;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code master-slave}: the instances of a queue run a Curator {@link LeaderLatch}; the leader scans every
 * shard, the others scan none (every instance still serves the HTTP API).
 *
 * <p>Leadership ends the moment the ZooKeeper connection is {@code SUSPENDED} or {@code LOST}, in the
 * connection listener itself: ZooKeeper expires the session (and so lets a follower take over) only a full
 * session timeout after it last heard from this instance, while the client reports {@code SUSPENDED} after
 * two thirds of it without an answer. A scan pass that already started finishes in that margin. Giving
 * leadership up of its own accord ({@link #close()}) first waits for the passes in progress.
 */
public final class LeaderLatchCoordinator implements Coordinator {
    private static final Logger log = LoggerFactory.getLogger(LeaderLatchCoordinator.class);
    private static final long CLOSE_WAIT_SECONDS = 10;

    private enum State {
        LATENT,
        STARTED,
        CLOSED
    }

    private final CuratorFramework client;
    private final String path;
    private final String id;
    private final LeaderLatch latch;
    private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
    /** Scan passes hold the read lock; stepping down takes the write lock and so waits for them. */
    private final ReentrantReadWriteLock passes = new ReentrantReadWriteLock();

    private final ConnectionStateListener connectionListener = (c, newState) -> connectionChanged(newState);
    private final SessionLiveness liveness;
    private volatile OwnershipListener listener = () -> {};
    private volatile boolean connected;
    private volatile boolean leading;
    /** The last ZooKeeper connection state heard, for {@link #view}. */
    private volatile String zooKeeperState = "CONNECTING";

    /**
     * @param basePath the queue's ZooKeeper path inside the client's namespace, e.g. {@code /dq}
     * @param id this instance's name among the participants
     */
    public LeaderLatchCoordinator(CuratorFramework client, String basePath, String id) {
        this.client = client;
        this.path = ZKPaths.makePath(basePath, "leader");
        this.id = id;
        this.latch = new LeaderLatch(client, path, id);
        this.liveness = new SessionLiveness(client, path, () -> listener.ownershipChanged());
    }

    /** Joins the election; returns at once (leadership comes, if at all, once ZooKeeper answers). */
    @Override
    public void start(OwnershipListener listener) {
        if (!state.compareAndSet(State.LATENT, State.STARTED)) {
            throw new IllegalStateException("a coordinator can only be started once");
        }
        this.listener = listener;
        synchronized (this) {
            client.getConnectionStateListenable().addListener(connectionListener);
            connected = client.getZookeeperClient().isConnected();
            zooKeeperState = connected ? "CONNECTED" : "CONNECTING";
        }
        latch.addListener(new LeaderLatchListener() {
            @Override
            public void isLeader() {
                reassess();
            }

            @Override
            public void notLeader() {
                reassess();
            }
        });
        liveness.start();
        try {
            latch.start();
        } catch (Exception e) {
            throw new IllegalStateException("could not join the leader election at " + path, e);
        }
        log.info("master-slave: {} joined the leader election at {}", id, path);
    }

    private void connectionChanged(ConnectionState newState) {
        boolean nowConnected = newState == ConnectionState.CONNECTED || newState == ConnectionState.RECONNECTED;
        zooKeeperState = newState.name();
        synchronized (this) {
            connected = nowConnected;
            if (!nowConnected && leading) {
                // before anything else: another instance may take over once the session expires
                leading = false;
                log.warn("master-slave: ZooKeeper connection {}, {} stopped scanning", newState, id);
            }
        }
        reassess();
    }

    private void reassess() {
        boolean changed;
        boolean now;
        synchronized (this) {
            now = state.get() == State.STARTED && connected && latch.hasLeadership();
            changed = now != leading;
            leading = now;
        }
        if (changed) {
            log.info(
                    "master-slave: {} {}", id, now ? "is the leader, scanning every shard" : "is no longer the leader");
            listener.ownershipChanged();
        }
    }

    /** Leading, and ZooKeeper answered recently (see {@link SessionLiveness}). */
    @Override
    public boolean owns(int shard) {
        return leading && liveness.answeredRecently();
    }

    @Override
    public boolean tryBeginScan(int shard) {
        if (!passes.readLock().tryLock()) {
            return false;
        }
        if (owns(shard)) {
            return true;
        }
        passes.readLock().unlock();
        return false;
    }

    @Override
    public void endScan(int shard) {
        passes.readLock().unlock();
    }

    /** Shards change hands between instances: every move is fenced by an owner epoch. */
    @Override
    public boolean fencesOwnership() {
        return true;
    }

    /** The path of this instance's latch node that made it the leader: ZooKeeper keeps it while the session lives. */
    @Override
    public String ownershipTerm(int shard) {
        return leading ? latch.getLastPathIsLeader() : null;
    }

    @Override
    public boolean confirmTerm(int shard, String term) {
        return leading && term.equals(latch.getLastPathIsLeader()) && SessionLiveness.existsNow(client, term);
    }

    @Override
    public String role() {
        if (state.get() != State.STARTED) {
            return "stopped";
        }
        return leading ? "leader" : connected ? "follower" : "disconnected";
    }

    /**
     * The participants of the election as ZooKeeper has them now (a round trip; only this instance when ZooKeeper
     * does not answer): the leader scans every shard, the followers none.
     */
    @Override
    public CoordinationView view() {
        List<CoordinationView.Instance> instances = new ArrayList<>();
        try {
            for (Participant p : latch.getParticipants()) {
                instances.add(new CoordinationView.Instance(
                        p.getId(), p.isLeader() ? "leader" : "follower", p.isLeader() ? null : List.of()));
            }
        } catch (Exception e) {
            instances.clear();
            instances.add(new CoordinationView.Instance(id, role(), leading ? null : List.of()));
        }
        return new CoordinationView("master-slave", id, zooKeeperState, instances);
    }

    /** This instance's id in the election. */
    public String id() {
        return id;
    }

    /** Stops scanning, waits for the passes in progress, then leaves the election so a follower takes over. */
    @Override
    public void close() {
        State previous = state.getAndSet(State.CLOSED);
        if (previous != State.STARTED) {
            return;
        }
        synchronized (this) {
            leading = false;
        }
        try {
            if (passes.writeLock().tryLock(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
                passes.writeLock().unlock();
            } else {
                log.warn("master-slave: a scan pass did not end within {} s; leaving anyway", CLOSE_WAIT_SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        client.getConnectionStateListenable().removeListener(connectionListener);
        liveness.close();
        try {
            latch.close();
        } catch (IOException | RuntimeException e) {
            log.warn("master-slave: leaving the election failed ({}); the session's end frees it", e.toString());
        }
        log.info("master-slave: {} left the leader election", id);
    }
}
