package io.delayqueue.e2e.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.common.JobIds;
import io.delayqueue.core.DelayQueueApplication;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.RecordingDispatcherConfig;
import io.delayqueue.e2e.support.RedisSentinelFixture;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.StaticResources;
import io.delayqueue.queue.engine.EngineConfig;
import io.delayqueue.queue.store.redis.RedisKeys;
import io.delayqueue.queue.testing.RecordingDispatcher;
import java.io.UncheckedIOException;
import java.time.Duration;
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

/**
 * A Redis fail-over must not undo an answered delete (issue 19, item 2). The service runs on a master found through
 * Sentinel (one master, one replica, one sentinel started by the test) and a MariaDB journal. A delete the replica
 * took answers 200; then the replica stops replicating, and a delete answers 504 with the job's id (Redis' {@code
 * WAIT} saw no replica take it), although MariaDB committed it; the master is killed and the sentinel promotes the
 * replica, which holds that job live. The reconciler makes Redis agree with the journal, and the job is never
 * delivered.
 */
@ExtendWith(StaticResources.class)
@SpringBootTest(
        classes = DelayQueueApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "delay.dispatch.default=" + RecordingDispatcher.NAME,
            "delay.journal.reconcile-interval=200ms",
            "delay.journal.reconcile-grace=1s"
        })
@Import(RecordingDispatcherConfig.class)
@DirtiesContext
class DeleteFailoverTest {
    /** The journal's database (its Redis prefix is the service's, on the sentinel's master). */
    static final ServiceStores STORES = ServiceStores.redisAndJournal("delfail");

    private static final Duration WAIT = Duration.ofSeconds(60);
    /** Long enough for the detach, the delete's replica wait, the kill and the promotion before the job is due. */
    private static final long DUE_IN_MS = 25_000;

    private static RedisSentinelFixture sentinel;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        sentinel = new RedisSentinelFixture();
        registry.add("delay.redis.sentinel.master", () -> RedisSentinelFixture.MASTER_NAME);
        registry.add("delay.redis.sentinel.nodes", sentinel::sentinelNodes);
        STORES.registerOnOtherRedis(registry);
    }

    @LocalServerPort
    int port;

    @Autowired
    RecordingDispatcher recorder;

    @Autowired
    EngineConfig engineConfig;

    @Test
    void a_delete_answers_200_only_once_a_replica_took_it_and_a_fail_over_never_delivers_a_deleted_job() {
        Api api = new Api(port);
        String replicated = pushed(api, "deleted while the replica follows");
        String lost = pushed(api, "deleted while the replica does not follow");
        String kept = pushed(api, "kept, due after the others");
        try (Jedis master = sentinel.master().connect()) {
            assertThat(master.waitReplicas(1, 10_000))
                    .as("replicas that took the pushes")
                    .isEqualTo(1);
        }

        Api.Response taken = api.delete("/jobs/" + replicated);
        assertThat(taken.status()).as("a delete the replica took: %s", taken).isEqualTo(200);

        try (Jedis replica = sentinel.replica().connect()) {
            replica.replicaofNoOne();
        }
        Api.Response notTaken = api.delete("/jobs/" + lost);
        assertThat(notTaken.status())
                .as("a delete no replica took: %s", notTaken)
                .isEqualTo(504);
        assertThat(notTaken.message()).contains(lost).contains("no Redis replica took it");
        assertThat(notTaken.data().asText()).as("the id to retry with").isEqualTo(lost);
        assertThat(journalStatus(lost)).as("committed in the journal").isEqualTo("DELETED");

        int replicaPort = sentinel.replica().port();
        sentinel.master().kill();
        await("the sentinel promoted the replica")
                .atMost(WAIT)
                .until(() -> sentinel.currentMasterPort() == replicaPort);
        try (Jedis promoted = sentinel.replica().connect()) {
            String pool = new RedisKeys(STORES.prefix()).pool(JobIds.shardOf(lost, engineConfig.shards()));
            assertThat(promoted.hget(pool, lost))
                    .as("the promoted replica lacked the delete")
                    .startsWith("DELAY|");
        }

        await("the reconciler made Redis agree with the journal").atMost(WAIT).until(() -> {
            try {
                Api.Response r = api.get("/jobs/" + lost);
                return r.status() == 200
                        && "DELETED".equals(r.data().path("status").asText());
            } catch (UncheckedIOException e) {
                return false;
            }
        });
        await("the job due after the deleted ones is delivered")
                .atMost(Duration.ofMillis(DUE_IN_MS).plus(WAIT))
                .until(() -> !recorder.deliveriesOf(Set.of(kept)).isEmpty());
        assertThat(recorder.deliveriesOf(Set.of(replicated, lost)))
                .as("deliveries of deleted jobs")
                .isEmpty();
    }

    private static String pushed(Api api, String body) {
        Api.Response r = api.postJson(
                "/push",
                Map.of(
                        "topic",
                        "e2e.delfail",
                        "body",
                        body,
                        "delay",
                        body.startsWith("kept") ? DUE_IN_MS + 1_000 : DUE_IN_MS));
        assertThat(r.status()).as("push: %s", r).isEqualTo(200);
        return r.data().asText();
    }

    private static String journalStatus(String id) {
        List<String> rows = STORES.journal().queryStrings("SELECT status FROM delay_queue_job WHERE id = '" + id + "'");
        return rows.isEmpty() ? null : rows.get(0);
    }
}
