package io.delayqueue.queue.coordination.curator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.queue.coordination.CoordinationView;
import io.delayqueue.queue.testing.ZooKeeperFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** cluster mode against a real ZooKeeper: the shards divided among live members, one owner per shard. */
class ShardOwnershipCoordinatorTest {
    private static final int SHARDS = 8;
    /** A bound on events, not a timing: after a ZooKeeper restart at load 15 the division took over 15 s. */
    private static final Duration WAIT = Duration.ofSeconds(40);

    private ZooKeeperFixture zk;
    private final List<ShardOwnershipCoordinator> members = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        zk = new ZooKeeperFixture();
    }

    @AfterEach
    void tearDown() {
        members.forEach(ShardOwnershipCoordinator::close);
        zk.close();
    }

    private ShardOwnershipCoordinator join(String id, AtomicInteger changes) throws InterruptedException {
        ShardOwnershipCoordinator c = new ShardOwnershipCoordinator(zk.connectedClient(), "/q", SHARDS, id);
        members.add(c);
        c.start(changes::incrementAndGet);
        return c;
    }

    private static List<Integer> owned(ShardOwnershipCoordinator c) {
        return IntStream.range(0, SHARDS).filter(c::owns).boxed().toList();
    }

    /** Every shard owned by exactly one of {@code live}, and each of them owning its share. */
    private static boolean dividedAmong(List<ShardOwnershipCoordinator> live) {
        for (int s = 0; s < SHARDS; s++) {
            int shard = s;
            if (live.stream().filter(c -> c.owns(shard)).count() != 1) {
                return false;
            }
        }
        return live.stream().allMatch(c -> owned(c).size() >= SHARDS / live.size());
    }

    private static String describe(List<ShardOwnershipCoordinator> live) {
        return live.stream().map(c -> c.id() + "=" + owned(c)).collect(Collectors.joining(", "));
    }

    private static void awaitDivided(List<ShardOwnershipCoordinator> live) {
        await("shards divided among " + live.size() + " members").atMost(WAIT).until(() -> dividedAmong(live));
    }

    @Test
    void three_members_divide_the_shards_so_that_each_shard_has_exactly_one_owner() throws Exception {
        AtomicInteger changes = new AtomicInteger();
        ShardOwnershipCoordinator a = join("a", changes);
        ShardOwnershipCoordinator b = join("b", changes);
        ShardOwnershipCoordinator c = join("c", changes);

        awaitDivided(List.of(a, b, c));

        System.out.println("cluster of three: " + describe(List.of(a, b, c)));
        // a member's view of the others may lag behind theirs (each shard still has one owner meanwhile)
        await("a saw b and c join").atMost(WAIT).until(() -> a.members().size() == 3);
        assertThat(a.members()).containsExactly("a", "b", "c");
        assertThat(List.of(a.role(), b.role(), c.role())).containsOnly("member");
        // the console's view: every member with the shards the balancer's rule assigns it, which it owns once
        // the balancing settles
        CoordinationView view = a.view();
        assertThat(view.zooKeeper()).isEqualTo("CONNECTED");
        assertThat(view.instances()).extracting(CoordinationView.Instance::id).containsExactly("a", "b", "c");
        for (CoordinationView.Instance instance : view.instances()) {
            ShardOwnershipCoordinator member = List.of(a, b, c).stream()
                    .filter(m -> m.id().equals(instance.id()))
                    .findFirst()
                    .orElseThrow();
            await(instance + " owns what the view assigns it").atMost(WAIT).until(() -> owned(member)
                    .equals(instance.shards()));
        }
        // ownership flips just before the listener is called: wait for the call, don't race it
        await("engines told of their shards").atMost(WAIT).until(() -> changes.get() > 0);
    }

    @Test
    void a_member_that_leaves_hands_its_shards_to_the_others_and_one_that_joins_takes_its_share() throws Exception {
        ShardOwnershipCoordinator a = join("a", new AtomicInteger());
        ShardOwnershipCoordinator b = join("b", new AtomicInteger());
        awaitDivided(List.of(a, b));

        ShardOwnershipCoordinator c = join("c", new AtomicInteger());
        awaitDivided(List.of(a, b, c));

        b.close();
        awaitDivided(List.of(a, c));
        assertThat(owned(b)).isEmpty();
        assertThat(b.role()).isEqualTo("stopped");
    }

    @Test
    void members_own_nothing_while_zookeeper_is_unreachable_and_share_again_when_it_is_back() throws Exception {
        ShardOwnershipCoordinator a = join("a", new AtomicInteger());
        ShardOwnershipCoordinator b = join("b", new AtomicInteger());
        awaitDivided(List.of(a, b));

        zk.server().stop();

        await("both stopped scanning")
                .atMost(ZooKeeperFixture.SESSION_TIMEOUT)
                .until(() -> owned(a).isEmpty() && owned(b).isEmpty());
        assertThat(a.role()).isEqualTo("disconnected");
        assertThat(a.view().zooKeeper())
                .as("the console's view of the connection")
                .isIn("SUSPENDED", "LOST");

        zk.server().restart();
        awaitDivided(List.of(a, b));
    }

    @Test
    void a_shard_moves_to_a_new_member_only_after_the_old_owners_scan_pass_ended() throws Exception {
        ShardOwnershipCoordinator a = join("a", new AtomicInteger());
        awaitDivided(List.of(a));
        // with members a and b, b gets the odd shards
        int moving = 1;
        assertThat(a.tryBeginScan(moving)).isTrue();

        ShardOwnershipCoordinator b = join("b", new AtomicInteger());
        await("a started to hand shard " + moving + " over").atMost(WAIT).until(() -> !a.owns(moving));

        // b retries every 100 ms; for ten of its attempts the lock is still a's
        // an assertion at every look for the whole time, not a wait: Awaitility's during() would let a brief
        // ownership pass once the condition held long enough afterwards
        long until =
                System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ShardOwnershipCoordinator.UNSETTLED_RETRY_MS * 10);
        while (System.nanoTime() - until < 0) {
            assertThat(b.owns(moving))
                    .as("b owns the shard while a's pass runs")
                    .isFalse();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        a.endScan(moving);

        awaitDivided(List.of(a, b));
        assertThat(owned(b)).contains(moving);
    }

    @Test
    void a_shard_that_moves_gets_a_new_ownership_term_and_the_old_owners_term_no_longer_confirms() throws Exception {
        ShardOwnershipCoordinator a = join("a", new AtomicInteger());
        await("the only member owns every shard").atMost(WAIT).until(() -> owned(a).size() == SHARDS);
        String termOfA = a.ownershipTerm(0);
        assertThat(termOfA).isNotNull();
        assertThat(a.confirmTerm(0, termOfA)).isTrue();

        ShardOwnershipCoordinator b = join("b", new AtomicInteger());
        a.close();
        await("the second member took shard 0").atMost(WAIT).until(() -> b.owns(0));

        assertThat(b.ownershipTerm(0)).isNotNull().isNotEqualTo(termOfA);
        assertThat(b.confirmTerm(0, b.ownershipTerm(0))).isTrue();
        assertThat(b.confirmTerm(0, termOfA)).isFalse();
        assertThat(a.ownershipTerm(0)).isNull();
        assertThat(a.confirmTerm(0, termOfA)).as("the old owner's own term").isFalse();
    }
}
