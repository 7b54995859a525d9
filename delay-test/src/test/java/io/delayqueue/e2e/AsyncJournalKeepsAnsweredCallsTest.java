package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.Jobs;
import io.delayqueue.e2e.support.RecordingDispatcherConfig;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.ServiceTest;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.testing.JournalDatabase;
import io.delayqueue.queue.testing.RecordingDispatcher;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Nothing answered to a client is dropped by the async journal (issue 26, item 5), over HTTP against the real service
 * on MariaDB and Redis: with the journal's tables locked by the test and the backlog held a few rows under its
 * capacity, a delete that fits is answered 200 and journaled once the tables are unlocked, and a delete or a
 * consumer's finish that does not fit is answered 503 with the job left as it was (live and delivered at its time;
 * still reserved). No row of them is dropped. Before, the backlog refused only when it was full and dropped a lagged
 * entry that did not fit: both were answered 200 while their rows were dropped, and the reconciler would have
 * brought the deleted job back from the journal.
 */
@ServiceTest(
        properties = {
            "delay.dispatch.default=" + RecordingDispatcher.NAME,
            "delay.dispatch.topics.ak-pull=pull",
            "delay.journal.lag=50ms",
            "delay.journal.queue-capacity=" + AsyncJournalKeepsAnsweredCallsTest.CAPACITY,
            "delay.redis.timeout=2s"
        })
@Import(RecordingDispatcherConfig.class)
class AsyncJournalKeepsAnsweredCallsTest {
    /** Rows: ten pushes, and one row to spare (a delete or a finish takes two). */
    static final int CAPACITY = 21;

    static final ServiceStores STORES = ServiceStores.redisAndJournal("asynckeeps");
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** Due after the locked phase (a few seconds at most), so that a delete finds it live. */
    private static final long LIVE_DELAY_MS = 15_000;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        STORES.register(registry);
        registry.add("delay.journal.mode", () -> "async");
    }

    @LocalServerPort
    int port;

    @Autowired
    RecordingDispatcher recorder;

    @Autowired
    Journal journal;

    @Test
    void a_delete_or_finish_that_does_not_fit_the_backlog_is_answered_503_and_one_that_fits_is_journaled()
            throws Exception {
        Api api = new Api(port);
        await("a push is answered 200")
                .atMost(WAIT)
                .until(() -> api.postJson("/push", Jobs.one("ak-probe", 60_000)).status() == 200);
        String fits = pushed(api, Jobs.one("ak-live", LIVE_DELAY_MS));
        String refused = pushed(api, Jobs.one("ak-live", LIVE_DELAY_MS));
        pushed(api, Jobs.one("ak-pull", 0));
        String reserved = await("a pull job is reserved")
                .atMost(WAIT)
                .until(() -> api.get("/get/ak-pull?timeout=0").data().path("id").asText(null), id -> id != null);
        await("the journal is written up to now").atMost(WAIT).until(() -> journal.queuedRows() == 0);
        long droppedBefore = journal.droppedRows();

        try (Connection locker = DriverManager.getConnection(
                        STORES.journal().jdbcUrl(), JournalDatabase.MARIADB_USER, JournalDatabase.MARIADB_PASSWORD);
                Statement lock = locker.createStatement()) {
            lock.execute("LOCK TABLES delay_queue_job READ, delay_queue_job_log READ");
            while (journal.queuedRows() < CAPACITY - 5) {
                pushed(api, Jobs.one("ak-fill", 60_000)); // two rows each
            }
            assertThat(journal.queuedRows())
                    .as("the backlog, five rows under its capacity")
                    .isEqualTo(CAPACITY - 5);

            Api.Response deleted = api.delete("/jobs/" + fits);
            assertThat(deleted.status()).as("a delete that fits: %s", deleted).isEqualTo(200);
            pushed(api, Jobs.one("ak-fill", 60_000));
            assertThat(journal.queuedRows())
                    .as("the backlog, one row under its capacity")
                    .isEqualTo(CAPACITY - 1);

            Api.Response notDeleted = api.delete("/jobs/" + refused);
            assertThat(notDeleted.status())
                    .as("a delete that does not fit: %s", notDeleted)
                    .isEqualTo(503);
            assertThat(notDeleted.message()).contains("was not deleted").contains("behind");
            assertThat(api.get("/jobs/" + refused).data().path("status").asText())
                    .as("the job after the refused delete")
                    .isEqualTo("DELAY");

            Api.Response notFinished = api.get("/finish?jobId=" + reserved);
            assertThat(notFinished.status())
                    .as("a finish that does not fit: %s", notFinished)
                    .isEqualTo(503);
            assertThat(notFinished.message()).contains("nothing was changed");
            assertThat(api.get("/jobs/" + reserved).data().path("status").asText())
                    .as("the job after the refused finish")
                    .isEqualTo("RESERVED");

            assertThat(journal.droppedRows())
                    .as("rows dropped (delay_journal_dropped_rows_total)")
                    .isEqualTo(droppedBefore);
            lock.execute("UNLOCK TABLES");
        }

        await("the delete answered 200 is journaled").atMost(WAIT).until(() -> "DELETED"
                .equals(STORES.journalStatus(fits)));
        // the rows held behind the lock are written after the delete's; the finish needs room for one more
        await("the backlog is written").atMost(WAIT).until(() -> journal.queuedRows() == 0);
        assertThat(api.get("/finish?jobId=" + reserved).status())
                .as("the finish, once there is room")
                .isEqualTo(200);
        await("the job whose delete was refused is delivered at its time")
                .atMost(WAIT)
                .until(() -> !recorder.deliveriesOf(Set.of(refused)).isEmpty());
        assertThat(recorder.deliveriesOf(Set.of(fits))).as("the deleted job").isEmpty();
        await("the finish is journaled").atMost(WAIT).until(() -> "FINISHED".equals(STORES.journalStatus(reserved)));
        assertThat(journal.droppedRows()).isEqualTo(droppedBefore);
    }

    private static String pushed(Api api, Map<String, Object> job) {
        Api.Response r = api.postJson("/push", job);
        assertThat(r.status()).as("push: %s", r).isEqualTo(200);
        return r.data().asText();
    }
}
