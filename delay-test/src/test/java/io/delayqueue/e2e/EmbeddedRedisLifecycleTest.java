package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.ServiceProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged service on its embedded default: its redis-server lives and dies with it. Killed while the
 * service runs, it is started again and the queue comes back from the journal; after a {@code kill -9} of the
 * service, no redis-server of it is left listening and its files are gone once the service starts again.
 */
class EmbeddedRedisLifecycleTest {
    private static final Duration START = Duration.ofMinutes(3);
    private static final Pattern STARTED =
            Pattern.compile("embedded Redis started on 127\\.0\\.0\\.1:(\\d+), pid (\\d+)");
    /** Where the service keeps its embedded Redis: the same user and temp directory as this JVM. */
    private static final Path HOME = Path.of(
            System.getProperty("java.io.tmpdir"),
            "delay-queue-" + System.getProperty("user.name").replaceAll("[^A-Za-z0-9._-]", "_"),
            "embedded-redis");

    private static final List<String> ARGS = List.of(
            "--delay.dispatch.default=console", "--logging.level.root=warn", "--logging.level.io.delayqueue=info");

    @TempDir
    Path workDir;

    @Test
    void a_killed_embedded_redis_is_started_again_and_its_jobs_come_back_from_the_journal() throws Exception {
        Map<String, Integer> printed = ServiceProcess.newCounts();
        // the reconciler would bring them back too, but only after its grace: not within this test
        List<String> args = new ArrayList<>(ARGS);
        args.add("--delay.journal.reconcile-grace=10m");
        try (ServiceProcess service = ServiceProcess.start("embedded-redis-killed", args, printed, workDir)) {
            service.awaitUp(START);
            Api api = service.api();
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                Api.Response r =
                        api.post("/push", "{\"topic\":\"e2e.redis.dies\",\"body\":\"" + i + "\",\"delay\":4000}");
                assertThat(r.status()).as("push: %s", r).isEqualTo(200);
                ids.add(r.data().asText());
            }
            long redisPid = Long.parseLong(started(service).group(2));

            ProcessHandle.of(redisPid).orElseThrow().destroyForcibly();

            await("every job pushed before the embedded Redis died is delivered")
                    .atMost(Duration.ofSeconds(60))
                    .untilAsserted(() -> assertThat((printed.keySet().containsAll(ids)))
                            .as(() -> "every job pushed before the embedded Redis died is delivered" + " "
                                    + (ids.stream()
                                                    .filter(id -> !printed.containsKey(id))
                                                    .count() + " missing\n" + service.tail()))
                            .isTrue());
            assertThat(service.linesContaining("restored from the journal after the embedded Redis restarted"))
                    .as("restores after the restart")
                    .isNotEmpty();
            Api.Response health = api.get("/actuator/health");
            assertThat(health.status()).as("health: %s", health).isEqualTo(200);
        }
    }

    @Test
    void a_restart_after_kill_9_leaves_no_redis_server_of_the_killed_service_and_none_of_its_files() throws Exception {
        Map<String, Integer> printed = ServiceProcess.newCounts();
        long killedPid;
        int orphanPort;
        long orphanPid;
        try (ServiceProcess first = ServiceProcess.start("embedded-redis-kill9-first", ARGS, printed, workDir)) {
            first.awaitUp(START);
            killedPid = first.pid();
            Matcher started = started(first);
            orphanPort = Integer.parseInt(started.group(1));
            orphanPid = Long.parseLong(started.group(2));
            assertThat(instanceDirs(killedPid))
                    .as("the service's embedded Redis directory")
                    .hasSize(1);
            first.kill();
        }

        try (ServiceProcess second = ServiceProcess.start("embedded-redis-kill9-second", ARGS, printed, workDir)) {
            second.awaitUp(START);
            assertThat(ProcessHandle.of(orphanPid).map(ProcessHandle::isAlive))
                    .as("the killed service's redis-server")
                    .isNotEqualTo(Optional.of(true));
            assertThat(listening(orphanPort)).as("anything on its port").isFalse();
            assertThat(instanceDirs(killedPid)).as("the killed service's files").isEmpty();
            assertThat(instanceDirs(second.pid())).as("the new service's").hasSize(1);
        }
    }

    private static Matcher started(ServiceProcess service) {
        for (String line : service.linesContaining("embedded Redis started")) {
            Matcher m = STARTED.matcher(line);
            if (m.find()) {
                return m;
            }
        }
        throw new AssertionError("no 'embedded Redis started' line in the output:\n" + service.tail());
    }

    private static List<Path> instanceDirs(long servicePid) {
        if (!Files.isDirectory(HOME)) {
            return List.of();
        }
        try (Stream<Path> dirs = Files.list(HOME)) {
            return dirs.filter(d -> d.getFileName().toString().startsWith(servicePid + "-"))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean listening(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            return true;
        } catch (IOException refused) {
            return false;
        }
    }
}
