package io.delayqueue.queue.journal.mybatis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.journal.JournalSettings;
import io.delayqueue.queue.testing.JournalDatabase;
import io.delayqueue.queue.testing.TestIds;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A journal on H2 whose user cannot make commits durable refuses to start (issue 19, item 10): H2 runs {@code
 * CHECKPOINT SYNC} only for an admin user, and without it every push would be written and answered 504. A real
 * in-memory H2 database in MySQL mode, its schema applied by the migrations, a user made by {@code CREATE USER}.
 */
class H2JournalUserTest {
    private final String url =
            "jdbc:h2:mem:dq_user_" + UUID.randomUUID().toString().replace("-", "")
                    + ";MODE=MySQL;DATABASE_TO_LOWER=TRUE;CASE_INSENSITIVE_IDENTIFIERS=TRUE";
    /** Its pool keeps the in-memory database open (a user that is not an admin may not set DB_CLOSE_DELAY). */
    private final HikariDataSource admin = dataSource("sa", "");

    private HikariDataSource user;

    @AfterEach
    void close() {
        if (user != null) {
            user.close();
        }
        admin.close(); // the last connection: the in-memory database goes with it
    }

    @Test
    void a_sync_journal_on_h2_with_a_user_that_is_not_an_admin_refuses_to_start_naming_the_user() throws Exception {
        JournalDatabase.migrate(admin);
        try (Connection c = admin.getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE USER journal_writer PASSWORD 'secret'");
            s.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON SCHEMA PUBLIC TO journal_writer");
        }
        user = dataSource("journal_writer", "secret");

        assertThatThrownBy(() -> JournalDatabase.journal(user, settings(JournalMode.SYNC), 4, Clock.systemUTC()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("JOURNAL_WRITER")
                .hasMessageContaining("not an admin")
                .hasMessageContaining("CHECKPOINT SYNC")
                .hasMessageContaining("spring.datasource.username");

        // the same user is enough where nothing is forced to disk for a caller (async), and an admin for sync
        try (MyBatisJournal async = JournalDatabase.journal(user, settings(JournalMode.ASYNC), 4, Clock.systemUTC())) {
            assertThat(async.mode()).isEqualTo(JournalMode.ASYNC);
        }
        try (MyBatisJournal sync = JournalDatabase.journal(admin, settings(JournalMode.SYNC), 4, Clock.systemUTC())) {
            String id = TestIds.next();
            assertThat(sync.recordCreated(List.of(job(id)))).isEmpty();
            assertThat(sync.find(id)).isPresent();
        }
    }

    private static JournalSettings settings(JournalMode mode) {
        return JournalSettings.DEFAULTS.withWriter(
                mode, Duration.ofMillis(50), 10_000, Duration.ofSeconds(10), 1000, 1);
    }

    private static Job job(String id) {
        return new Job(
                id,
                "orders",
                null,
                null,
                "body",
                1_700_000_000_000L,
                30_000,
                3,
                null,
                0,
                1_700_000_000_000L,
                JobStatus.DELAY,
                0);
    }

    private HikariDataSource dataSource(String name, String password) {
        HikariDataSource ds = new HikariDataSource();
        ds.setJdbcUrl(url);
        ds.setUsername(name);
        ds.setPassword(password);
        ds.setMaximumPoolSize(4);
        return ds;
    }
}
