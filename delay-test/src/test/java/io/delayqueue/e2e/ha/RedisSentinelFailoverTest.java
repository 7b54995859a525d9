package io.delayqueue.e2e.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.core.DelayQueueApplication;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.RecordingDispatcherConfig;
import io.delayqueue.e2e.support.RedisSentinelFixture;
import io.delayqueue.e2e.support.StaticResources;
import io.delayqueue.queue.testing.RecordingDispatcher;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisSentineled;
import redis.clients.jedis.UnifiedJedis;

/**
 * The service on a Redis master found through Sentinel (one master, one replica, one sentinel started by
 * the test on loopback ports), through {@code delay.redis.sentinel.*}. The master is killed with
 * {@code kill -9}; once the sentinel has promoted the replica, pushes succeed again and every job is
 * delivered: those pushed before the kill (replicated first, with {@code WAIT}) and those pushed after.
 */
@ExtendWith(StaticResources.class)
@SpringBootTest(
        classes = DelayQueueApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "delay.dispatch.default=" + RecordingDispatcher.NAME,
            // a job whose send was not acknowledged when the master died comes back after this
            "delay.dispatch.timeout=5s",
            // a journal of this class's own (in memory), gone with its context
            "spring.datasource.url=jdbc:h2:mem:ha-sentinel;MODE=MySQL;DATABASE_TO_LOWER=TRUE;CASE_INSENSITIVE_IDENTIFIERS=TRUE"
        })
@Import(RecordingDispatcherConfig.class)
@DirtiesContext
class RedisSentinelFailoverTest {
    private static final int JOBS = 200;
    private static RedisSentinelFixture sentinel;

    @DynamicPropertySource
    static void redisSentinel(DynamicPropertyRegistry registry) {
        sentinel = new RedisSentinelFixture();
        registry.add("delay.redis.sentinel.master", () -> RedisSentinelFixture.MASTER_NAME);
        registry.add("delay.redis.sentinel.nodes", sentinel::sentinelNodes);
    }

    @LocalServerPort
    int port;

    @Autowired
    RecordingDispatcher recorder;

    @Autowired
    UnifiedJedis redis;

    private static Set<String> push(Api api, String topic, long delayMs) {
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < JOBS; i++) {
            Api.Response r = api.postJson("/push", Map.of("topic", topic, "body", "b" + i, "delay", delayMs + i));
            assertThat(r.status()).as("push: %s", r).isEqualTo(200);
            ids.add(r.data().asText());
        }
        return ids;
    }

    @Test
    void pushes_and_deliveries_continue_after_the_sentinel_promotes_the_replica_of_a_killed_master() {
        assertThat(redis).isInstanceOf(JedisSentineled.class);
        Api api = new Api(port);
        Set<String> before = push(api, "before", 0);
        await("the first jobs were delivered")
                .atMost(Duration.ofSeconds(30))
                .until(() -> recorder.deliveriesOf(before).size() >= JOBS);

        // due after the fail-over has begun; on the replica before the master dies
        Set<String> pending = push(api, "pending", 3_000);
        try (Jedis master = sentinel.master().connect()) {
            assertThat(master.waitReplicas(1, 5_000))
                    .as("replicas that acknowledged")
                    .isEqualTo(1);
        }
        int replicaPort = sentinel.replica().port();
        long killedAt = System.currentTimeMillis();
        sentinel.master().kill();

        await("the sentinel promoted the replica")
                .atMost(Duration.ofSeconds(60))
                .until(() -> sentinel.currentMasterPort() == replicaPort);
        long promotedAt = System.currentTimeMillis();
        await("a push succeeds again").atMost(Duration.ofSeconds(30)).until(() -> {
            try {
                return api.postJson("/push", Map.of("topic", "probe", "body", "p"))
                                .status()
                        == 200;
            } catch (UncheckedIOException e) {
                return false;
            }
        });
        long pushingAgainAt = System.currentTimeMillis();
        Set<String> after = push(api, "after", 0);

        Set<String> all = new HashSet<>(pending);
        all.addAll(after);
        await("the jobs pushed before the kill and after the promotion were delivered")
                .atMost(Duration.ofSeconds(60))
                .untilAsserted(() -> assertThat((recorder.deliveriesOf(all).stream()
                                        .map(RecordingDispatcher.Delivery::id)
                                        .distinct()
                                        .count()
                                == all.size()))
                        .as(() -> "the jobs pushed before the kill and after the promotion were delivered" + " "
                                + (recorder.deliveriesOf(all).size() + " of " + all.size()))
                        .isTrue());
        List<RecordingDispatcher.Delivery> deliveries = recorder.deliveriesOf(all);
        System.out.printf(
                "HA sentinel: master killed; replica promoted after %d ms, pushes accepted again after %d ms; "
                        + "%d jobs delivered (%d pending across the fail-over), %d duplicates%n",
                promotedAt - killedAt,
                pushingAgainAt - killedAt,
                all.size(),
                pending.size(),
                deliveries.size() - all.size());
        assertThat(api.get("/actuator/health").status()).isEqualTo(200);
    }
}
