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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Three service JVMs in {@code cluster} mode on a real ZooKeeper and the machine's Redis: the shards are
 * divided among them, 10,000 jobs are delivered once each while membership is stable, and when one instance
 * stops its shards move to the other two, which deliver its pending jobs; then a second stops, and the last,
 * owning every shard, delivers a burst alone, once each. Deliveries are read from each JVM's console dispatcher
 * output. (The scale-down's last step was a class of its own that measured the rate with three, two and one
 * instances, a minute of the test command for three more JVMs; the rate is the benchmark's, {@code bin/bench
 * --figures scale-out}.)
 */
class ClusterModeTest {
    private static final int SHARDS = 8;
    private static final int JOBS = 10_000;
    private static final int PENDING_JOBS = 2_000;

    private static TestingServer zookeeper;
    private static ServiceStores stores;
    private static final List<HaServiceProcess> instances = new ArrayList<>();

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zookeeper = ZooKeeperFixture.startServer();
        stores = ServiceStores.redisAndJournal("ha-cluster");
    }

    @AfterAll
    static void stopEverything() throws Exception {
        try {
            instances.forEach(HaServiceProcess::close);
        } finally {
            zookeeper.close();
            stores.close();
        }
    }

    /** A cluster instance on the test's stores, which every instance shares. */
    static List<String> clusterArgs(String name, ServiceStores stores, String zookeeperConnect) {
        List<String> args = new ArrayList<>(stores.serviceArgs());
        args.addAll(List.of(
                "--delay.shards=" + SHARDS,
                "--delay.ha.mode=cluster",
                "--delay.ha.instance-id=" + name,
                "--delay.zk.connect=" + zookeeperConnect,
                "--delay.zk.session-timeout=3s",
                "--delay.zk.connection-timeout=3s"));
        return args;
    }

    @Test
    void three_instances_deliver_every_job_once_and_the_shards_of_one_that_stops_move_to_the_others() {
        for (String name : List.of("c-a", "c-b", "c-c")) {
            instances.add(HaServiceProcess.start(name, clusterArgs(name, stores, zookeeper.getConnectString())));
        }
        instances.forEach(p -> p.awaitReady(Duration.ofSeconds(120)));
        awaitDivided(instances, "the shards are divided among the three");
        Map<String, List<Integer>> ownership = Cluster.ownership(instances);
        assertThat(ownership.values()).allSatisfy(shards -> assertThat(shards).hasSizeBetween(2, 3));
        assertThat(instances).allSatisfy(p -> assertThat(p.role()).isEqualTo("member"));
        List<Api> apis = instances.stream().map(HaServiceProcess::api).toList();

        // stable membership: 10,000 jobs due over five seconds, pushed through all three
        long firstDue = System.currentTimeMillis() + 2_000;
        Set<String> stable = new HashSet<>(Jobs.push(apis, "cluster", JOBS, i -> firstDue + 5_000L * i / JOBS));
        awaitDelivered(stable, 0, "every job was delivered");
        List<HaServiceProcess.Delivery> stableDeliveries = Cluster.deliveriesOf(stable, instances);
        Map<String, Long> byInstance = stableDeliveries.stream()
                .collect(Collectors.groupingBy(HaServiceProcess.Delivery::instance, Collectors.counting()));
        System.out.printf(
                "HA cluster, stable: %d jobs, %d deliveries, %d duplicates, by instance %s, shards %s%n",
                JOBS, stableDeliveries.size(), Cluster.duplicates(stableDeliveries), byInstance, ownership);
        assertThat(Cluster.duplicates(stableDeliveries))
                .as("duplicates while membership is stable")
                .isZero();
        assertThat(byInstance).as("every instance delivers its share").hasSize(3);
        for (HaServiceProcess.Delivery d : stableDeliveries) {
            assertThat(ownership.get(d.instance()))
                    .as("%s delivered %s from a shard it does not own", d.instance(), d.id())
                    .contains(JobIds.shardOf(d.id(), SHARDS));
        }

        // membership changes: jobs pending in every shard, then one instance stops
        HaServiceProcess leaving = instances.get(2);
        List<Integer> leavingShards = ownership.get(leaving.name());
        int beforePending = Cluster.deliveryCount(instances);
        long pendingDue = System.currentTimeMillis() + 6_000;
        Set<String> pending = new HashSet<>(
                Jobs.push(apis.subList(0, 2), "cluster", PENDING_JOBS, i -> pendingDue + 2_000L * i / PENDING_JOBS));
        Set<String> pendingOfLeaving = pending.stream()
                .filter(id -> leavingShards.contains(JobIds.shardOf(id, SHARDS)))
                .collect(Collectors.toSet());
        assertThat(pendingOfLeaving)
                .as("jobs pending in the leaving instance's shards")
                .isNotEmpty();
        leaving.stop();
        List<HaServiceProcess> staying = instances.subList(0, 2);
        awaitDivided(staying, "the shards are divided among the two left");

        awaitDelivered(pending, beforePending, "every pending job was delivered");
        List<HaServiceProcess.Delivery> pendingDeliveries = Cluster.deliveriesOf(pending, instances);
        long ofLeavingByOthers = Cluster.deliveriesOf(pendingOfLeaving, staying).stream()
                .map(HaServiceProcess.Delivery::id)
                .distinct()
                .count();
        System.out.printf(
                "HA cluster, %s stopped: %d pending jobs (%d in its shards %s, %d of them delivered by the others), "
                        + "%d deliveries, %d duplicates, shards now %s%n",
                leaving.name(),
                PENDING_JOBS,
                pendingOfLeaving.size(),
                leavingShards,
                ofLeavingByOthers,
                pendingDeliveries.size(),
                Cluster.duplicates(pendingDeliveries),
                Cluster.ownership(staying));
        assertThat(ofLeavingByOthers)
                .as("pending jobs of the stopped instance's shards delivered by the others")
                .isPositive();
        await("every job is FINISHED").atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(
                        (staying.get(0).api().countOf("FINISHED") == JOBS + PENDING_JOBS))
                .as(() -> "every job is FINISHED" + " "
                        + (staying.get(0).api().get("/stats").data().path("byStatus")))
                .isTrue());

        // down to one: the second leaves as well; the last owns every shard and delivers a burst alone, once each
        HaServiceProcess last = staying.get(0);
        staying.get(1).stop();
        List<HaServiceProcess> alone = List.of(last);
        awaitDivided(alone, "the last instance owns every shard");
        int beforeAlone = Cluster.deliveryCount(instances);
        long aloneDue = System.currentTimeMillis() + 2_000;
        Set<String> burst = new HashSet<>(Jobs.push(List.of(last.api()), "cluster", PENDING_JOBS, i -> aloneDue));
        awaitDelivered(burst, beforeAlone, "every job of the last instance's burst was delivered");
        List<HaServiceProcess.Delivery> burstDeliveries = Cluster.deliveriesOf(burst, instances);
        assertThat(Cluster.duplicates(burstDeliveries))
                .as("duplicates with one instance left")
                .isZero();
        assertThat(burstDeliveries).as("deliveries with one instance left").allSatisfy(d -> assertThat(d.instance())
                .isEqualTo(last.name()));
        await("every job is FINISHED, the burst's too")
                .atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(last.api().countOf("FINISHED"))
                        .as(() -> "FINISHED jobs "
                                + last.api().get("/stats").data().path("byStatus"))
                        .isEqualTo(JOBS + 2L * PENDING_JOBS));
    }

    /** Waits (30 s at most) until {@code live} own every shard between them, each shard one instance's. */
    private static void awaitDivided(List<HaServiceProcess> live, String what) {
        await(what).atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(Cluster.shardsDivided(live, SHARDS))
                .as(() -> what + " " + Cluster.ownership(live))
                .isTrue());
    }

    /** Waits (60 s at most) until each of {@code ids} was delivered, beyond the {@code before} counted earlier. */
    private static void awaitDelivered(Set<String> ids, int before, String what) {
        await(what).atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(
                        Cluster.allDelivered(ids, instances, before))
                .as(() -> what + " missing " + Cluster.missing(ids, instances).size())
                .isTrue());
    }
}
