package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.ServiceProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded journal never answers 200 for a write it cannot keep (issue 26, item 6): the packaged service on its
 * default journal ({@code ./data/delay-queue.db}, SQLite in WAL mode), and the journal's log or database file deleted
 * or replaced under it. SQLite's connections keep writing to the file they opened, no longer at its path, so every
 * commit from then on would be lost at the next start; the service must refuse pushes and say it is unhealthy. Before,
 * a missing log was taken for one SQLite had checkpointed and deleted, a replaced one was forced through a descriptor
 * opened on the new file, and every push was answered 200.
 */
class EmbeddedJournalFilesReplacedTest {
    private static final Duration START = Duration.ofMinutes(3);

    @TempDir
    Path workDir;

    @Test
    void with_the_log_file_deleted_pushes_are_refused_and_health_is_down() throws Exception {
        runWith(data -> Files.delete(data.resolve("delay-queue.db-wal")));
    }

    @Test
    void with_the_log_file_replaced_by_a_copy_pushes_are_refused_and_health_is_down() throws Exception {
        runWith(data -> replaceByCopy(data.resolve("delay-queue.db-wal")));
    }

    @Test
    void with_the_database_file_replaced_by_a_copy_pushes_are_refused_and_health_is_down() throws Exception {
        runWith(data -> replaceByCopy(data.resolve("delay-queue.db")));
    }

    private interface FileChange {
        void apply(Path data) throws Exception;
    }

    private void runWith(FileChange change) throws Exception {
        try (ServiceProcess service = ServiceProcess.start(
                "embedded-files-replaced",
                List.of("--delay.dispatch.default=console", "--logging.level.root=warn"),
                ServiceProcess.newCounts(),
                workDir)) {
            service.awaitUp(START);
            Api api = service.api();
            assertThat(api.post("/push", job()).status()).as("a push before").isEqualTo(200);
            Path data = workDir.resolve("data");
            assertThat(data.resolve("delay-queue.db-wal")).exists();

            change.apply(data);

            for (int i = 0; i < 5; i++) {
                Api.Response r = api.post("/push", job());
                assertThat(r.status())
                        .as("push %d after the change: %s\n%s", i, r, service.tail())
                        .isIn(503, 504);
                assertThat(r.data().asText()).as("the id").isNotBlank();
            }
            Api.Response health = api.get("/actuator/health");
            assertThat(health.status()).as("health: %s", health).isEqualTo(503);
            assertThat(health.json().at("/components/journal/status").asText())
                    .as("the journal's health: %s", health)
                    .isEqualTo("DOWN");
            assertThat(health.json().at("/components/journal/details/unsound").asText())
                    .contains("deleted or replaced");
        }
    }

    /** Another file at {@code file}'s path, with the same bytes: what a restore from a backup or an editor does. */
    private static void replaceByCopy(Path file) throws Exception {
        Path copy = file.resolveSibling(file.getFileName() + ".copy");
        Files.copy(file, copy);
        Files.move(copy, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static String job() {
        return Api.toJson(Map.of("topic", "files-replaced", "body", "body", "delay", 600_000));
    }
}
