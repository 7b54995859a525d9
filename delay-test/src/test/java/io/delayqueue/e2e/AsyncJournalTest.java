package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.common.JobIds;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.RecordingDispatcherConfig;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.ServiceTest;
import io.delayqueue.e2e.support.TcpProxy;
import io.delayqueue.queue.engine.EngineConfig;
import io.delayqueue.queue.testing.JournalDatabase;
import io.delayqueue.queue.testing.RecordingDispatcher;
import io.delayqueue.queue.testing.RedisFixture;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import redis.clients.jedis.Jedis;

/**
 * The async journal promises only what it keeps (issue 19, item 7), over HTTP against the real service on MariaDB
 * and Redis: with Redis away a push is answered 503 and never written later (its job would have existed only in the
 * service's memory, lost to a {@code kill -9}), and the backlog of rows waiting for the database is bounded in bytes
 * as well as rows, so that large bodies get 503 long before a million rows fill the heap.
 */
@ServiceTest(
        properties = {
            "delay.dispatch.default=" + RecordingDispatcher.NAME,
            "delay.journal.lag=100ms",
            "delay.journal.queue-capacity-bytes=1MB",
            "delay.redis.timeout=1s"
        })
@Import(RecordingDispatcherConfig.class)
class AsyncJournalTest {
    static final ServiceStores STORES = ServiceStores.redisAndJournal("asyncjournal");
    static final TcpProxy PROXY = new TcpProxy(RedisFixture.HOST, RedisFixture.PORT);
    private static final Duration WAIT = Duration.ofSeconds(60);

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        STORES.register(registry);
        registry.add("delay.journal.mode", () -> "async");
        registry.add("delay.redis.uri", () -> "redis://" + RedisFixture.HOST + ":" + PROXY.port());
    }

    @AfterAll
    static void closeProxy() {
        PROXY.close();
    }

    @LocalServerPort
    int port;

    @Autowired
    EngineConfig engineConfig;

    @AfterEach
    void restore() {
        PROXY.restore();
    }

    @Test
    void with_redis_away_an_async_push_is_answered_503_with_its_id_and_never_written() {
        Api api = awaitService();
        PROXY.cut();
        Api.Response refused = api.postJson("/push", job("aj-redis-away", 1_000, "body"));
        assertThat(refused.status())
                .as("async push with Redis away: %s", refused)
                .isEqualTo(503);
        assertThat(refused.message()).contains("async").contains("not kept");
        String id = refused.data().asText();
        assertThat(id).isNotBlank();
        PROXY.restore();

        String later = awaitPushed(api, job("aj-redis-back", 1_000, "body"));
        // one writer, in order: once the later push's row is in, the refused one's turn has passed
        await("the later push is journaled").atMost(WAIT).until(() -> journalStatus(later) != null);
        assertThat(journalStatus(id)).as("the journal after 503").isNull();
        assertThat(redisStatus(id)).as("Redis after 503").isNull();
    }

    @Test
    void large_bodies_fill_the_backlog_by_bytes_and_further_pushes_get_503_while_the_database_is_away()
            throws Exception {
        Api api = awaitService();
        String body = "x".repeat(60_000);
        List<String> accepted = new ArrayList<>();
        Api.Response full = null;
        try (Connection locker = DriverManager.getConnection(
                        STORES.journal().jdbcUrl(), JournalDatabase.MARIADB_USER, JournalDatabase.MARIADB_PASSWORD);
                Statement lock = locker.createStatement()) {
            lock.execute("LOCK TABLES delay_queue_job READ, delay_queue_job_log READ");
            for (int i = 0; i < 40 && full == null; i++) {
                Api.Response r = api.postJson("/push", job("aj-large", 60_000, body));
                if (r.status() == 200) {
                    accepted.add(r.data().asText());
                } else {
                    full = r;
                }
            }
            lock.execute("UNLOCK TABLES");
        }
        assertThat(full).as("a push refused once the backlog's bytes ran out").isNotNull();
        assertThat(full.status()).as("%s", full).isEqualTo(503);
        assertThat(full.message()).contains("behind").contains("KB");
        assertThat(accepted)
                .as("pushes of 60 KB bodies taken into a 1 MB backlog (2 bytes a character at most)")
                .hasSizeBetween(4, 16);
        for (String id : accepted) {
            await("an accepted push is journaled once the database is back")
                    .atMost(WAIT)
                    .until(() -> journalStatus(id) != null);
        }
        assertThat(api.postJson("/push", job("aj-large", 60_000, body)).status())
                .as("pushes work again")
                .isEqualTo(200);
    }

    private Api awaitService() {
        Api api = new Api(port);
        awaitPushed(api, job("aj-probe", 60_000, "body"));
        return api;
    }

    private static String awaitPushed(Api api, Map<String, Object> job) {
        String[] id = new String[1];
        await("a push is answered 200").atMost(WAIT).until(() -> {
            Api.Response r = api.postJson("/push", job);
            id[0] = r.status() == 200 ? r.data().asText() : null;
            return id[0] != null;
        });
        return id[0];
    }

    private String redisStatus(String id) {
        String tag = "{" + STORES.prefix() + ":" + JobIds.shardOf(id, engineConfig.shards()) + "}";
        try (Jedis jedis = new Jedis(RedisFixture.HOST, RedisFixture.PORT)) {
            String value = jedis.hget(tag + ":pool", id);
            return value == null ? null : value.substring(0, value.indexOf('|'));
        }
    }

    private static String journalStatus(String id) {
        List<String> rows = STORES.journal().queryStrings("SELECT status FROM delay_queue_job WHERE id = '" + id + "'");
        return rows.isEmpty() ? null : rows.get(0);
    }

    private static Map<String, Object> job(String topic, long delayMs, String body) {
        Map<String, Object> job = new LinkedHashMap<>();
        job.put("topic", topic);
        job.put("body", body);
        job.put("delay", delayMs);
        return job;
    }
}
