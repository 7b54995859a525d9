package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

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
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A full journal backlog blocks nobody (issue 19, item 6), over HTTP against the real service on MariaDB and Redis:
 * with the journal's tables locked by the test (every write of the journal waits) and far more transitions than
 * {@code delay.journal.queue-capacity}, the scanners keep handing jobs over (Redis is the authority), pushes and
 * consumers' reserves get 503 at once, the health endpoint answers; once the tables are unlocked the journal
 * catches up: the reconciler writes back the final states Redis holds.
 */
@ServiceTest(
        properties = {
            "delay.dispatch.default=" + RecordingDispatcher.NAME,
            "delay.dispatch.topics.bf-pull=pull",
            "delay.journal.queue-capacity=" + JournalBacklogFullTest.CAPACITY,
            "delay.journal.commit-timeout=2s",
            "delay.journal.reconcile-interval=500ms",
            "delay.journal.reconcile-grace=1s",
            "delay.redis.timeout=2s"
        })
@Import(RecordingDispatcherConfig.class)
class JournalBacklogFullTest {
    /** Rows: ten transitions. */
    static final int CAPACITY = 20;

    static final ServiceStores STORES = ServiceStores.redisAndJournal("backlogfull");
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** A call that waited for the database would not come back while the tables are locked. */
    private static final Duration NO_WAIT = Duration.ofSeconds(20);

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        STORES.register(registry);
    }

    @LocalServerPort
    int port;

    @Autowired
    RecordingDispatcher recorder;

    @Autowired
    Journal journal;

    @Test
    void with_the_journal_locked_the_scanners_hand_over_callers_get_503_at_once_and_the_journal_catches_up_later()
            throws Exception {
        Api api = new Api(port);
        await("a push is answered 200")
                .atMost(WAIT)
                .until(() -> api.postJson("/push", Jobs.one("bf-probe", 60_000)).status() == 200);
        List<String> pushed = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            Api.Response r = api.postJson("/push", Jobs.one("bf-push", 5_000));
            assertThat(r.status()).as("push before the lock: %s", r).isEqualTo(200);
            pushed.add(r.data().asText());
        }
        for (int i = 0; i < 5; i++) {
            assertThat(api.postJson("/push", Jobs.one("bf-pull", 5_000)).status())
                    .isEqualTo(200);
        }

        try (Connection locker = DriverManager.getConnection(
                        STORES.journal().jdbcUrl(), JournalDatabase.MARIADB_USER, JournalDatabase.MARIADB_PASSWORD);
                Statement lock = locker.createStatement()) {
            lock.execute("LOCK TABLES delay_queue_job READ, delay_queue_job_log READ");

            // 40 jobs: 80 transitions (taken for delivery, finished), far over the capacity of 10
            await("every due job is handed over while the journal cannot write")
                    .atMost(WAIT)
                    .until(() -> recorder.deliveriesOf(Set.copyOf(pushed)).stream()
                            .map(RecordingDispatcher.Delivery::id)
                            .collect(Collectors.toSet())
                            .containsAll(pushed));
            await("the backlog is full")
                    .atMost(WAIT)
                    .until(() ->
                            api.get("/stats").data().at("/journal/queuedRows").asLong() >= CAPACITY - 2);

            assertTimeoutPreemptively(NO_WAIT, () -> {
                Api.Response reserve = api.get("/get/bf-pull?timeout=0");
                assertThat(reserve.status())
                        .as("a reserve while the backlog is full: %s", reserve)
                        .isEqualTo(503);
                assertThat(reserve.message()).contains("behind").contains("nothing was changed");
                Api.Response push = api.postJson("/push", Jobs.one("bf-push", 5_000));
                assertThat(push.status())
                        .as("a push while the backlog is full: %s", push)
                        .isEqualTo(503);
                assertThat(push.data().asText()).as("the id to retry with").isNotBlank();
                Api.Response health = api.get("/actuator/health");
                assertThat(health.status()).as("health: %s", health).isIn(200, 503);
            });
            assertThat(journal.droppedRows())
                    .as("rows of transitions not journaled (delay_journal_dropped_rows_total)")
                    .isPositive();

            lock.execute("UNLOCK TABLES");
        }

        await("the reconciler writes back the final states Redis holds")
                .atMost(WAIT)
                .until(() -> STORES.journal()
                                .queryLong("SELECT COUNT(*) FROM delay_queue_job WHERE status = 'FINISHED' AND id IN ("
                                        + pushed.stream()
                                                .map(id -> "'" + id + "'")
                                                .collect(Collectors.joining(","))
                                        + ")")
                        == pushed.size());
        await("consumers reserve again")
                .atMost(WAIT)
                .until(() -> api.get("/get/bf-pull?timeout=0").status() == 200);
        assertThat(recorder.deliveriesOf(Set.copyOf(pushed)))
                .as("each handed over once")
                .hasSize(pushed.size());
    }
}
