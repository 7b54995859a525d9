package io.delayqueue.queue.journal.mybatis;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Commit apart from sync, on SQLite in WAL mode with {@code synchronous=NORMAL} (the embedded default): a commit
 * appends its pages to the write-ahead log ({@code delay-queue.db-wal}) without forcing it, under the writers' turn
 * ({@link WriterTurns}), and this class forces the log afterwards, outside the turn: one fsync covers every commit
 * that finished before it began, so the next group commits while the previous one's fsync runs, and a group whose
 * commit an fsync already covered does not wait for one of its own. A push is answered only after an fsync that
 * began after its commit, so it survives a power loss as with {@code synchronous=FULL}, which would force the log
 * inside every commit, under the turn, one group after the other.
 *
 * <p>Why that is enough: SQLite in WAL mode with {@code synchronous=NORMAL} stays consistent after a crash and only
 * lacks durability of the last commits; it forces the log itself before each checkpoint copies it into the
 * database file, and before the log is started again from its beginning the database file is forced too. A commit
 * whose frames are on disk (with the log's header, as {@code fdatasync} of the whole file puts them) is recovered on
 * the next open. When the log file is gone (every connection closed: SQLite checkpointed it into the forced database
 * file and deleted it), there is nothing left to force.
 *
 * <p>Threading: {@link #committed} from any writer after its commit returned; {@link #force} from any thread, one
 * fsync at a time.
 */
final class WalSync {
    private final Path wal;
    private final AtomicLong commits = new AtomicLong();
    private final AtomicLong fsyncs = new AtomicLong();
    /** The commits known to be on disk: every one counted before the last fsync began. Guarded by this. */
    private long forced;

    private WalSync(Path wal) {
        this.wal = wal;
    }

    /**
     * The log to force for the database of {@code connection}: present only for SQLite in WAL mode with {@code
     * synchronous=NORMAL}. {@code FULL} forces the log in every commit itself, and {@code OFF} asks for no
     * durability.
     */
    static WalSync of(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement()) {
            String mode = single(s, "PRAGMA journal_mode");
            String synchronous = single(s, "PRAGMA synchronous");
            if (!"wal".equals(mode.toLowerCase(Locale.ROOT)) || !"1".equals(synchronous)) {
                return null;
            }
            try (ResultSet rs = s.executeQuery("PRAGMA database_list")) {
                while (rs.next()) {
                    if ("main".equals(rs.getString("name"))) {
                        String file = rs.getString("file");
                        return file == null || file.isEmpty() ? null : new WalSync(Path.of(file + "-wal"));
                    }
                }
            }
            return null;
        }
    }

    private static String single(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? String.valueOf(rs.getString(1)) : "";
        }
    }

    /** The log this forces. */
    Path wal() {
        return wal;
    }

    /** The fsyncs so far: fewer than the commits when one covered several. */
    long fsyncs() {
        return fsyncs.get();
    }

    /** Counts a commit that returned; pass the number to {@link #force}. */
    long committed() {
        return commits.incrementAndGet();
    }

    /** Returns once the commit numbered {@code commit} is on disk: at once when an fsync begun after it ended. */
    void force(long commit) throws IOException {
        synchronized (this) {
            if (forced >= commit) {
                return;
            }
            long upTo = commits.get(); // every commit counted so far has written its frames
            try (FileChannel log = FileChannel.open(wal, StandardOpenOption.WRITE)) {
                log.force(false);
                fsyncs.incrementAndGet();
            } catch (NoSuchFileException checkpointedAndDeleted) {
                // the last connection closed: SQLite checkpointed the log into the database file, forced, first
            }
            forced = upTo;
        }
    }
}
