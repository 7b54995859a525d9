package io.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayqueue.common.JobIds;
import io.delayqueue.queue.engine.EngineConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import redis.clients.jedis.Jedis;

/**
 * The README's run command, stopped and started again: its embedded Redis starts empty each time, and the
 * SQLite journal on disk brings back every pending job (restore on start), but not a deleted one.
 */
class EmbeddedRestartTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path journalDir;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void pending_jobs_survive_a_restart_of_the_default_run_and_a_deleted_one_stays_deleted() throws Exception {
        String prefix = "restart-" + UUID.randomUUID();
        String[] args = {
            "--server.port=0",
            "--spring.main.banner-mode=off",
            "--delay.redis.prefix=" + prefix,
            "--spring.datasource.url=" + EmbeddedDefaultSmokeTest.defaultJournalUrl(journalDir)
        };
        List<String> pending = new ArrayList<>();
        String deleted;
        try (ConfigurableApplicationContext first = SpringApplication.run(DelayQueueApplication.class, args)) {
            int port = port(first);
            for (int i = 0; i < 3; i++) {
                pending.add(push(port, "{\"topic\":\"order\",\"body\":\"later " + i + "\",\"delay\":3600000}"));
            }
            deleted = push(port, "{\"topic\":\"order\",\"body\":\"cancelled\",\"delay\":3600000}");
            HttpResponse<String> delete = send(port, "GET", "/delete?jobId=" + deleted);
            assertThat(delete.statusCode()).as("delete: %s", delete.body()).isEqualTo(200);
        }

        try (ConfigurableApplicationContext second = SpringApplication.run(DelayQueueApplication.class, args)) {
            int port = port(second);
            URI redisUri = URI.create(second.getBean(EmbeddedRedis.class).uri());
            int shards = second.getBean(EngineConfig.class).shards();
            try (Jedis redis = new Jedis(redisUri.getHost(), redisUri.getPort())) {
                for (String id : pending) {
                    assertThat(redis.hget("{" + prefix + ":" + JobIds.shardOf(id, shards) + "}:pool", id))
                            .as("job %s back in the new embedded Redis", id)
                            .isNotNull();
                    JsonNode data = JSON.readTree(
                                    send(port, "GET", "/jobs/" + id).body())
                            .path("data");
                    assertThat(data.path("status").asText()).isEqualTo("DELAY");
                    // RESTORED is journaled within the lag, not at once; or LOADED, when the tier loader (which
                    // finds the new Redis without its watermark and loads the horizon) took it in first
                    List<String> events = await("the history of " + id + " has two events")
                            .atMost(Duration.ofSeconds(30))
                            .until(() -> events(port, id), history -> history.size() >= 2);
                    assertThat(events)
                            .as("history of %s", id)
                            .hasSize(2)
                            .first()
                            .isEqualTo("CREATED");
                    assertThat(events.get(1)).as("history of %s", id).isIn("RESTORED", "LOADED");
                }
                assertThat(redis.hget("{" + prefix + ":" + JobIds.shardOf(deleted, shards) + "}:pool", deleted))
                        .as("the deleted job in the new embedded Redis")
                        .isNull();
            }
            JsonNode gone = JSON.readTree(send(port, "GET", "/jobs/" + deleted).body());
            assertThat(gone.path("data").path("status").asText())
                    .as("the deleted job as the journal has it")
                    .isEqualTo("DELETED");
        }
    }

    private List<String> events(int port, String id) throws Exception {
        List<String> events = new ArrayList<>();
        JSON.readTree(send(port, "GET", "/jobs/" + id).body())
                .path("data")
                .path("history")
                .forEach(e -> events.add(e.path("event").asText()));
        return events;
    }

    private static int port(ConfigurableApplicationContext context) {
        return Integer.parseInt(context.getEnvironment().getRequiredProperty("local.server.port"));
    }

    private String push(int port, String json) throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/push"))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(json))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("push: %s", r.body()).isEqualTo(200);
        return JSON.readTree(r.body()).path("data").asText();
    }

    private HttpResponse<String> send(int port, String method, String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .method(method, HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
