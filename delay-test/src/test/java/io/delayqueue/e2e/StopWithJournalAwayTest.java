package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.ServiceProcess;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.StaticResources;
import io.delayqueue.queue.testing.JournalDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A stop does not wait for a database that does not answer (issue 19, item 6): the packaged service (its own JVM,
 * on MariaDB and Redis) hands jobs over while the test holds the journal's tables locked, more transitions than its
 * backlog takes; then SIGTERM ends it within the bound docs/operating.md states ("Stopping"), the tables still
 * locked. Before, the acknowledgements waited for room in the backlog and the stop for them, until the database
 * answered.
 */
@ExtendWith(StaticResources.class)
class StopWithJournalAwayTest {
    static final ServiceStores STORES = ServiceStores.redisAndJournal("stopbound");
    /**
     * The stated bound with the defaults: requests in flight (10 s), sends in flight (10 s) and the journal's pool
     * (10 s); plus the JVM's own exit on a loaded machine.
     */
    private static final Duration BOUND = Duration.ofSeconds(30 + 10);

    private static final Duration START = Duration.ofMinutes(3);
    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void sigterm_ends_the_service_within_the_stated_bound_while_the_journal_cannot_write() throws Exception {
        List<String> args = new ArrayList<>(STORES.serviceArgs());
        args.addAll(List.of(
                "--delay.journal.queue-capacity=20",
                "--delay.dispatch.default=console",
                "--logging.level.root=warn",
                "--logging.level.io.delayqueue=info"));
        Map<String, Integer> printed = ServiceProcess.newCounts();
        try (ServiceProcess service = ServiceProcess.start("stopbound", args, printed);
                Connection locker = DriverManager.getConnection(
                        STORES.journal().jdbcUrl(), JournalDatabase.MARIADB_USER, JournalDatabase.MARIADB_PASSWORD);
                Statement lock = locker.createStatement()) {
            service.awaitUp(START);
            Api api = service.api();
            for (int i = 0; i < 40; i++) {
                Map<String, Object> job = new LinkedHashMap<>();
                job.put("topic", "e2e.stopbound");
                job.put("body", "job " + i);
                job.put("delay", 5_000);
                Api.Response pushed = api.postJson("/push", job);
                assertThat(pushed.status()).as("%s", pushed).isEqualTo(200);
            }

            lock.execute("LOCK TABLES delay_queue_job READ, delay_queue_job_log READ");
            try {
                // the scanners' and the acknowledgements' transitions fill it (JournalBacklogFullTest checks that
                // every job is handed over all the same)
                await("the journal's backlog is full")
                        .atMost(WAIT)
                        .until(() -> api.get("/stats")
                                        .data()
                                        .at("/journal/queuedRows")
                                        .asLong()
                                >= 18);

                boolean ended = service.terminate(BOUND);
                assertThat(ended)
                        .as(
                                "the service ended within %s of SIGTERM, the journal's tables locked; its last lines:%n%s",
                                BOUND, service.tail())
                        .isTrue();
            } finally {
                lock.execute("UNLOCK TABLES");
            }
        }
    }
}
