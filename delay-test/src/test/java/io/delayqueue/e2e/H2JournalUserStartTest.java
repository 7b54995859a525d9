package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.delayqueue.core.DelayQueueApplication;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.queue.testing.JournalDatabase;
import io.delayqueue.queue.testing.RedisFixture;
import java.sql.Connection;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The service refuses to start on an H2 journal whose user is not an admin, saying why (issue 19, item 10): H2 runs
 * the {@code CHECKPOINT SYNC} that makes each group commit durable only for admins, and before, such a service
 * started and answered every push 504 though it was written. The whole application is started as {@code bin/run}
 * does, on the machine's Redis and an H2 database the test made (schema applied, a user created); the same
 * database with an admin user answers a push 200 over HTTP.
 */
class H2JournalUserStartTest {
    @Test
    void a_service_journaling_to_h2_as_a_user_that_is_not_an_admin_refuses_to_start_and_says_why() throws Exception {
        String url = "jdbc:h2:mem:dq_start_" + UUID.randomUUID().toString().replace("-", "")
                + ";MODE=MySQL;DATABASE_TO_LOWER=TRUE;CASE_INSENSITIVE_IDENTIFIERS=TRUE";
        try (RedisFixture redis = RedisFixture.labelled("h2user");
                HikariDataSource admin = new HikariDataSource()) {
            admin.setJdbcUrl(url); // its connections keep the in-memory database open
            admin.setUsername("sa");
            JournalDatabase.migrate(admin);
            try (Connection c = admin.getConnection();
                    Statement s = c.createStatement()) {
                s.execute("CREATE USER journal_writer PASSWORD 'secret'");
                s.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON SCHEMA PUBLIC TO journal_writer");
            }

            assertThatThrownBy(
                            () -> start(url, "journal_writer", "secret", redis).close())
                    .as("a start as a user that is not an admin")
                    .satisfies(e -> assertThat(messages(e)).anySatisfy(m -> assertThat(m)
                            .contains("JOURNAL_WRITER")
                            .contains("not an admin")
                            .contains("CHECKPOINT SYNC")
                            .contains("spring.datasource.username")));

            try (ConfigurableApplicationContext service = start(url, "sa", "", redis)) {
                int port =
                        ((WebServerApplicationContext) service).getWebServer().getPort();
                Map<String, Object> job = new LinkedHashMap<>();
                job.put("topic", "h2user");
                job.put("body", "body");
                job.put("delay", 60_000);
                Api.Response r = new Api(port).postJson("/push", job);
                assertThat(r.status()).as("a push on H2 as an admin: %s", r).isEqualTo(200);
            } finally {
                redis.deleteAllKeys();
            }
        }
    }

    private static ConfigurableApplicationContext start(String url, String user, String password, RedisFixture redis) {
        return new SpringApplicationBuilder(DelayQueueApplication.class)
                .run(
                        "--server.port=0",
                        "--spring.datasource.url=" + url,
                        "--spring.datasource.username=" + user,
                        "--spring.datasource.password=" + password,
                        "--spring.flyway.enabled=false",
                        "--delay.redis.uri=" + RedisFixture.URI,
                        "--delay.redis.prefix=" + redis.prefix(),
                        "--delay.journal.mode=sync");
    }

    private static List<String> messages(Throwable e) {
        List<String> out = new java.util.ArrayList<>();
        for (Throwable t = e; t != null; t = t.getCause()) {
            out.add(String.valueOf(t.getMessage()));
        }
        return out;
    }
}
