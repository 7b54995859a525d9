package io.delayqueue.queue.coordination.curator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.queue.coordination.CoordinationView;
import io.delayqueue.queue.testing.ZooKeeperFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** master-slave against a real ZooKeeper: one leader at a time, and it steps down before anyone takes over. */
class LeaderLatchCoordinatorTest {
    private static final Duration WAIT = Duration.ofSeconds(15);

    private ZooKeeperFixture zk;
    private final List<LeaderLatchCoordinator> coordinators = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        zk = new ZooKeeperFixture();
    }

    @AfterEach
    void tearDown() {
        coordinators.forEach(LeaderLatchCoordinator::close);
        zk.close();
    }

    private LeaderLatchCoordinator started(String id, AtomicInteger changes) throws InterruptedException {
        LeaderLatchCoordinator c = new LeaderLatchCoordinator(zk.connectedClient(), "/q", id);
        coordinators.add(c);
        c.start(changes::incrementAndGet);
        return c;
    }

    @Test
    void exactly_one_of_two_instances_leads_and_the_other_takes_over_when_it_leaves() throws Exception {
        AtomicInteger changesA = new AtomicInteger();
        AtomicInteger changesB = new AtomicInteger();
        LeaderLatchCoordinator a = started("a", changesA);
        LeaderLatchCoordinator b = started("b", changesB);

        await("one instance leads").atMost(WAIT).until(() -> a.owns(0) || b.owns(0));
        LeaderLatchCoordinator leader = a.owns(0) ? a : b;
        LeaderLatchCoordinator follower = leader == a ? b : a;
        assertThat(follower.owns(0)).isFalse();
        assertThat(leader.role()).isEqualTo("leader");
        assertThat(follower.role()).isEqualTo("follower");
        // the console's view: both participants, the leader with every shard, the follower with none
        await("both in the election")
                .atMost(WAIT)
                .until(() -> leader.view().instances().size() == 2);
        assertThat(leader.view().instances())
                .containsExactlyInAnyOrder(
                        new CoordinationView.Instance(leader.id(), "leader", null),
                        new CoordinationView.Instance(follower.id(), "follower", List.of()));
        assertThat(leader.view().zooKeeper()).isEqualTo("CONNECTED");
        // the latch flips to leader just before it calls its listener: wait for the call, don't race it
        AtomicInteger leaderChanges = leader == a ? changesA : changesB;
        await("the leader's engine was told").atMost(WAIT).until(() -> leaderChanges.get() > 0);

        leader.close();

        await("the follower took over").atMost(WAIT).until(() -> follower.owns(7));
        assertThat(leader.owns(7)).isFalse();
        assertThat(follower.role()).isEqualTo("leader");
    }

    @Test
    void a_leader_stops_scanning_as_soon_as_its_zookeeper_connection_is_suspended() throws Exception {
        LeaderLatchCoordinator a = started("a", new AtomicInteger());
        await("the only instance leads").atMost(WAIT).until(() -> a.owns(0));

        zk.server().stop();

        // SUSPENDED comes with the broken connection, before any session could expire
        await("the leader stepped down")
                .atMost(ZooKeeperFixture.SESSION_TIMEOUT)
                .until(() -> !a.owns(0));
        assertThat(a.tryBeginScan(0)).isFalse();
        assertThat(a.role()).isEqualTo("disconnected");

        zk.server().restart();
        await("it leads again once ZooKeeper is back").atMost(WAIT).until(() -> a.owns(0));
    }

    @Test
    void a_leader_that_leaves_waits_for_its_scan_pass_before_anyone_takes_over() throws Exception {
        LeaderLatchCoordinator a = started("a", new AtomicInteger());
        await("a leads").atMost(WAIT).until(() -> a.owns(0));
        LeaderLatchCoordinator b = started("b", new AtomicInteger());
        assertThat(a.tryBeginScan(3)).as("a begins a pass").isTrue();

        Thread closing = new Thread(a::close, "closing-a");
        closing.start();
        await("a waits for its pass").atMost(WAIT).until(() -> closing.getState() == Thread.State.TIMED_WAITING);

        assertThat(a.owns(3)).as("a scans no more").isFalse();
        assertThat(b.owns(3)).as("b cannot lead while a's pass runs").isFalse();
        a.endScan(3);
        closing.join(WAIT.toMillis());
        await("b took over after the pass").atMost(WAIT).until(() -> b.owns(3));
    }

    @Test
    void a_new_leader_has_a_new_ownership_term_and_the_old_leaders_term_no_longer_confirms() throws Exception {
        LeaderLatchCoordinator a = started("a", new AtomicInteger());
        await("the first instance leads").atMost(WAIT).until(() -> a.owns(0));
        LeaderLatchCoordinator b = started("b", new AtomicInteger());
        String termOfA = a.ownershipTerm(0);
        assertThat(termOfA).isNotNull();
        assertThat(a.confirmTerm(0, termOfA)).isTrue();
        assertThat(b.ownershipTerm(0)).as("a follower has no term").isNull();

        a.close();
        await("the second instance took over").atMost(WAIT).until(() -> b.owns(0));

        assertThat(b.ownershipTerm(0)).isNotNull().isNotEqualTo(termOfA);
        assertThat(b.confirmTerm(0, b.ownershipTerm(0))).isTrue();
        assertThat(b.confirmTerm(0, termOfA)).isFalse();
        assertThat(a.confirmTerm(0, termOfA)).as("the old leader's own term").isFalse();
    }
}
