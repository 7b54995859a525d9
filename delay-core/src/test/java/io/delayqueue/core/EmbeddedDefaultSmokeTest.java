package io.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayqueue.common.JobIds;
import io.delayqueue.queue.engine.EngineConfig;
import io.delayqueue.queue.journal.mybatis.JournalMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import java.util.function.Supplier;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ClassPathResource;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * The default run, as the README starts it: no {@code delay.redis.uri}, so an embedded redis-server comes
 * up on a free port (not the machine's 6379), the console dispatcher prints due jobs, and the HTTP API
 * listens on {@code server.port} ({@code 0} here, a free port).
 */
@ExtendWith(OutputCaptureExtension.class)
@SpringBootTest(
        classes = DelayQueueApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.DEFINED_PORT,
        properties = "server.port=0")
@DirtiesContext
class EmbeddedDefaultSmokeTest {
    /** Only to tell this run's keys apart, should anything reach the machine's Redis. */
    static final String PREFIX = "smoke-" + UUID.randomUUID();

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The journal's SQLite file, here rather than in ./data, so that a run leaves nothing behind. */
    @TempDir
    static Path journalDir;

    @DynamicPropertySource
    static void prefix(DynamicPropertyRegistry registry) {
        registry.add("delay.redis.prefix", () -> PREFIX);
        registry.add("spring.datasource.url", () -> EmbeddedDefaultSmokeTest.defaultJournalUrl(journalDir));
    }

    /**
     * The embedded default's journal URL (application.properties, options and all) with its folder {@code ./data}
     * moved to {@code dir}.
     */
    static String defaultJournalUrl(Path dir) {
        try (InputStream in = new ClassPathResource("application.properties").getInputStream()) {
            Properties defaults = new Properties();
            defaults.load(in);
            String url = defaults.getProperty("spring.datasource.url");
            assertThat(url).as("the default journal URL").contains("./data/");
            return url.replace("./data/", dir.toAbsolutePath() + "/");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @LocalServerPort
    int port;

    @Autowired
    EmbeddedRedis embeddedRedis;

    @Autowired
    EngineConfig engineConfig;

    @Autowired
    Environment environment;

    @Test
    void the_default_run_starts_an_embedded_redis_off_port_6379_and_prints_a_due_job_on_the_console(
            CapturedOutput output) throws Exception {
        assertThat(environment.getProperty("delay.redis.uri"))
                .as("delay.redis.uri")
                .isNull();
        URI redisUri = URI.create(embeddedRedis.uri());
        assertThat(redisUri.getHost()).isEqualTo("127.0.0.1");
        assertThat(redisUri.getPort()).as("embedded Redis port").isPositive().isNotEqualTo(6379);
        assertThat(port).as("HTTP port").isPositive().isNotEqualTo(8080);

        HttpClient http = HttpClient.newHttpClient();
        long pushedAt = System.currentTimeMillis();
        HttpResponse<String> pushed = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/push"))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(
                                "{\"topic\":\"order\",\"body\":\"close 42\",\"delay\":200}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(pushed.statusCode()).as("push: %s", pushed.body()).isEqualTo(200);
        JsonNode envelope = JSON.readTree(pushed.body());
        assertThat(envelope.path("success").asBoolean()).isTrue();
        assertThat(envelope.path("code").asInt()).isEqualTo(200);
        String id = envelope.path("data").asText();
        assertThat(id).isNotBlank();

        // the console dispatcher prints the job as one JSON line once it is due
        String line = awaitValue(
                Duration.ofSeconds(10),
                "the console dispatcher printed job " + id,
                () -> output.getOut().lines().filter(l -> l.contains(id)).findFirst());
        long printedBy = System.currentTimeMillis();
        JsonNode printed = JSON.readTree(line.substring(line.indexOf('{')));
        assertThat(printed.path("id").asText()).isEqualTo(id);
        assertThat(printed.path("topic").asText()).isEqualTo("order");
        assertThat(printed.path("body").asText()).isEqualTo("close 42");
        assertThat(printed.path("executeAt").asLong()).isGreaterThanOrEqualTo(pushedAt + 200);
        assertThat(printedBy - pushedAt).as("ms from push to the printed line").isGreaterThanOrEqualTo(200);

        // the job lives in the embedded Redis, and nothing of this run reached the machine's 6379
        int shard = JobIds.shardOf(id, engineConfig.shards());
        try (Jedis embedded = new Jedis(redisUri.getHost(), redisUri.getPort())) {
            assertThat(embedded.hget("{" + PREFIX + ":" + shard + "}:pool", id))
                    .as("job %s in the embedded Redis", id)
                    .isNotNull();
        }
        try (Jedis machine = new Jedis("127.0.0.1", 6379)) {
            assertThat(machine.keys("{" + PREFIX + ":*"))
                    .as("keys of this run on 6379")
                    .isEmpty();
        } catch (JedisConnectionException nothingListens) {
            // no Redis on 6379 at all: then certainly nothing was written there
        }

        // the send was confirmed, so the job ends FINISHED
        String status = awaitValue(Duration.ofSeconds(5), "job " + id + " is FINISHED", () -> {
            try {
                HttpResponse<String> r = http.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/jobs/" + id))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                String s = JSON.readTree(r.body()).path("data").path("status").asText();
                return s.equals("FINISHED") ? Optional.of(s) : Optional.empty();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(status).isEqualTo("FINISHED");

        // the embedded default journals to a SQLite file (here in the test's temporary directory), in WAL mode
        assertThat(environment.getProperty("delay.journal.mode", "sync")).isEqualToIgnoringCase("sync");
        assertThat(Files.exists(journalDir.resolve("delay-queue.db")))
                .as("SQLite file in %s", journalDir)
                .isTrue();
        assertThat(Files.exists(journalDir.resolve("delay-queue.db-wal")))
                .as("SQLite's write-ahead log in %s", journalDir)
                .isTrue();
        String events = awaitValue(Duration.ofSeconds(10), "the journal has the job's FINISHED", () -> {
            try {
                HttpResponse<String> r = http.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/jobs/" + id))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                StringBuilder seen = new StringBuilder();
                JSON.readTree(r.body()).path("data").path("history").forEach(e -> seen.append(
                                e.path("event").asText())
                        .append(' '));
                return seen.toString().contains("FINISHED") ? Optional.of(seen.toString()) : Optional.empty();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(events).startsWith("CREATED ").endsWith("FINISHED ");
    }

    /** Polls until {@code probe} yields a value; fails naming {@code what} at the deadline. */
    @Autowired
    SqlSessionFactory sessions;

    /**
     * The journal commits its groups itself, so a group is all or nothing: a statement on a session's
     * connection (where the journal writes its rows) that is rolled back must not land. With Spring-managed
     * sessions on the pool's auto-commit connections, each statement would commit on its own.
     */
    @Test
    void a_journal_statement_that_is_not_committed_leaves_nothing() throws Exception {
        String jobId = "tx-probe-" + UUID.randomUUID();
        try (SqlSession session = sessions.openSession(false);
                var insert = session.getConnection()
                        .prepareStatement("INSERT INTO delay_queue_job_log (job_id, event, to_status, event_time)"
                                + " VALUES (?, 'CREATED', 'DELAY', 1)")) {
            insert.setString(1, jobId);
            assertThat(insert.executeUpdate()).isEqualTo(1);
            session.rollback(true); // as the journal does with a group that failed
        }
        try (SqlSession session = sessions.openSession(true)) {
            assertThat(session.getMapper(JournalMapper.class).history(jobId))
                    .as("history of a job whose row was not committed")
                    .isEmpty();
        }
    }

    private static <T> T awaitValue(Duration timeout, String what, Supplier<Optional<T>> probe) {
        return await(what)
                .atMost(timeout)
                .until(probe::get, Optional::isPresent)
                .get();
    }
}
