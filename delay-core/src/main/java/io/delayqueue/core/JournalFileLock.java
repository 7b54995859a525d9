package io.delayqueue.core;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.context.ApplicationListener;

/**
 * One service per SQLite journal file: {@code java -jar} (and so {@code bin/run}) takes an exclusive lock on
 * {@code <journal file>.lock} (e.g. {@code ./data/delay-queue.db.lock}) before anything starts, and holds it until
 * the JVM exits (the system lets it go then, after a {@code kill -9} too). A second service on the same file
 * would restore every job of the journal into a Redis of its own and deliver each one a second time; it stops
 * instead, with one line saying which file is in use and by which process, and exit status 1.
 *
 * <p>Only the service's {@code main} adds this listener: applications and tests that build the context
 * themselves take no lock. Threading: runs once, on the starting thread.
 */
final class JournalFileLock implements ApplicationListener<ApplicationEnvironmentPreparedEvent> {
    private static final Logger log = LoggerFactory.getLogger(JournalFileLock.class);

    /** The lock, held as long as the JVM runs: never released, never collected. */
    private static volatile FileLock held;

    @Override
    public void onApplicationEvent(ApplicationEnvironmentPreparedEvent event) {
        EmbeddedJournalFile.of(event.getEnvironment().getProperty("spring.datasource.url"))
                .ifPresent(JournalFileLock::lock);
    }

    /**
     * Locks {@code journal}'s lock file, or logs who holds it and abandons the start ({@link
     * SpringApplication.AbandonedRunException}: Spring reports nothing more).
     */
    static void lock(EmbeddedJournalFile journal) {
        journal.createFolder();
        Path file = lockFile(journal);
        try {
            FileChannel channel = FileChannel.open(
                    file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
            FileLock lock = channel.tryLock();
            if (lock == null) {
                channel.close();
                log.error(
                        "the journal file {} is in use by another delay-queue{}: stop that one, or give this one a"
                                + " journal of its own (spring.datasource.url)",
                        journal.file(),
                        holder(file));
                throw new SpringApplication.AbandonedRunException();
            }
            channel.truncate(0);
            channel.write(
                    ByteBuffer.wrap(Long.toString(ProcessHandle.current().pid()).getBytes(StandardCharsets.US_ASCII)));
            channel.force(false);
            held = lock;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot lock the journal file's lock " + file + ": " + e.getMessage(), e);
        }
    }

    /** {@code delay-queue.db.lock} beside {@code delay-queue.db}. */
    static Path lockFile(EmbeddedJournalFile journal) {
        return journal.file().resolveSibling(journal.file().getFileName() + ".lock");
    }

    /** " (pid 1234)", as the holder wrote it into the lock file; empty when unreadable. */
    private static String holder(Path file) {
        try {
            String pid = Files.readString(file, StandardCharsets.US_ASCII).trim();
            return pid.matches("\\d{1,10}") ? " (pid " + pid + ")" : "";
        } catch (IOException e) {
            return "";
        }
    }
}
