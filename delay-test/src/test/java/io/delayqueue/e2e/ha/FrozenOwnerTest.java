package io.delayqueue.e2e.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.common.JobIds;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.Cluster;
import io.delayqueue.e2e.support.HaServiceProcess;
import io.delayqueue.e2e.support.Jobs;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.queue.testing.ZooKeeperFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An owner frozen (SIGSTOP, as in a long GC pause) past its ZooKeeper session, while jobs come due every few
 * milliseconds: another instance takes its shards over, and when the frozen one wakes (SIGCONT) it hands over
 * nothing more. Every delivery after the take-over comes from the new owner, and no job is lost. Two service
 * JVMs on a real ZooKeeper, the machine's Redis and MariaDB; deliveries are read from each JVM's console output,
 * so each one tells which instance delivered it.
 */
class FrozenOwnerTest {
    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(2);
    private static final int SHARDS = 4;
    private static final int JOBS = 3_000;
    private static final Duration SPREAD = Duration.ofSeconds(8);
    /**
     * How long before the freeze a job that was in flight at it may have been due: handed over at its due time, or
     * as late as a loaded machine makes it.
     */
    private static final long IN_FLIGHT_AT_FREEZE_MS = 1_000;

    private TestingServer zookeeper;
    private ServiceStores stores;
    private final List<HaServiceProcess> instances = new ArrayList<>();

    @BeforeEach
    void startZooKeeper() throws Exception {
        zookeeper = ZooKeeperFixture.startServer();
        stores = ServiceStores.redisAndJournal("frozen");
    }

    @AfterEach
    void stopEverything() throws Exception {
        try {
            instances.forEach(HaServiceProcess::close);
        } finally {
            zookeeper.close();
            stores.close();
        }
    }

    private HaServiceProcess start(String name, String mode) {
        List<String> args = new ArrayList<>(stores.serviceArgs());
        args.addAll(List.of(
                "--delay.shards=" + SHARDS,
                "--delay.ha.mode=" + mode,
                "--delay.ha.instance-id=" + name,
                "--delay.zk.connect=" + zookeeper.getConnectString(),
                "--delay.zk.session-timeout=" + SESSION_TIMEOUT.toMillis() + "ms",
                "--delay.zk.connection-timeout=" + SESSION_TIMEOUT.toMillis() + "ms",
                // jobs the frozen owner had sent but not acknowledged come back after this
                "--delay.dispatch.timeout=3s"));
        HaServiceProcess p = HaServiceProcess.start(name, args);
        instances.add(p);
        return p;
    }

    @Test
    void a_leader_frozen_past_its_session_hands_over_nothing_after_it_wakes() {
        HaServiceProcess a = start("ms-a", "master-slave");
        HaServiceProcess b = start("ms-b", "master-slave");
        a.awaitReady(Duration.ofSeconds(180));
        b.awaitReady(Duration.ofSeconds(180));
        await("one instance leads").atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(
                        (a.role().equals("leader") || b.role().equals("leader")))
                .as(() -> "one instance leads" + " " + (a.role() + "/" + b.role()))
                .isTrue());
        HaServiceProcess owner = a.role().equals("leader") ? a : b;
        freezeTheOwnerAndWakeIt(owner, owner == a ? b : a);
    }

    @Test
    void a_cluster_member_frozen_past_its_session_hands_over_nothing_after_it_wakes() {
        HaServiceProcess a = start("cl-a", "cluster");
        HaServiceProcess b = start("cl-b", "cluster");
        a.awaitReady(Duration.ofSeconds(180));
        b.awaitReady(Duration.ofSeconds(180));
        await("the shards are divided between the two")
                .atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat((Cluster.shardsDivided(instances, SHARDS)
                                && !a.ownedShards().isEmpty()
                                && !b.ownedShards().isEmpty()))
                        .as(() -> "the shards are divided between the two" + " " + (Cluster.ownership(instances)))
                        .isTrue());
        freezeTheOwnerAndWakeIt(a, b);
    }

    /** Jobs come due throughout; {@code owner} is frozen past its session, {@code other} takes over, then it wakes. */
    private void freezeTheOwnerAndWakeIt(HaServiceProcess owner, HaServiceProcess other) {
        List<Api> apis = List.of(owner.api(), other.api());
        long firstDue = System.currentTimeMillis() + 2_000;
        Set<String> ids = new HashSet<>(Jobs.push(apis, "frozen", JOBS / 3, i -> firstDue + 4_000L * i / (JOBS / 3)));
        await("the owner delivers").atMost(SPREAD.plusSeconds(30)).untilAsserted(() -> assertThat(
                        (owner.deliveryCount() >= 50))
                .as(() -> "the owner delivers" + " " + owner.deliveryCount())
                .isTrue());

        List<Integer> frozenShards = owner.ownedShards();
        owner.pause();
        long pausedAt = System.currentTimeMillis();
        int otherBefore = other.deliveryCount();
        // jobs that come due while the owner is frozen, and for a while after it wakes
        long secondDue = pausedAt + 500;
        ids.addAll(Jobs.push(
                List.of(other.api()),
                "frozen",
                JOBS - JOBS / 3,
                i -> secondDue + SPREAD.toMillis() * i / (JOBS - JOBS / 3)));
        // the other instance takes every shard once the frozen one's session expired, and delivers their jobs
        await("the other instance took over and delivers the frozen owner's shards")
                .atMost(SESSION_TIMEOUT.plusSeconds(30))
                .untilAsserted(() -> assertThat((other.ownedShards().size() == SHARDS
                                && other.deliveries().stream()
                                                .skip(otherBefore)
                                                .filter(d -> frozenShards.contains(JobIds.shardOf(d.id(), SHARDS)))
                                                .count()
                                        >= 50))
                        .as(() -> "the other instance took over and delivers the frozen owner's shards" + " "
                                + (other.ownedShards() + ", " + other.deliveryCount()))
                        .isTrue());
        long takenOverAt = other.deliveries().stream()
                .skip(otherBefore)
                .filter(d -> frozenShards.contains(JobIds.shardOf(d.id(), SHARDS)))
                .findFirst()
                .orElseThrow()
                .wallMs();
        // the frozen JVM prints nothing: once every line it printed before is read, what comes next is after it woke
        long[] seen = {-1};
        await("the frozen owner's output is read to its end")
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> {
                    long count = owner.lineCount();
                    boolean stable = count == seen[0];
                    seen[0] = count;
                    return stable;
                });
        long linesBeforeWaking = owner.lineCount();
        long resumedAt = System.currentTimeMillis();
        owner.resume();

        await("every job was delivered").atMost(SPREAD.plusSeconds(60)).untilAsserted(() -> assertThat(
                        (Cluster.allDelivered(ids, instances, 0)))
                .as(() -> "every job was delivered" + " "
                        + ("missing " + Cluster.missing(ids, instances).size()))
                .isTrue());
        await("every job is FINISHED").atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(
                        (other.api().countOf("FINISHED") == JOBS))
                .as(() -> "every job is FINISHED" + " "
                        + (other.api().get("/stats").data().path("byStatus")))
                .isTrue());

        // After it woke, the owner may gain shards anew (cluster mode gives it its share back; under load the
        // leadership may move): a delivery is stale when it came before the woken owner took an epoch again.
        long regainedAt = owner.epochsTaken().stream()
                .filter(line -> line > linesBeforeWaking)
                .min(Long::compare)
                .orElse(Long.MAX_VALUE);
        List<HaServiceProcess.Delivery> all = Cluster.deliveriesOf(ids, instances);
        // A send whose ownership check passed before the freeze, at its due time, may show its line only after the
        // wake (the freeze came between the check and the print, or the line was still in the JVM's buffer): it was
        // handed over while the owner still owned the shard. Anything else printed after the wake, before an epoch
        // was taken again, was handed over on stale ownership.
        Map<Boolean, List<HaServiceProcess.Delivery>> afterWaking = owner.deliveries().stream()
                .filter(d -> d.line() > linesBeforeWaking && d.line() < regainedAt)
                .collect(Collectors.partitioningBy(
                        d -> d.executeAt() > pausedAt || d.executeAt() < pausedAt - IN_FLIGHT_AT_FREEZE_MS));
        List<HaServiceProcess.Delivery> stale = afterWaking.get(true);
        List<HaServiceProcess.Delivery> inFlightAtFreeze = afterWaking.get(false);
        System.out.printf(
                "frozen owner %s: paused %d ms, take-over after %d ms; %d jobs, %d deliveries (%d duplicates); after it"
                        + " woke: %d stale deliveries, %d sent before the freeze, %d after it gained shards anew; %d lost%n",
                owner.name(),
                resumedAt - pausedAt,
                takenOverAt - pausedAt,
                JOBS,
                all.size(),
                Cluster.duplicates(all),
                stale.size(),
                inFlightAtFreeze.size(),
                owner.deliveries().stream().filter(d -> d.line() > regainedAt).count(),
                Cluster.missing(ids, instances).size());
        assertThat(stale)
                .as("deliveries by the frozen owner after it woke, before it owned a shard again")
                .isEmpty();
        assertThat(Cluster.missing(ids, instances)).as("jobs never delivered").isEmpty();
    }
}
