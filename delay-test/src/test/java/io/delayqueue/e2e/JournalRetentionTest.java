package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.RecordingDispatcherConfig;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.ServiceTest;
import io.delayqueue.queue.testing.RecordingDispatcher;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.autoconfigure.actuate.observability.AutoConfigureObservability;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The service with a journal retention of a few hundred milliseconds on MariaDB: a delivered and a deleted job
 * leave the journal (and the database) by themselves, a pending one stays, and {@code /actuator/prometheus}
 * counts the rows per table.
 */
@AutoConfigureObservability(tracing = false)
@ServiceTest(
        properties = {
            "delay.dispatch.default=" + RecordingDispatcher.NAME,
            "delay.retention=200ms",
            // tiers need a retention of at least 5m (tombstones outlive the loader's pages); every job here is near
            "delay.tier.horizon=0",
            "delay.journal.retention=300ms",
            "delay.journal.purge-interval=100ms",
            "delay.journal.purge-batch-size=1"
        })
@Import(RecordingDispatcherConfig.class)
class JournalRetentionTest {
    static final ServiceStores STORES = ServiceStores.redisAndJournal("retention");
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Pattern PURGED =
            Pattern.compile("delay_journal_purged_rows_total\\{table=\"(\\w+)\",?\\} (\\d+)\\.0");

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        STORES.register(registry);
    }

    @LocalServerPort
    int port;

    @Autowired
    RecordingDispatcher recorder;

    @Test
    void final_jobs_leave_the_journal_after_its_retention_and_the_rows_are_counted_per_table() {
        Api api = new Api(port);
        String delivered = push(api, 0);
        String deleted = push(api, 600_000);
        String pending = push(api, 600_000);
        assertThat(api.delete("/jobs/" + deleted).status()).isEqualTo(200);
        await("the due job is delivered").atMost(WAIT).until(() -> !recorder.deliveriesOf(Set.of(delivered))
                .isEmpty());

        await("the delivered and the deleted job are purged from the journal")
                .atMost(WAIT)
                .until(() -> STORES.journal()
                                .queryLong("SELECT COUNT(*) FROM delay_queue_job WHERE id IN ('" + delivered + "', '"
                                        + deleted + "')")
                        == 0);

        assertThat(STORES.journal().queryStrings("SELECT id FROM delay_queue_job"))
                .containsExactly(pending);
        assertThat(STORES.journal().queryStrings("SELECT DISTINCT job_id FROM delay_queue_job_log"))
                .as("history is left only for the job left")
                .containsExactly(pending);
        await("the purged rows are counted").atMost(WAIT).until(() -> {
            Map<String, Long> purged = purgedRows(api);
            // the delivered job: CREATED and FINISHED at least; the deleted one: CREATED and DELETED
            return purged.getOrDefault("delay_queue_job", 0L) == 2
                    && purged.getOrDefault("delay_queue_job_log", 0L) >= 4;
        });
        assertThat(api.get("/jobs/" + pending).status()).isEqualTo(200);
    }

    private static Map<String, Long> purgedRows(Api api) {
        Api.Response r = api.get("/actuator/prometheus");
        assertThat(r.status()).isEqualTo(200);
        Map<String, Long> byTable = new java.util.TreeMap<>();
        Matcher m = PURGED.matcher(r.raw());
        while (m.find()) {
            byTable.put(m.group(1), Long.parseLong(m.group(2)));
        }
        return byTable;
    }

    private static String push(Api api, long delayMs) {
        Api.Response r = api.postJson("/push", Map.of("topic", "retention", "body", "retention", "delay", delayMs));
        assertThat(r.status()).as("push: %s", r).isEqualTo(200);
        return r.data().asText();
    }
}
