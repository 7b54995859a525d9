package io.delayqueue.queue.journal.mybatis;

import io.delayqueue.common.DelayQueueException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Objects;
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
 * the next open.
 *
 * <p>One descriptor, one file. The log is forced through one descriptor kept open from the first fsync on: on Linux
 * a write-back error is reported once to each descriptor open when it happened, so a descriptor opened for each
 * fsync would not hear of pages lost before it was opened (SQLite's own checkpoint fsync may have taken the report),
 * and a commit on lost pages would be answered 200. And SQLite deletes the log only when its last connection to the
 * database closes (after checkpointing it into the database file); truncating it ({@code journal_size_limit}, {@code
 * wal_checkpoint(TRUNCATE)}) keeps the file. This class holds a connection of its own open for as long as the journal
 * runs, so the log SQLite writes is one file throughout: a log missing at its path, or another file there (another
 * inode), or a database file deleted or replaced, is somebody else's doing, and SQLite's connections go on writing
 * to the file no longer reachable at its path: every commit from then on would be lost at the next start.
 *
 * <p>So the journal is <em>unsound</em> ({@link #whyUnsound()}) when its database or log file is no longer the one
 * it opened (until the file is put back) or when an fsync failed (until the service is restarted: the failed pages
 * are gone from the cache and a later fsync succeeding says nothing of them; the restart recovers what is on disk).
 * While unsound, {@link #requireSound()} refuses the writers' groups (503, nothing written) and {@link #force}
 * throws for the commit it was to force (504: committed, but not known to be durable).
 *
 * <p>Threading: {@link #committed} from any writer after its commit returned; {@link #force} from any thread, one
 * fsync at a time; {@link #whyUnsound()} from any thread.
 */
final class WalSync implements AutoCloseable {
    private final Path database;
    private final Path wal;
    /** Held open so that SQLite never deletes (and creates anew) the log while the journal runs. */
    private final Connection keeper;
    /** The database file's identity (device and inode) when this opened. */
    private final Object databaseKey;

    private final AtomicLong commits = new AtomicLong();
    private final AtomicLong fsyncs = new AtomicLong();
    /** The commits known to be on disk: every one counted before the last fsync began. Guarded by this. */
    private long forced;
    /** The log, opened at the first fsync and kept open. Guarded by this. */
    private FileChannel log;
    /** The identity of the file {@link #log} is open on. Guarded by this, read without it by {@link #whyUnsound}. */
    private volatile Object logKey;
    /** Why an fsync failed: the journal is unsound until the service restarts. */
    private volatile String fsyncFailure;

    private WalSync(Path database, Connection keeper) throws IOException {
        this.database = database;
        this.wal = Path.of(database + "-wal");
        this.keeper = keeper;
        this.databaseKey = keyOf(database);
        if (databaseKey == null) {
            throw new NoSuchFileException(database.toString(), null, "the journal's database file is missing");
        }
    }

    /**
     * The log to force for the database of {@code connection}: present only for SQLite in WAL mode with {@code
     * synchronous=NORMAL}. {@code FULL} forces the log in every commit itself, and {@code OFF} asks for no
     * durability. Opens a connection of its own to the file, held until {@link #close()}.
     */
    static WalSync of(Connection connection) throws SQLException {
        Path file;
        try (Statement s = connection.createStatement()) {
            String mode = single(s, "PRAGMA journal_mode");
            String synchronous = single(s, "PRAGMA synchronous");
            if (!"wal".equals(mode.toLowerCase(Locale.ROOT)) || !"1".equals(synchronous)) {
                return null;
            }
            file = mainFile(s);
        }
        if (file == null) {
            return null;
        }
        Connection keeper = DriverManager.getConnection("jdbc:sqlite:" + file);
        try {
            try (Statement s = keeper.createStatement()) {
                // a read in WAL mode opens the log's index: from then on this connection holds the log open
                single(s, "SELECT COUNT(*) FROM sqlite_master");
            }
            WalSync sync = new WalSync(file, keeper);
            sync.openLog();
            return sync;
        } catch (SQLException | IOException | RuntimeException e) {
            keeper.close();
            throw e instanceof SQLException sql ? sql : new SQLException("cannot open the journal's file " + file, e);
        }
    }

    private static Path mainFile(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery("PRAGMA database_list")) {
            while (rs.next()) {
                if ("main".equals(rs.getString("name"))) {
                    String file = rs.getString("file");
                    return file == null || file.isEmpty() ? null : Path.of(file);
                }
            }
        }
        return null;
    }

    private static String single(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? String.valueOf(rs.getString(1)) : "";
        }
    }

    /** The file's identity (device and inode on Linux), or null when it is missing. */
    private static Object keyOf(Path file) throws IOException {
        try {
            return Objects.requireNonNull(
                    Files.readAttributes(file, BasicFileAttributes.class).fileKey(),
                    "the file system gives files no identity");
        } catch (NoSuchFileException missing) {
            return null;
        }
    }

    /** Opens the log's descriptor now when the log is there (SQLite made it when the keeper read). */
    private synchronized void openLog() throws IOException {
        if (Files.exists(wal)) {
            channel();
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

    /**
     * Returns once the commit numbered {@code commit} is on disk: at once when an fsync begun after it ended.
     *
     * @throws IOException the fsync failed, or the log or database file is no longer the one SQLite writes: the commit
     *     landed but is not known to be durable
     */
    void force(long commit) throws IOException {
        synchronized (this) {
            if (forced >= commit) {
                return;
            }
            long upTo = commits.get(); // every commit counted so far has written its frames
            try {
                channel().force(false);
            } catch (IOException e) {
                fsyncFailure = "an fsync of the journal's log " + wal + " failed (" + e
                        + "): pages of committed transactions may be lost; restart the service, which recovers what"
                        + " is on disk";
                throw new IOException(fsyncFailure, e);
            }
            fsyncs.incrementAndGet();
            // forced, and still the file at the log's path: what it holds is found at the next start
            String after = whyUnsound();
            if (after != null) {
                throw new IOException(after);
            }
            forced = upTo;
        }
    }

    /** The log's descriptor, opened once (the log's identity checked on both sides of the open). Guarded by this. */
    private FileChannel channel() throws IOException {
        if (log == null) {
            Object key = keyOf(wal);
            FileChannel opened = FileChannel.open(wal, StandardOpenOption.WRITE);
            if (key == null || !key.equals(keyOf(wal))) {
                opened.close();
                throw new IOException("the journal's log " + wal + " changed while it was opened");
            }
            log = opened;
            logKey = key;
        }
        return log;
    }

    /**
     * Why the journal cannot keep its commits now, or null when it can: its database or log file deleted or replaced
     * under it (another file at the path), or an fsync failed.
     */
    String whyUnsound() {
        String failed = fsyncFailure;
        if (failed != null) {
            return failed;
        }
        try {
            if (!databaseKey.equals(keyOf(database))) {
                return "the journal's database file " + database + " was deleted or replaced while the service runs:"
                        + " its commits go to a file no longer at that path, and would be lost at the next start; put"
                        + " it back, or restart the service";
            }
            Object opened = logKey;
            if (opened != null && !opened.equals(keyOf(wal))) {
                return "the journal's log " + wal + " was deleted or replaced while the service runs: SQLite goes on"
                        + " writing to the file no longer at that path, and its commits would be lost at the next"
                        + " start; put it back, or restart the service";
            }
            return null;
        } catch (IOException e) {
            return "cannot read the journal's files (" + e + ")";
        }
    }

    /** Refuses a group before it writes anything (503) while the journal is {@linkplain #whyUnsound() unsound}. */
    void requireSound() {
        String why = whyUnsound();
        if (why != null) {
            throw new DelayQueueException.Unavailable("not written: " + why, null);
        }
    }

    /** Lets go of the log's descriptor and of the connection that held the log open. */
    @Override
    public synchronized void close() {
        try {
            if (log != null) {
                log.close();
            }
        } catch (IOException e) {
            // closing
        }
        try {
            keeper.close();
        } catch (SQLException e) {
            // closing
        }
    }
}
