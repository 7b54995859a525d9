package io.delayqueue.e2e.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.e2e.support.HaServiceProcess;
import io.delayqueue.e2e.support.Jobs;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.queue.testing.ZooKeeperFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two service JVMs in {@code master-slave} mode on a real ZooKeeper and the machine's Redis. While 10,000
 * jobs come due over 20 seconds the leader is killed with {@code kill -9}; the follower must take over within
 * the session timeout plus one second, and every job must be delivered. Deliveries are read from each JVM's
 * console dispatcher output. Jobs the dead leader had handed to its dispatcher but not yet acknowledged come
 * back after {@code delay.dispatch.timeout}: those duplicates are counted and printed (delivery is at least
 * once); a job never delivered fails the test.
 */
class MasterSlaveFailoverTest {
    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(3);
    private static final int JOBS = 10_000;
    private static final Duration SPREAD = Duration.ofSeconds(20);

    private static TestingServer zookeeper;
    private static ServiceStores stores;
    private static final List<HaServiceProcess> instances = new ArrayList<>();

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zookeeper = ZooKeeperFixture.startServer();
        stores = ServiceStores.redisAndJournal("ha-ms");
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

    private static HaServiceProcess startInstance(String name) {
        List<String> args = new ArrayList<>(stores.serviceArgs());
        args.addAll(List.of(
                "--delay.ha.mode=master-slave",
                "--delay.ha.instance-id=" + name,
                "--delay.zk.connect=" + zookeeper.getConnectString(),
                "--delay.zk.session-timeout=" + SESSION_TIMEOUT.toMillis() + "ms",
                "--delay.zk.connection-timeout=" + SESSION_TIMEOUT.toMillis() + "ms",
                // unacknowledged sends of the dead leader come back after this
                "--delay.dispatch.timeout=5s"));
        HaServiceProcess p = HaServiceProcess.start(name, args);
        instances.add(p);
        return p;
    }

    @Test
    void the_follower_takes_over_within_the_session_timeout_after_the_leader_is_killed_and_every_job_is_delivered() {
        HaServiceProcess a = startInstance("ms-a");
        HaServiceProcess b = startInstance("ms-b");
        a.awaitReady(Duration.ofSeconds(90));
        b.awaitReady(Duration.ofSeconds(90));
        await("one instance leads").atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(
                        (a.role().equals("leader") || b.role().equals("leader")))
                .as(() -> "one instance leads" + " " + (a.role() + "/" + b.role()))
                .isTrue());
        HaServiceProcess leader = a.role().equals("leader") ? a : b;
        HaServiceProcess follower = leader == a ? b : a;
        assertThat(follower.role()).isEqualTo("follower");
        assertThat(leader.ownedShards()).hasSize(8);
        assertThat(follower.ownedShards()).isEmpty();

        // both instances take pushes; the jobs come due evenly over SPREAD, starting shortly
        long firstDue = System.currentTimeMillis() + 3_000;
        List<String> ids = Jobs.push(
                List.of(follower.api(), leader.api()), "failover", JOBS, i -> firstDue + SPREAD.toMillis() * i / JOBS);

        await("the leader delivered a fifth of the jobs")
                .atMost(SPREAD.plusSeconds(30))
                .untilAsserted(() -> assertThat((leader.deliveryCount() >= JOBS / 5))
                        .as(() -> "the leader delivered a fifth of the jobs" + " " + leader.deliveryCount())
                        .isTrue());
        assertThat(follower.deliveryCount()).as("the follower delivers nothing").isZero();

        long killedAt = System.currentTimeMillis();
        leader.kill();
        // the follower's first delivery after the kill is when it took over (jobs are due every 2 ms)
        await("the follower delivers").atMost(SESSION_TIMEOUT.plusSeconds(30)).untilAsserted(() -> assertThat(
                        (follower.deliveryCount() > 0))
                .as(() -> "the follower delivers" + " " + follower.role())
                .isTrue());
        long takeOverMs = follower.deliveries().get(0).wallMs() - killedAt;
        await("the follower reports itself leader")
                .atMost(Duration.ofSeconds(10))
                .until(() -> follower.role().equals("leader"));

        Set<String> expected = new HashSet<>(ids);
        await("every job was delivered").atMost(SPREAD.plusSeconds(60)).untilAsserted(() -> assertThat(
                        (leader.deliveryCount() + follower.deliveryCount() >= JOBS
                                && delivered(leader, follower).containsAll(expected)))
                .as(() -> "every job was delivered" + " "
                        + ("missing " + missing(expected, leader, follower).size()))
                .isTrue());
        await("every job is FINISHED").atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(
                        (follower.api().countOf("FINISHED") == JOBS))
                .as(() -> "every job is FINISHED" + " "
                        + (follower.api().get("/stats").data().path("byStatus")))
                .isTrue());

        List<HaServiceProcess.Delivery> all = new ArrayList<>(leader.deliveries());
        all.addAll(follower.deliveries());
        Map<String, Integer> times = new HashMap<>();
        all.forEach(d -> times.merge(d.id(), 1, Integer::sum));
        long duplicates = all.size() - times.size();
        System.out.printf(
                "HA master-slave: leader %s killed after %d deliveries; follower %s took over after %d ms "
                        + "(session timeout %d ms); %d jobs, %d deliveries, %d duplicates, %d lost%n",
                leader.name(),
                leader.deliveryCount(),
                follower.name(),
                takeOverMs,
                SESSION_TIMEOUT.toMillis(),
                JOBS,
                all.size(),
                duplicates,
                missing(expected, leader, follower).size());
        assertThat(missing(expected, leader, follower))
                .as("jobs never delivered")
                .isEmpty();
        assertThat(times.keySet()).as("delivered jobs that were never pushed").isEqualTo(expected);
        assertThat(takeOverMs)
                .as("ms from kill -9 to the follower's first delivery")
                .isLessThanOrEqualTo(SESSION_TIMEOUT.plusSeconds(1).toMillis());
    }

    private static Set<String> delivered(HaServiceProcess... processes) {
        Set<String> ids = new HashSet<>();
        for (HaServiceProcess p : processes) {
            p.deliveries().forEach(d -> ids.add(d.id()));
        }
        return ids;
    }

    private static Set<String> missing(Set<String> expected, HaServiceProcess... processes) {
        Set<String> missing = new HashSet<>(expected);
        missing.removeAll(delivered(processes));
        return missing;
    }
}
