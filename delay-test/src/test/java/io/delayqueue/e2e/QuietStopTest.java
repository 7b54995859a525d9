package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.ServiceProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged service as {@code bin/run} starts it (nothing configured: embedded Redis, the SQLite journal
 * {@code ./data/delay-queue.db}) stops quietly: a Ctrl-C (SIGINT to the terminal's foreground process group) or
 * a SIGTERM to its process group ends it with no WARN and no ERROR from start to end. Before, the embedded
 * redis-server shared the JVM's process group, died first, and its supervisor logged an ERROR and started it
 * again while the service stopped. A second service in the same folder stops at once with one line saying that
 * the journal file is in use.
 */
class QuietStopTest {
    private static final Duration START = Duration.ofMinutes(3);
    private static final Duration STOP = Duration.ofSeconds(60);
    private static final Pattern STARTED =
            Pattern.compile("embedded Redis started on 127\\.0\\.0\\.1:\\d+, pid (\\d+)");

    @TempDir
    Path workDir;

    @Test
    void sigint_to_the_process_group_stops_the_service_with_no_warning_and_no_error() throws Exception {
        stopsQuietly("INT");
    }

    @Test
    void sigterm_to_the_process_group_stops_the_service_with_no_warning_and_no_error() throws Exception {
        stopsQuietly("TERM");
    }

    /**
     * systemd's default stop ({@code KillMode=control-group}) signals every process of the service at once, the
     * embedded redis-server too, session or not: its exit while the JVM shuts down is expected, not restarted and
     * not an error.
     */
    @Test
    void sigterm_to_the_jvm_and_its_redis_server_at_once_stops_the_service_with_no_warning_and_no_error()
            throws Exception {
        Map<String, Integer> printed = ServiceProcess.newCounts();
        try (ServiceProcess service =
                ServiceProcess.startAsProcessGroup("quiet-stop-all", List.of(), printed, workDir)) {
            service.awaitUp(START);
            Matcher started = service.linesContaining("embedded Redis started").stream()
                    .map(STARTED::matcher)
                    .filter(Matcher::find)
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no 'embedded Redis started' line:\n" + service.tail()));
            String redis = started.group(1);

            Process kill = new ProcessBuilder("kill", "-s", "TERM", Long.toString(service.pid()), redis)
                    .redirectErrorStream(true)
                    .start();
            assertThat(kill.waitFor()).as("kill's exit status").isZero();

            service.awaitExit(STOP);
            assertThat(service.logLines())
                    .as("output lines with a warning or an error, from start to stop")
                    .filteredOn(line -> line.contains("WARN") || line.contains("ERROR"))
                    .isEmpty();
        }
    }

    private void stopsQuietly(String signal) throws Exception {
        Map<String, Integer> printed = ServiceProcess.newCounts();
        try (ServiceProcess service =
                ServiceProcess.startAsProcessGroup("quiet-stop-" + signal, List.of(), printed, workDir)) {
            service.awaitUp(START);
            Api.Response pushed = service.api().post("/push", "{\"topic\":\"e2e.quiet\",\"body\":\"b\",\"delay\":0}");
            assertThat(pushed.status()).as("push: %s", pushed).isEqualTo(200);

            service.signalGroup(signal);

            service.awaitExit(STOP);
            assertThat(service.linesContaining("Graceful shutdown complete"))
                    .as("a graceful stop")
                    .isNotEmpty();
            assertThat(service.logLines())
                    .as("output lines with a warning or an error, from start to stop (SIG%s)", signal)
                    .filteredOn(line -> line.contains("WARN") || line.contains("ERROR"))
                    .isEmpty();
        }
    }

    @Test
    void a_second_service_on_the_same_journal_file_stops_with_one_line_saying_it_is_in_use() throws Exception {
        Map<String, Integer> printed = ServiceProcess.newCounts();
        try (ServiceProcess first = ServiceProcess.start("journal-in-use-first", List.of(), printed, workDir)) {
            first.awaitUp(START);
            try (ServiceProcess second = ServiceProcess.start("journal-in-use-second", List.of(), printed, workDir)) {
                int status = second.awaitExit(STOP);

                assertThat(status).as("exit status of the second service").isEqualTo(1);
                assertThat(second.logLines())
                        .as("the second service's output")
                        .singleElement()
                        .asString()
                        .contains("the journal file " + workDir.toRealPath().resolve("data/delay-queue.db"))
                        .contains("is in use by another delay-queue (pid " + first.pid() + ")");
            }
            Api.Response health = first.api().get("/actuator/health");
            assertThat(health.status())
                    .as("the first service, still up: %s", health)
                    .isEqualTo(200);
        }
    }
}
