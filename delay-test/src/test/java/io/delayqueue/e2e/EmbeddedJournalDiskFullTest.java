package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.core.DelayQueueApplication;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.queue.testing.RedisFixture;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A full disk under the embedded journal (issue 26, item 8), against the whole service on a SQLite journal in a small
 * tmpfs the test mounts (it needs root, as the test command runs; skipped otherwise): once the disk is full, a push is
 * answered 503 ("not written": SQLite reports {@code SQLITE_FULL} when it could not write the transaction's log
 * frames, and the transaction is then not committed), never 504 ("may or may not have landed"), and the refused job
 * exists nowhere; once space is back, pushes are answered 200 again. Before, the failed commit was taken for one that
 * broke off and every push was answered 504.
 */
class EmbeddedJournalDiskFullTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private Path disk;

    @BeforeEach
    void mountSmallDisk() throws Exception {
        disk = dir.resolve("disk");
        Files.createDirectories(disk);
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=6m", "tmpfs", disk.toString())
                .redirectErrorStream(true)
                .start();
        String said = new String(mount.getInputStream().readAllBytes());
        Assumptions.assumeTrue(
                mount.waitFor(30, TimeUnit.SECONDS) && mount.exitValue() == 0,
                "mounting a small tmpfs needs root: " + said);
    }

    @AfterEach
    void unmount() throws Exception {
        if (disk != null) {
            new ProcessBuilder("umount", "-l", disk.toString())
                    .inheritIO()
                    .start()
                    .waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void a_push_on_a_full_disk_is_answered_503_not_written_and_pushes_work_again_once_space_is_back() throws Exception {
        try (RedisFixture redis = RedisFixture.labelled("diskfull");
                ConfigurableApplicationContext service = start(disk.resolve("delay-queue.db"), redis)) {
            Api api = new Api(
                    ((WebServerApplicationContext) service).getWebServer().getPort());
            assertThat(api.postJson("/push", job("x")).status())
                    .as("a push on a disk with room")
                    .isEqualTo(200);

            Path filler = disk.resolve("filler");
            fill(filler);
            String body = "b".repeat(16_000);
            Api.Response refused = null;
            for (int i = 0; i < 500 && refused == null; i++) {
                Api.Response r = api.postJson("/push", job(body));
                if (r.status() != 200) {
                    refused = r;
                }
            }
            assertThat(refused).as("a push the full disk refused").isNotNull();
            assertThat(refused.status())
                    .as("a push on a full disk: %s", refused)
                    .isEqualTo(503);
            assertThat(refused.message()).contains("not written").contains("full");
            String id = refused.data().asText();
            assertThat(id).as("the id to retry with").isNotBlank();

            Files.delete(filler);
            await("pushes are answered 200 once space is back")
                    .atMost(WAIT)
                    .until(() -> api.postJson("/push", job(body)).status() == 200);
            assertThat(api.get("/jobs/" + id).status())
                    .as("the job refused on the full disk")
                    .isEqualTo(404);
        }
    }

    /** Writes {@code file} until the disk has no room left. */
    private static void fill(Path file) {
        byte[] chunk = new byte[4096];
        try (OutputStream out = Files.newOutputStream(file)) {
            while (true) {
                out.write(chunk);
                out.flush();
            }
        } catch (IOException full) {
            // no space left on the device
        }
    }

    private static ConfigurableApplicationContext start(Path journal, RedisFixture redis) {
        return new SpringApplicationBuilder(DelayQueueApplication.class)
                .run(
                        "--server.port=0",
                        "--spring.datasource.url=jdbc:sqlite:" + journal
                                + "?journal_mode=WAL&synchronous=NORMAL&busy_timeout=10000",
                        "--delay.redis.uri=" + RedisFixture.URI,
                        "--delay.redis.prefix=" + redis.prefix(),
                        "--delay.dispatch.default=console",
                        "--delay.journal.mode=sync");
    }

    private static Map<String, Object> job(String body) {
        Map<String, Object> job = new LinkedHashMap<>();
        job.put("topic", "diskfull");
        job.put("body", body);
        job.put("delay", 600_000);
        return job;
    }
}
