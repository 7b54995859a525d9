package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
 * status}, {@code ttl}, {@code createTime}), {@code /delete?jobId=}, {@code /reStoreJob?JobId=}, {@code
 * /reStore?expire=true} and {@code /clearAll}. Everything else stays strict.
 */
@ServiceTest(properties = "delay.dispatch.default=" + RecordingDispatcher.NAME)
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
        assertThat(api.get("/jobs/21").data().path("job").path("executeAt").asLong())
                .as("due at createTime + delay")
                .isEqualTo(createTime + 10_000);
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
                .as("only the two accepted pushes are journaled")
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
