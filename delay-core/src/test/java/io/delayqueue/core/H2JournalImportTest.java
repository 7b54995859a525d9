package io.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.delayqueue.queue.journal.mybatis.JournalDialect;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An earlier version's default journal (H2, {@code ./data/delay-queue.mv.db}) beside the SQLite journal that
 * replaced it: imported once into an empty SQLite journal, its file kept under another name; left alone, with
 * a warning, when SQLite already has jobs; a start-up failure rather than an empty journal when it cannot be read.
 */
class H2JournalImportTest {
    @TempDir
    Path data;

    private EmbeddedJournalFile file;
    private HikariDataSource sqlite;
    /** Where {@link #rowsInFileAlone} copies the database file. */
    private Path copies;

    @BeforeEach
    void openSqlite() {
        file = EmbeddedJournalFile.of("jdbc:sqlite:" + data.resolve("delay-queue.db") + "?journal_mode=WAL")
                .orElseThrow();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:sqlite:" + file.file() + "?journal_mode=WAL&synchronous=FULL&busy_timeout=10000");
        sqlite = new HikariDataSource(config);
        migrate(sqlite, JournalDialect.SQLITE);
    }

    @AfterEach
    void closeSqlite() {
        sqlite.close();
    }

    @Test
    void an_earlier_h2_journal_is_imported_once_into_an_empty_sqlite_journal_and_its_file_is_kept() throws Exception {
        writeFormerH2Journal("job-1", "job-2");

        H2JournalImport.importIfPresent(file, sqlite);

        assertThat(strings(sqlite, "SELECT id || ':' || status || ':' || body FROM delay_queue_job ORDER BY id"))
                .containsExactly("job-1:DELAY:body of job-1", "job-2:FINISHED:body of job-2");
        assertThat(strings(sqlite, "SELECT job_id || ':' || event FROM delay_queue_job_log ORDER BY id"))
                .containsExactly("job-1:CREATED", "job-2:CREATED", "job-2:FINISHED");
        assertThat(data.resolve("delay-queue.mv.db")).doesNotExist();
        assertThat(data.resolve("delay-queue.mv.db" + H2JournalImport.IMPORTED_SUFFIX))
                .exists();

        // started again: nothing more to import, nothing written twice
        H2JournalImport.importIfPresent(file, sqlite);
        assertThat(strings(sqlite, "SELECT COUNT(*) FROM delay_queue_job_log")).containsExactly("3");
    }

    @Test
    void the_import_is_in_the_database_file_itself_and_on_disk_before_the_h2_file_is_renamed() throws Exception {
        writeFormerH2Journal("job-1", "job-2");
        List<String> steps = new ArrayList<>();
        Path db = data.resolve("delay-queue.db");
        Path h2 = data.resolve("delay-queue.mv.db");
        H2JournalImport.DurableSteps recorded = new H2JournalImport.DurableSteps() {
            @Override
            public void checkpoint(Connection sqlite) throws SQLException {
                steps.add("checkpoint");
                H2JournalImport.DurableSteps.super.checkpoint(sqlite);
            }

            @Override
            public void force(Path file) throws IOException {
                steps.add("fsync " + data.relativize(file));
                H2JournalImport.DurableSteps.super.force(file);
            }

            @Override
            public void forceFolder(Path folder) throws IOException {
                steps.add("fsync folder" + (Files.exists(h2) ? "" : " after the rename"));
                H2JournalImport.DurableSteps.super.forceFolder(folder);
            }

            @Override
            public void rename(Path from, Path to) throws IOException {
                // a power loss here: what the database file alone holds is what a restart finds
                steps.add("rename, the database file alone holding " + rowsInFileAlone(db) + " jobs");
                H2JournalImport.DurableSteps.super.rename(from, to);
            }
        };

        H2JournalImport.importIfPresent(file, sqlite, recorded);

        assertThat(steps)
                .containsExactly(
                        "checkpoint",
                        "fsync delay-queue.db",
                        "fsync folder",
                        "rename, the database file alone holding 2 jobs",
                        "fsync folder after the rename");
        assertThat(data.resolve("delay-queue.mv.db" + H2JournalImport.IMPORTED_SUFFIX))
                .exists();
    }

    @Test
    void after_the_import_the_database_file_alone_holds_every_row() throws Exception {
        writeFormerH2Journal("job-1", "job-2");
        try (HikariDataSource service = pool("synchronous=NORMAL")) {
            H2JournalImport.importIfPresent(file, service);

            assertThat(rowsInFileAlone(data.resolve("delay-queue.db")))
                    .as("jobs in the database file without its log (what a power loss before a checkpoint keeps)")
                    .isEqualTo(2);
        }
    }

    @Test
    void an_import_that_fails_before_the_rename_leaves_the_h2_file_in_place() throws Exception {
        writeFormerH2Journal("job-1");
        H2JournalImport.DurableSteps failing = new H2JournalImport.DurableSteps() {
            @Override
            public void forceFolder(Path folder) throws IOException {
                throw new IOException("injected: the folder's fsync failed");
            }
        };

        assertThatThrownBy(() -> H2JournalImport.importIfPresent(file, sqlite, failing))
                .hasMessageContaining("injected");

        assertThat(data.resolve("delay-queue.mv.db"))
                .as("the H2 file, not renamed")
                .exists();
        assertThat(rowsInFileAlone(data.resolve("delay-queue.db")))
                .as("the rows, checkpointed into the database file")
                .isEqualTo(1);
    }

    /** The jobs a copy of the database file alone holds (no log beside it): what survives if the log is lost. */
    private long rowsInFileAlone(Path db) {
        try {
            if (copies == null) {
                copies = Files.createTempDirectory(data, "copy");
            }
            Path copy = Files.createTempDirectory(copies, "db").resolve("alone.db");
            Files.copy(db, copy);
            try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + copy);
                    Statement s = c.createStatement()) {
                try (ResultSet table = s.executeQuery("SELECT 1 FROM sqlite_master WHERE name = 'delay_queue_job'")) {
                    if (!table.next()) {
                        return 0; // not even the schema is in the file yet
                    }
                }
                try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM delay_queue_job")) {
                    return rs.next() ? rs.getLong(1) : -1;
                }
            }
        } catch (IOException | SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private HikariDataSource pool(String options) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:sqlite:" + file.file() + "?journal_mode=WAL&busy_timeout=10000&" + options);
        return new HikariDataSource(config);
    }

    @Test
    void an_earlier_h2_journal_is_left_alone_when_the_sqlite_journal_has_jobs() throws Exception {
        writeFormerH2Journal("job-1");
        try (Connection c = sqlite.getConnection();
                Statement s = c.createStatement()) {
            s.execute("INSERT INTO delay_queue_job (id, topic, body, ttr, max_attempts, priority, status, attempts,"
                    + " due_at, create_time, update_time, version) VALUES ('new', 't', 'b', 1, 1, 0, 'DELAY', 0, 1, 1,"
                    + " 1, 0)");
        }

        H2JournalImport.importIfPresent(file, sqlite);

        assertThat(strings(sqlite, "SELECT id FROM delay_queue_job")).containsExactly("new");
        assertThat(data.resolve("delay-queue.mv.db")).exists();
    }

    @Test
    void an_h2_file_that_cannot_be_read_fails_the_start_naming_how_to_keep_using_it() throws Exception {
        Files.writeString(data.resolve("delay-queue.mv.db"), "not an H2 store");

        assertThatThrownBy(() -> H2JournalImport.importIfPresent(file, sqlite))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("delay-queue.mv.db")
                .hasMessageContaining("--spring.datasource.url='jdbc:h2:file:" + data.resolve("delay-queue"));
        assertThat(strings(sqlite, "SELECT COUNT(*) FROM delay_queue_job")).containsExactly("0");
    }

    @Test
    void no_h2_file_no_import() {
        H2JournalImport.importIfPresent(file, sqlite);

        assertThat(strings(sqlite, "SELECT COUNT(*) FROM delay_queue_job")).containsExactly("0");
    }

    /** An H2 journal as the earlier default wrote it: its migrations, a job per id, the second one finished. */
    private void writeFormerH2Journal(String... ids) throws SQLException {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(file.formerH2Url());
        config.setUsername("sa");
        try (HikariDataSource pool = new HikariDataSource(config);
                Connection h2 = pool.getConnection()) {
            migrate(pool, JournalDialect.H2);
            try (Statement s = h2.createStatement()) {
                for (int i = 0; i < ids.length; i++) {
                    String status = i == 0 ? "DELAY" : "FINISHED";
                    s.execute("INSERT INTO delay_queue_job (id, topic, body, ttr, max_attempts, priority, status,"
                            + " attempts, due_at, create_time, update_time, version, shard) VALUES ('" + ids[i]
                            + "', 't', 'body of " + ids[i] + "', 30000, 3, 0, '" + status + "', 0, 100, 1, 2, 0, 7)");
                    s.execute("INSERT INTO delay_queue_job_log (job_id, event, to_status, event_time) VALUES ('"
                            + ids[i] + "', 'CREATED', 'DELAY', 1)");
                    if (i > 0) {
                        s.execute("INSERT INTO delay_queue_job_log (job_id, event, from_status, to_status,"
                                + " event_time) VALUES ('" + ids[i] + "', 'FINISHED', 'READY', 'FINISHED', 2)");
                    }
                }
            }
        }
        assertThat(data.resolve("delay-queue.mv.db")).exists();
    }

    private static void migrate(DataSource dataSource, JournalDialect dialect) {
        Flyway.configure()
                .dataSource(dataSource)
                .locations(dialect.migrations())
                .load()
                .migrate();
    }

    private static List<String> strings(DataSource dataSource, String sql) {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            List<String> out = new ArrayList<>();
            while (rs.next()) {
                out.add(rs.getString(1));
            }
            return out;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
