package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.ServiceProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's run command (embedded Redis, the SQLite journal {@code ./data/delay-queue.db}, nothing configured)
 * killed with {@code kill -9} while concurrent clients push, right after some pushes were answered 200, then
 * started again in the same directory: every push answered 200 is delivered. A push is answered once its group's
 * commit is in SQLite's write-ahead log and the log is forced to disk ({@code WalSync}); the restart replays the log.
 * (The former default, H2, kept a commit in memory for up to 500 ms: without forcing each group commit to disk,
 * the last answered pushes were lost.)
 */
class EmbeddedDefaultKillNineTest {
    private static final int CLIENTS = 16;
    /** Answered pushes after which the service is killed, while the clients go on pushing. */
    private static final int ANSWERED_BEFORE_KILL = 600;

    private static final Duration START = Duration.ofMinutes(3);

    @TempDir
    Path workDir;

    @Test
    void every_push_answered_200_before_kill_9_is_delivered_after_a_restart_on_the_same_journal_file()
            throws Exception {
        Map<String, Integer> printed = ServiceProcess.newCounts();
        Set<String> answered = ConcurrentHashMap.newKeySet();
        AtomicInteger refused = new AtomicInteger();
        List<String> args = List.of(
                "--delay.dispatch.default=console", "--logging.level.root=warn", "--logging.level.io.delayqueue=info");
        try (ServiceProcess first = ServiceProcess.start("embedded-kill9-first", args, printed, workDir)) {
            first.awaitUp(START);
            assertThat(workDir.resolve("data/delay-queue.db"))
                    .as("the embedded default's journal, SQLite")
                    .exists();
            assertThat(workDir.resolve("data/delay-queue.mv.db"))
                    .as("no H2 file")
                    .doesNotExist();
            Api api = first.api();
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> clients = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                int client = c;
                Thread t = new Thread(
                        () -> {
                            for (int i = 0; !stop.get(); i++) {
                                try {
                                    // due a few seconds later: after the kill, before the restart is up
                                    Api.Response r = api.post(
                                            "/push",
                                            "{\"topic\":\"e2e.kill9\",\"body\":\"" + client + "-" + i
                                                    + "\",\"delay\":3000}");
                                    if (r.status() == 200) {
                                        answered.add(r.data().asText());
                                    } else {
                                        refused.incrementAndGet();
                                    }
                                } catch (RuntimeException killed) {
                                    return; // the service is gone
                                }
                            }
                        },
                        "pusher-" + c);
                t.start();
                clients.add(t);
            }
            await(ANSWERED_BEFORE_KILL + " pushes are answered 200")
                    .atMost(Duration.ofSeconds(90))
                    .untilAsserted(() -> assertThat((answered.size() >= ANSWERED_BEFORE_KILL))
                            .as(() -> ANSWERED_BEFORE_KILL + " pushes are answered 200" + " "
                                    + (answered.size() + " answered, " + refused.get() + " refused\n" + first.tail()))
                            .isTrue());
            first.kill();
            stop.set(true);
            for (Thread t : clients) {
                t.join();
            }
        }
        assertThat(refused.get())
                .as("pushes answered other than 200 before the kill")
                .isZero();
        Set<String> acknowledged = Set.copyOf(answered);

        try (ServiceProcess second = ServiceProcess.start("embedded-kill9-second", args, printed, workDir)) {
            second.awaitUp(START);
            await("every push answered 200 before the kill is delivered")
                    .atMost(Duration.ofSeconds(90))
                    .untilAsserted(() -> assertThat((printed.keySet().containsAll(acknowledged)))
                            .as(() -> "every push answered 200 before the kill is delivered" + " "
                                    + (missing(acknowledged, printed).size() + " of " + acknowledged.size()
                                            + " missing, e.g. "
                                            + missing(acknowledged, printed).stream()
                                                    .limit(5)
                                                    .toList() + "\n" + second.tail()))
                            .isTrue());
            System.out.printf(
                    "EmbeddedDefaultKillNineTest: %d pushes answered 200 before kill -9, all delivered after the"
                            + " restart; restore at start: %s%n",
                    acknowledged.size(), second.restoreLines());
        }
    }

    private static Set<String> missing(Set<String> ids, Map<String, Integer> printed) {
        Set<String> missing = new HashSet<>(ids);
        missing.removeAll(printed.keySet());
        return missing;
    }
}
