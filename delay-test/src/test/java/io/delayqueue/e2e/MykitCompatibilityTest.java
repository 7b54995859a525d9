package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.RecordingDispatcherConfig;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.ServiceTest;
import io.delayqueue.queue.testing.RecordingDispatcher;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The requests mykit-delay's README documents, replayed against this service: its push body (with {@code
 * status}, {@code ttl}, {@code createTime}, the last kept as the job's), {@code /delete?jobId=}, {@code
 * /reStoreJob?JobId=}, {@code /reStore?expire=true} and {@code /clearAll}, and its client section's {@code GET
 * /delete?id=} and {@code GET /reStore/{id}}. Everything else stays strict.
 */
@ServiceTest(
        properties = {
            "delay.dispatch.default=" + RecordingDispatcher.NAME,
            // only the restores asked for put a job back once its Redis keys are gone: not the reconciler, not the
            // tier loader, not the replay of the journal's last minute onto a Redis that lost its data
            "delay.journal.reconcile-grace=10m",
            "delay.tier.horizon=0",
            "delay.scanner.replay-window=1ms"
        })
@Import(RecordingDispatcherConfig.class)
class MykitCompatibilityTest {
    static final ServiceStores STORES = ServiceStores.redisAndJournal("mykit");
    private static final Duration WAIT = Duration.ofSeconds(30);

    /** mykit-delay's README example, as printed there (a quote is missing before ttl). */
    private static final String DOCUMENTED =
            "{\"body\":\"{hello world}\",\"delay\":10000,\"id\":\"20\",\"status\":0,\"topic\":\"ces\",\"subtopic\":\"\",ttl\":12}";
    /** The same with the quote put back. */
    private static final String DOCUMENTED_FIXED =
            "{\"body\":\"{hello world}\",\"delay\":10000,\"id\":\"20\",\"status\":0,\"topic\":\"ces\",\"subtopic\":\"\",\"ttl\":12}";

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        STORES.register(registry);
    }

    @LocalServerPort
    int port;

    @Autowired
    RecordingDispatcher recorder;

    @Test
    void mykit_delay_documented_calls_work_and_everything_else_stays_strict() {
        Api api = new Api(port);

        Api.Response asPrinted = api.post("/push", DOCUMENTED);
        assertThat(asPrinted.status())
                .as("the README's example as printed: %s", asPrinted)
                .isEqualTo(400);
        assertThat(asPrinted.message()).contains("JSON");
        assertThat(journaledIds()).as("nothing written by a malformed push").isEmpty();

        Api.Response pushed = api.post("/push", DOCUMENTED_FIXED);
        assertThat(pushed.status()).as("the README's example: %s", pushed).isEqualTo(200);
        assertThat(pushed.data().asText()).isEqualTo("20");
        assertThat(api.get("/jobs/20").data().path("status").asText()).isEqualTo("DELAY");

        // delay counts from createTime: created 9.5 s ago with a delay of 10 s, it is due in half a second
        long createTime = System.currentTimeMillis() - 9_500;
        Api.Response fromCreateTime = api.post(
                "/push",
                "{\"body\":\"b\",\"delay\":10000,\"id\":\"21\",\"status\":0,\"topic\":\"ces\",\"ttl\":12,\"createTime\":"
                        + createTime + "}");
        assertThat(fromCreateTime.status())
                .as("push with createTime: %s", fromCreateTime)
                .isEqualTo(200);
        JsonNode created = api.get("/jobs/21").data().path("job");
        assertThat(created.path("executeAt").asLong())
                .as("due at createTime + delay")
                .isEqualTo(createTime + 10_000);
        assertThat(created.path("createTime").asLong())
                .as("createTime kept as given")
                .isEqualTo(createTime);
        assertThat(STORES.journal().queryLong("SELECT create_time FROM delay_queue_job WHERE id = '21'"))
                .as("createTime journaled as given")
                .isEqualTo(createTime);
        for (long absurd :
                List.of(-1L, System.currentTimeMillis() + Duration.ofDays(1).toMillis())) {
            Api.Response refused = api.post(
                    "/push",
                    "{\"body\":\"b\",\"delay\":10000,\"id\":\"absurd\",\"topic\":\"ces\",\"createTime\":" + absurd
                            + "}");
            assertThat(refused.status())
                    .as("createTime %s: %s", absurd, refused)
                    .isEqualTo(400);
            assertThat(refused.message()).startsWith("createTime");
        }
        await("the job due from its createTime is delivered")
                .atMost(WAIT)
                .until(() -> !recorder.deliveriesOf(Set.of("21")).isEmpty());

        Api.Response notWaiting = api.post("/push", "{\"body\":\"b\",\"delay\":1000,\"status\":1,\"topic\":\"ces\"}");
        assertThat(notWaiting.status())
                .as("status other than 0: %s", notWaiting)
                .isEqualTo(400);
        assertThat(notWaiting.message()).startsWith("status");
        Api.Response unknown = api.post("/push", "{\"body\":\"b\",\"topic\":\"ces\",\"retries\":3}");
        assertThat(unknown.status())
                .as("a field neither service knows: %s", unknown)
                .isEqualTo(400);
        assertThat(unknown.message()).contains("retries");
        assertThat(journaledIds())
                .as("only the two accepted pushes are journaled (none of the absurd createTime)")
                .containsExactlyInAnyOrder("20", "21");

        Api.Response restoreOne = api.get("/reStoreJob?JobId=20");
        assertThat(restoreOne.status()).as("/reStoreJob?JobId=: %s", restoreOne).isEqualTo(200);
        assertThat(restoreOne.message()).isEqualTo("already in Redis");
        Api.Response restoreAll = api.get("/reStore?expire=true");
        assertThat(restoreAll.status())
                .as("/reStore?expire=true: %s", restoreAll)
                .isEqualTo(200);

        Api.Response deleted = api.get("/delete?jobId=20");
        assertThat(deleted.status()).as("/delete?jobId=: %s", deleted).isEqualTo(200);
        assertThat(api.get("/jobs/20").data().path("status").asText()).isEqualTo("DELETED");

        // the client section's calls: GET /delete?id= and GET /reStore/{id}
        assertThat(api.post("/push", "{\"body\":\"b\",\"delay\":60000,\"id\":\"23\",\"topic\":\"ces\"}")
                        .status())
                .isEqualTo(200);
        Api.Response both = api.get("/delete?jobId=23&id=23");
        assertThat(both.status()).as("/delete with jobId and id: %s", both).isEqualTo(400);
        assertThat(both.message()).startsWith("jobId");
        Api.Response deletedById = api.get("/delete?id=23");
        assertThat(deletedById.status()).as("/delete?id=: %s", deletedById).isEqualTo(200);
        assertThat(api.get("/jobs/23").data().path("status").asText()).isEqualTo("DELETED");
        assertThat(api.get("/delete?id=nothing-here").status())
                .as("/delete?id= of no job")
                .isEqualTo(404);

        assertThat(api.post("/push", "{\"body\":\"b\",\"delay\":60000,\"id\":\"24\",\"topic\":\"ces\"}")
                        .status())
                .isEqualTo(200);
        STORES.redis().deleteAllKeys();
        assertThat(api.get("/jobs/24").data().path("tier").asText())
                .as("with its Redis keys gone, only the journal holds job 24")
                .isEqualTo("journal");
        Api.Response restoredByPath = api.get("/reStore/24");
        assertThat(restoredByPath.status())
                .as("/reStore/{id}: %s", restoredByPath)
                .isEqualTo(200);
        assertThat(restoredByPath.data().path("restored").asLong()).isEqualTo(1);
        JsonNode restored = api.get("/jobs/24").data();
        assertThat(restored.path("tier").asText()).as("job 24 back in Redis").isEqualTo("redis");
        assertThat(restored.path("status").asText()).isEqualTo("DELAY");
        assertThat(api.get("/reStore/24").message())
                .as("a second restore changes nothing")
                .isEqualTo("already in Redis");
        assertThat(api.get("/reStore/nothing-here").status())
                .as("/reStore/{id} of no job")
                .isEqualTo(404);

        Api.Response clearAll = api.get("/clearAll");
        assertThat(clearAll.status())
                .as("/clearAll without its confirmation: %s", clearAll)
                .isEqualTo(400);
        assertThat(clearAll.message()).contains("/clearAll?confirm=true");
    }

    private static List<String> journaledIds() {
        return STORES.journal().queryStrings("SELECT id FROM delay_queue_job");
    }
}
