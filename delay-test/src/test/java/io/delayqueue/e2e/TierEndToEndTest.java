package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayqueue.common.JobIds;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.RecordingDispatcherConfig;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.ServiceTest;
import io.delayqueue.queue.engine.EngineConfig;
import io.delayqueue.queue.testing.RecordingDispatcher;
import io.delayqueue.queue.testing.RecordingDispatcher.Delivery;
import io.delayqueue.queue.testing.RedisFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import redis.clients.jedis.Jedis;

/**
 * Tiers over HTTP with a two-second horizon and the MariaDB journal: jobs pushed further ahead are answered 200
 * while only the journal holds them, {@code GET /jobs/{id}} says so, {@code /stats} counts them in the journal
 * tier, and each is loaded ahead of its due time and delivered on time, once; a far job deleted while only the
 * journal holds it is never delivered.
 */
@ServiceTest(properties = {"delay.dispatch.default=" + RecordingDispatcher.NAME, "delay.tier.horizon=2s"})
@Import(RecordingDispatcherConfig.class)
class TierEndToEndTest {
    static final ServiceStores STORES = ServiceStores.redisAndJournal("tier");
    private static final String TOPIC = "e2e.tier";
    private static final int JOBS = 200;
    private static final long DELAY_MS = 8_000;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        STORES.register(registry);
    }

    @LocalServerPort
    int port;

    @Autowired
    RecordingDispatcher recorder;

    @Autowired
    EngineConfig engineConfig;

    @Test
    void far_jobs_live_in_the_journal_until_the_horizon_then_are_delivered_on_time_and_stats_count_the_tiers() {
        Api api = new Api(port);
        List<Map<String, Object>> batch = new ArrayList<>();
        for (int i = 0; i < JOBS; i++) {
            Map<String, Object> job = new LinkedHashMap<>();
            job.put("topic", TOPIC);
            job.put("body", "far " + i);
            job.put("delay", DELAY_MS + i * 10L);
            batch.add(job);
        }
        Api.Response pushed = api.postJson("/push/batch", batch);
        assertThat(pushed.status()).as("push: %s", pushed).isEqualTo(200);
        List<String> ids = new ArrayList<>();
        pushed.data().forEach(id -> ids.add(id.asText()));
        Api.Response deletedPush = api.postJson("/push", Map.of("topic", TOPIC, "body", "deleted", "delay", DELAY_MS));
        assertThat(deletedPush.status()).as("push: %s", deletedPush).isEqualTo(200);
        String deleted = deletedPush.data().asText();

        assertThat(ids).as("far jobs in Redis right after the push").noneMatch(this::inRedis);
        Api.Response job = api.get("/jobs/" + ids.get(0));
        assertThat(job.status()).as("GET /jobs: %s", job).isEqualTo(200);
        assertThat(job.data().path("tier").asText()).isEqualTo("journal");
        assertThat(job.data().path("status").asText()).isEqualTo("DELAY");
        assertThat(job.data().path("job").path("body").asText()).isEqualTo("far 0");

        Api.Response delete = api.delete("/jobs/" + deleted);
        assertThat(delete.status())
                .as("delete of a journal-only job: %s", delete)
                .isEqualTo(200);

        await("/stats counts the far jobs in the journal tier")
                .atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat((api.get("/stats")
                                        .data()
                                        .path("tiers")
                                        .path("journalPending")
                                        .asLong(-1)
                                == JOBS))
                        .as(() -> "/stats counts the far jobs in the journal tier" + " "
                                + (api.get("/stats").data().path("tiers")))
                        .isTrue());
        JsonNode tiers = api.get("/stats").data().path("tiers");
        assertThat(tiers.path("horizonMs").asLong()).isEqualTo(2000);

        Set<String> idSet = Set.copyOf(ids);
        await("every far job is delivered").atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(
                        (RecordingDispatcher.countById(recorder.deliveriesOf(idSet))
                                        .size()
                                == JOBS))
                .as(() -> "every far job is delivered" + " "
                        + (RecordingDispatcher.countById(recorder.deliveriesOf(idSet))
                                        .size() + " delivered"))
                .isTrue());
        List<Delivery> deliveries = recorder.deliveriesOf(idSet);
        assertThat(deliveries).as("each delivered once").hasSize(JOBS);
        assertThat(deliveries)
                .as("delivered at their due time, loaded ahead of it")
                .allSatisfy(d -> assertThat(d.latenessMs()).isBetween(0L, 1000L));
        assertThat(recorder.deliveriesOf(Set.of(deleted)))
                .as("deliveries of the deleted job")
                .isEmpty();
        assertThat(api.get("/jobs/" + deleted).data().path("status").asText()).isEqualTo("DELETED");
        await("/stats counts no far job left").atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(
                        (api.get("/stats")
                                        .data()
                                        .path("tiers")
                                        .path("journalPending")
                                        .asLong(-1)
                                == 0))
                .as(() -> "/stats counts no far job left" + " "
                        + (api.get("/stats").data().path("tiers")))
                .isTrue());
    }

    private boolean inRedis(String id) {
        String pool = "{" + STORES.prefix() + ":" + JobIds.shardOf(id, engineConfig.shards()) + "}:pool";
        try (Jedis jedis = new Jedis(RedisFixture.HOST, RedisFixture.PORT)) {
            return jedis.hexists(pool, id);
        }
    }
}
