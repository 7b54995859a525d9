package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.common.JobIds;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.RecordingDispatcherConfig;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.ServiceTest;
import io.delayqueue.e2e.support.TcpProxy;
import io.delayqueue.queue.engine.DelayQueueEngine;
import io.delayqueue.queue.engine.EngineConfig;
import io.delayqueue.queue.testing.JournalDatabase;
import io.delayqueue.queue.testing.RecordingDispatcher;
import io.delayqueue.queue.testing.RedisFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import redis.clients.jedis.Jedis;

/**
 * Deletes are durable first (issue 10, item 6): a delete answered 200 is committed in the journal, one answered
 * 5xx leaves the job alike in Redis and the journal, and nothing deleted is ever delivered, not even after its
 * retention in Redis ended and the reconciler and a restore walked the journal. The service reaches MariaDB
 * through a {@link TcpProxy} that the test cuts; the journal is read straight from MariaDB.
 */
@ServiceTest(
        properties = {
            "delay.dispatch.default=" + RecordingDispatcher.NAME,
            "delay.retention=3s",
            // tiers need a retention of at least 5m (tombstones outlive the loader's pages); every job here is near
            "delay.tier.horizon=0",
            "delay.journal.reconcile-interval=200ms",
            "delay.journal.reconcile-grace=500ms",
            "delay.journal.commit-timeout=2s",
            "spring.datasource.hikari.connection-timeout=250",
            "spring.datasource.hikari.validation-timeout=500"
        })
@Import(RecordingDispatcherConfig.class)
class DeleteDurabilityTest {
    static final ServiceStores STORES = ServiceStores.redisAndJournal("deldur");
    static final TcpProxy PROXY = new TcpProxy(JournalDatabase.MARIADB_HOST, JournalDatabase.MARIADB_PORT);
    private static final Duration WAIT = Duration.ofSeconds(60);
    /**
     * Long enough for the deletes the journal refuses (each up to the 2 s commit timeout when a commit of it was
     * under way), and their retries, before the jobs are due, on a loaded machine too: at 8 s a job was once due
     * before its retried delete got through.
     */
    private static final long DELAY_MS = 20_000;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        STORES.register(registry);
        registry.add("spring.datasource.url", () -> STORES.journal().jdbcUrl(PROXY.port()));
    }

    @LocalServerPort
    int port;

    @Autowired
    RecordingDispatcher recorder;

    @Autowired
    EngineConfig engineConfig;

    @Autowired
    DelayQueueEngine engine;

    @AfterEach
    void reconnect() {
        PROXY.restore();
    }

    /** The journal answers again (its pool may still hold connections that the last cut broke). */
    @BeforeEach
    void awaitJournal() {
        Api api = new Api(port);
        await("a push is answered 200")
                .atMost(WAIT)
                .until(() ->
                        api.postJson("/push", job("dd-probe", "probe", 1_000)).status() == 200);
    }

    @Test
    void a_delete_the_journal_refuses_changes_nothing_and_no_deleted_job_is_ever_delivered() {
        Api api = new Api(port);
        List<String> deletedBefore = push(api, "dd-before", 3, DELAY_MS);
        List<String> refusedThenRetried = push(api, "dd-retried", 3, DELAY_MS);
        List<String> refusedOnly = push(api, "dd-refused", 3, DELAY_MS);
        for (String id : deletedBefore) {
            assertThat(api.delete("/jobs/" + id).status()).as("delete %s", id).isEqualTo(200);
        }

        PROXY.cut();
        List<String> refused = new ArrayList<>(refusedThenRetried);
        refused.addAll(refusedOnly);
        for (String id : refused) {
            Api.Response r = api.delete("/jobs/" + id);
            assertThat(r.status())
                    .as("delete while the journal is unreachable: %s", r)
                    .isIn(503, 504);
            if (r.status() == 503) {
                assertThat(r.message()).contains("not deleted").contains("nothing changed");
                assertThat(redisStatus(id))
                        .as("Redis after a refused delete of %s", id)
                        .isEqualTo("DELAY");
            } else {
                assertThat(r.message()).contains("may or may not").contains(id);
            }
            assertThat(journalStatus(id))
                    .as("journal after a refused delete of %s", id)
                    .isEqualTo("DELAY");
        }

        PROXY.restore();
        for (String id : refusedThenRetried) {
            List<String> answers = new ArrayList<>();
            await("a retried delete of " + id + " is answered 200").atMost(WAIT).until(() -> {
                Api.Response r = api.delete("/jobs/" + id);
                answers.add(r.toString());
                assertThat(r.status()).as("retried delete: %s", r).isIn(200, 503, 504);
                return r.status() == 200;
            });
            assertThat(journalStatus(id))
                    .as("journal after the delete answered 200 (answers %s; journal log %s)", answers, journalLog(id))
                    .isEqualTo("DELETED");
            assertThat(redisStatus(id)).isEqualTo("DELETED");
        }

        List<String> deleted = new ArrayList<>(deletedBefore);
        deleted.addAll(refusedThenRetried);
        await("the jobs whose delete was refused are delivered")
                .atMost(WAIT)
                .until(() -> recorder.deliveriesOf(Set.copyOf(refusedOnly)).stream()
                        .map(RecordingDispatcher.Delivery::id)
                        .collect(Collectors.toSet())
                        .containsAll(refusedOnly));
        assertNeverComesBack(api, deleted);
    }

    @Test
    void a_clear_all_the_journal_refuses_changes_nothing_and_a_later_one_deletes_everything_for_good() {
        Api api = new Api(port);
        List<String> first = push(api, "dd-clear", 20, DELAY_MS);

        PROXY.cut();
        Api.Response refused = api.get("/clearAll?confirm=true");
        assertThat(refused.status())
                .as("clearAll while the journal is unreachable: %s", refused)
                .isIn(503, 504);
        assertThat(refused.message()).contains("clearAll stopped after deleting 0 jobs");
        if (refused.status() == 503) {
            for (String id : first) {
                assertThat(redisStatus(id)).as("Redis after a refused clearAll").isEqualTo("DELAY");
            }
        }
        for (String id : first) {
            assertThat(journalStatus(id)).as("journal after a refused clearAll").isEqualTo("DELAY");
        }

        PROXY.restore();
        List<String> all = new ArrayList<>(first);
        await("pushes work again once MariaDB is back")
                .atMost(WAIT)
                .until(() -> api.postJson("/push", job("dd-clear", "probe", DELAY_MS))
                                .status()
                        == 200);
        all.addAll(push(api, "dd-clear-more", 5, DELAY_MS));
        await("clearAll is answered 200 once MariaDB is back").atMost(WAIT).until(() -> {
            Api.Response r = api.get("/clearAll?confirm=true");
            assertThat(r.status()).as("clearAll: %s", r).isIn(200, 503, 504);
            return r.status() == 200;
        });
        for (String id : all) {
            assertThat(journalStatus(id))
                    .as("journal after clearAll answered 200")
                    .isEqualTo("DELETED");
            assertThat(redisStatus(id)).as("Redis after clearAll answered 200").isEqualTo("DELETED");
        }
        assertNeverComesBack(api, all);
    }

    /**
     * Waits until the deleted jobs (pushed with delays of at most {@link #DELAY_MS}) are overdue by more than the
     * reconciler's grace, which a control job pushed now tells by its delivery, and purged from Redis (their
     * retention ended); then runs a reconciler pass and a restore: neither brings any of them back, and none
     * was ever delivered.
     */
    private void assertNeverComesBack(Api api, List<String> deleted) {
        String control = push(api, "dd-control", 1, DELAY_MS + 1_000).get(0);
        await("the control job is delivered").atMost(WAIT).until(() -> !recorder.deliveriesOf(Set.of(control))
                .isEmpty());
        await("the deleted jobs are purged from Redis once their retention ended")
                .atMost(WAIT)
                .until(() -> deleted.stream().allMatch(id -> redisStatus(id) == null));
        engine.reconcileNow();
        Api.Response restore = api.get("/reStore?expire=true");
        assertThat(restore.status()).as("restore: %s", restore).isEqualTo(200);
        engine.reconcileNow();
        for (String id : deleted) {
            assertThat(redisStatus(id))
                    .as("%s in Redis after the reconciler and a restore", id)
                    .isNull();
            assertThat(journalStatus(id)).as("%s in the journal", id).isEqualTo("DELETED");
        }
        assertThat(recorder.deliveriesOf(Set.copyOf(deleted)))
                .as("deliveries of deleted jobs")
                .isEmpty();
    }

    private List<String> push(Api api, String topic, int n, long delayMs) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Api.Response r = api.postJson("/push", job(topic, topic + " " + i, delayMs));
            assertThat(r.status()).as("push: %s", r).isEqualTo(200);
            ids.add(r.data().asText());
        }
        return ids;
    }

    private String redisStatus(String id) {
        String tag = "{" + STORES.prefix() + ":" + JobIds.shardOf(id, engineConfig.shards()) + "}";
        try (Jedis jedis = new Jedis(RedisFixture.HOST, RedisFixture.PORT)) {
            String value = jedis.hget(tag + ":pool", id);
            return value == null ? null : value.substring(0, value.indexOf('|'));
        }
    }

    private static List<String> journalLog(String id) {
        return STORES.journal()
                .queryStrings(
                        "SELECT CONCAT(event, ' ', COALESCE(from_status, '-'), '>', to_status, ' ', COALESCE(detail, ''))"
                                + " FROM delay_queue_job_log WHERE job_id = '" + id + "' ORDER BY event_time");
    }

    /** Read straight from MariaDB, not through the proxy. */
    private static String journalStatus(String id) {
        List<String> rows = STORES.journal().queryStrings("SELECT status FROM delay_queue_job WHERE id = '" + id + "'");
        return rows.isEmpty() ? null : rows.get(0);
    }

    private static Map<String, Object> job(String topic, String body, long delayMs) {
        Map<String, Object> job = new LinkedHashMap<>();
        job.put("topic", topic);
        job.put("body", body);
        job.put("delay", delayMs);
        return job;
    }
}
