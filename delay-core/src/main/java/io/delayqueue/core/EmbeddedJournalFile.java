package io.delayqueue.core;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;

/**
 * The file of a SQLite journal ({@code jdbc:sqlite:./data/delay-queue.db?...}, the embedded default): SQLite
 * creates the file but not its folder, so {@link #createFolder()} does, before the first connection. And the
 * H2 file that earlier versions kept beside it as their default journal ({@code ./data/delay-queue.mv.db}), which
 * {@link H2JournalImport} brings over once.
 */
record EmbeddedJournalFile(Path file) {
    private static final String PREFIX = "jdbc:sqlite:";

    /** The file a SQLite URL names; empty for another database, or for SQLite in memory. */
    static Optional<EmbeddedJournalFile> of(String jdbcUrl) {
        if (jdbcUrl == null || !jdbcUrl.toLowerCase(Locale.ROOT).startsWith(PREFIX)) {
            return Optional.empty();
        }
        String name = jdbcUrl.substring(PREFIX.length());
        int options = name.indexOf('?');
        if (options >= 0) {
            name = name.substring(0, options);
        }
        if (name.startsWith("file:")) {
            name = name.substring("file:".length());
        }
        if (name.isEmpty() || name.startsWith(":memory:") || name.contains("mode=memory")) {
            return Optional.empty();
        }
        return Optional.of(
                new EmbeddedJournalFile(Path.of(name).toAbsolutePath().normalize()));
    }

    /** Creates the file's folder when it is missing. */
    void createFolder() {
        Path folder = file.getParent();
        if (folder != null && !Files.isDirectory(folder)) {
            try {
                Files.createDirectories(folder);
            } catch (IOException e) {
                throw new UncheckedIOException(
                        "cannot create the journal's folder " + folder + " (spring.datasource.url): " + e.getMessage(),
                        e);
            }
        }
    }

    /**
     * The H2 journal of an earlier version beside this file: {@code delay-queue.mv.db} for {@code delay-queue.db}.
     */
    Path formerH2File() {
        String name = file.getFileName().toString();
        String base = name.endsWith(".db") ? name.substring(0, name.length() - ".db".length()) : name;
        return file.resolveSibling(base + ".mv.db");
    }

    /** The JDBC URL that opens {@link #formerH2File()} as earlier versions did. */
    String formerH2Url() {
        String path = formerH2File().toString();
        return "jdbc:h2:file:" + path.substring(0, path.length() - ".mv.db".length())
                + ";MODE=MySQL;DATABASE_TO_LOWER=TRUE;CASE_INSENSITIVE_IDENTIFIERS=TRUE";
    }
}
