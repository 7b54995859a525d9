package io.delayqueue.core;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.sql.Clob;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collections;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings the journal of an earlier version's embedded default (H2, {@code ./data/delay-queue.mv.db}) into the
 * SQLite journal that replaced it ({@code ./data/delay-queue.db}), once, at start-up, after Flyway and before the
 * engine writes: every job row and every log row, in one SQLite transaction, then the H2 file is renamed to
 * {@code delay-queue.mv.db.imported} (kept, never deleted; renamed back, it is used with the URL the log names).
 * A user upgrading with jobs pending keeps them without doing anything.
 *
 * <p>The rename happens only once the imported rows are on disk in the database file itself, so that a power loss
 * at any point leaves either the H2 file in place (imported again at the next start, or left alone beside a SQLite
 * journal that has them) or the rows on disk: the commit, then a checkpoint that copies SQLite's log into the
 * database file and truncates it ({@code PRAGMA wal_checkpoint(TRUNCATE)}, which forces the log first and the file
 * after), then an fsync of the database file and of its folder, then the rename, then an fsync of the folder again
 * (a rename is durable only once its folder is). Each of these steps is one call of {@link DurableSteps}, which a
 * test replaces to see the order and to fail between two of them.
 *
 * <p>Only into an empty SQLite journal: when it already has jobs (the service ran on SQLite meanwhile), the H2
 * file is left alone and a warning says how to keep using it. When the H2 file cannot be read (another process
 * holds it, say), the start-up fails saying so, rather than starting on an empty journal while jobs wait in the
 * old one.
 */
final class H2JournalImport {
    private static final Logger log = LoggerFactory.getLogger(H2JournalImport.class);
    static final String IMPORTED_SUFFIX = ".imported";
    private static final String JOB_COLUMNS = "id, topic, subtopic, biz_key, body, ttr, max_attempts, url, priority,"
            + " status, attempts, due_at, create_time, update_time, version, shard";
    private static final String LOG_COLUMNS = "job_id, event, from_status, to_status, event_time, host, worker, detail";
    private static final int ROWS_PER_BATCH = 5_000;

    private H2JournalImport() {}

    /** Imports the former H2 journal beside {@code file} into {@code sqlite} when there is one; see the class. */
    static void importIfPresent(EmbeddedJournalFile file, DataSource sqlite) {
        importIfPresent(file, sqlite, DurableSteps.ON_DISK);
    }

    /** As {@link #importIfPresent(EmbeddedJournalFile, DataSource)}, each step after the commit taken by {@code steps}. */
    static void importIfPresent(EmbeddedJournalFile file, DataSource sqlite, DurableSteps steps) {
        Path h2 = file.formerH2File();
        if (!Files.exists(h2)) {
            return;
        }
        try (Connection target = sqlite.getConnection()) {
            if (hasJobs(target)) {
                log.warn(
                        "{} is the journal of an earlier version (H2) and was not imported, as {} already has jobs."
                                + " To keep using it instead, start with --spring.datasource.url='{}'"
                                + " --spring.datasource.username=sa",
                        h2,
                        file.file(),
                        file.formerH2Url());
                return;
            }
            long[] counts;
            try (Connection source =
                    DriverManager.getConnection(file.formerH2Url() + ";IFEXISTS=TRUE;ACCESS_MODE_DATA=r", "sa", "")) {
                counts = copy(source, target);
            }
            steps.checkpoint(target);
            steps.force(file.file());
            Path folder = file.file().toAbsolutePath().getParent();
            steps.forceFolder(folder);
            Path imported = h2.resolveSibling(h2.getFileName() + IMPORTED_SUFFIX);
            steps.rename(h2, imported);
            steps.forceFolder(folder);
            log.info(
                    "imported the earlier version's H2 journal {} into {}: {} jobs, {} log rows; the H2 file is kept"
                            + " as {}",
                    h2,
                    file.file(),
                    counts[0],
                    counts[1],
                    imported);
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "cannot import the earlier version's H2 journal " + h2 + " into " + file.file() + ": "
                            + e.getMessage() + ". Stop the process that holds it and start again, or keep using it:"
                            + " --spring.datasource.url='" + file.formerH2Url() + "' --spring.datasource.username=sa",
                    e);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "imported " + h2 + " but could not put the import on disk or rename the H2 file: " + e.getMessage()
                            + " (the next start sees the SQLite journal's jobs and leaves the H2 file alone)",
                    e);
        }
    }

    /**
     * The steps that put an import on disk before the H2 file is renamed, in the order {@link #importIfPresent} takes
     * them. {@link #ON_DISK} takes them for real.
     */
    interface DurableSteps {
        DurableSteps ON_DISK = new DurableSteps() {};

        /**
         * Copies SQLite's log into the database file and truncates it: SQLite forces the log before and the database
         * file after. Fails when a reader kept the checkpoint from completing.
         */
        default void checkpoint(Connection sqlite) throws SQLException {
            try (Statement s = sqlite.createStatement();
                    ResultSet rs = s.executeQuery("PRAGMA wal_checkpoint(TRUNCATE)")) {
                if (rs.next() && rs.getInt(1) != 0) {
                    throw new SQLException("the checkpoint of the imported journal did not complete (busy)");
                }
            }
        }

        /** fsync of a file. */
        default void force(Path file) throws IOException {
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                channel.force(true);
            }
        }

        /** fsync of a folder: what makes a file's creation or rename in it durable (Linux). */
        default void forceFolder(Path folder) throws IOException {
            try (FileChannel channel = FileChannel.open(folder, StandardOpenOption.READ)) {
                channel.force(true);
            }
        }

        /** The rename of the H2 file, atomic. */
        default void rename(Path from, Path to) throws IOException {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
        }
    }

    private static boolean hasJobs(Connection sqlite) throws SQLException {
        try (Statement s = sqlite.createStatement();
                ResultSet rs = s.executeQuery("SELECT EXISTS (SELECT 1 FROM delay_queue_job)")) {
            return rs.next() && rs.getBoolean(1);
        }
    }

    /** Copies both tables in one transaction of the target; returns the jobs and the log rows copied. */
    private static long[] copy(Connection h2, Connection sqlite) throws SQLException {
        boolean autoCommit = sqlite.getAutoCommit();
        sqlite.setAutoCommit(false);
        try {
            long jobs = copyTable(
                    h2,
                    sqlite,
                    "SELECT " + JOB_COLUMNS + " FROM delay_queue_job",
                    "INSERT INTO delay_queue_job (" + JOB_COLUMNS + ") VALUES (" + marks(16) + ")",
                    16);
            // in the order they were written: their new ids keep it
            long logRows = copyTable(
                    h2,
                    sqlite,
                    "SELECT " + LOG_COLUMNS + " FROM delay_queue_job_log ORDER BY id",
                    "INSERT INTO delay_queue_job_log (" + LOG_COLUMNS + ") VALUES (" + marks(8) + ")",
                    8);
            sqlite.commit();
            return new long[] {jobs, logRows};
        } catch (SQLException | RuntimeException e) {
            sqlite.rollback();
            throw e;
        } finally {
            sqlite.setAutoCommit(autoCommit);
        }
    }

    private static long copyTable(Connection from, Connection to, String select, String insert, int columns)
            throws SQLException {
        long rows = 0;
        try (Statement read = from.createStatement();
                ResultSet rs = read.executeQuery(select);
                PreparedStatement write = to.prepareStatement(insert)) {
            while (rs.next()) {
                for (int c = 1; c <= columns; c++) {
                    Object value = rs.getObject(c);
                    // MEDIUMTEXT is a CLOB in H2: its text, not the handle
                    write.setObject(c, value instanceof Clob ? rs.getString(c) : value);
                }
                write.addBatch();
                if (++rows % ROWS_PER_BATCH == 0) {
                    write.executeBatch();
                }
            }
            write.executeBatch();
        }
        return rows;
    }

    private static String marks(int n) {
        return String.join(", ", Collections.nCopies(n, "?"));
    }
}
