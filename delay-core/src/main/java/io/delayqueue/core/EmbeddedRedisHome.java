package io.delayqueue.core;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.embedded.core.ExecutableProvider;

/**
 * The files of {@link EmbeddedRedis} instances on disk: the per-user home, one directory per instance holding
 * the unpacked redis-server binary and a record of who started it ({@value #RECORD}: the service's pid and
 * start time, redis-server's pid), and the clean-up of what services that are gone left there. Running and
 * restarting the process is {@link EmbeddedRedis}'s part.
 *
 * <p>Threading: static methods without state of their own; several services (JVMs) may work in one home at
 * once, which is why records are written whole and a directory still without one is left alone for a while.
 */
final class EmbeddedRedisHome {
    private static final Logger log = LoggerFactory.getLogger(EmbeddedRedisHome.class);

    static final String RECORD = "instance.properties";
    /** A directory without a record is being set up by a live service, unless it is older than this. */
    private static final Duration UNRECORDED_GRACE = Duration.ofMinutes(1);

    private EmbeddedRedisHome() {}

    /**
     * Creates {@code home} (private to the user) if needed, cleans up what dead services left in it, and creates
     * a directory for this service's instance, with a record that names this service and no redis-server yet.
     */
    static Path createInstanceDirectory(Path home) throws IOException {
        createPrivateDirectories(home);
        cleanUpStale(home);
        ProcessHandle self = ProcessHandle.current();
        Path dir = Files.createTempDirectory(home, self.pid() + "-");
        writeRecord(dir, self, null);
        return dir;
    }

    /** Unpacks the redis-server binary shipped in the embedded-redis jar into {@code dir}; returns its path. */
    static Path unpackServer(Path dir) throws IOException {
        return ExecutableProvider.newJarResourceProvider(dir.toFile()).get().toPath();
    }

    /** Records that this service runs redis-server {@code redisPid} from {@code dir}. */
    static void recordServer(Path dir, long redisPid) throws IOException {
        writeRecord(dir, ProcessHandle.current(), redisPid);
    }

    /**
     * Kills the redis-servers of services that are gone and removes their directories; returns how many
     * directories were removed. A redis-server is only killed if its executable lies in the directory.
     */
    static int cleanUpStale(Path home) throws IOException {
        int removed = 0;
        List<Path> dirs;
        try (Stream<Path> list = Files.list(home)) {
            dirs = list.filter(Files::isDirectory).toList();
        }
        for (Path candidate : dirs) {
            Path record = candidate.resolve(RECORD);
            if (!Files.exists(record)) {
                FileTime modified = Files.getLastModifiedTime(candidate);
                if (modified.toInstant().isBefore(Instant.now().minus(UNRECORDED_GRACE))) {
                    deleteRecursively(candidate);
                    removed++;
                }
                continue;
            }
            Properties p = new Properties();
            try (var in = Files.newInputStream(record)) {
                p.load(in);
            } catch (IOException | IllegalArgumentException unreadable) {
                continue; // being written by a live service (records are moved into place whole)
            }
            long owner = Long.parseLong(p.getProperty("service.pid", "-1"));
            if (isAlive(owner, p.getProperty("service.start", ""))) {
                continue;
            }
            String redisPid = p.getProperty("redis.pid");
            if (redisPid != null) {
                Optional<ProcessHandle> orphan =
                        ProcessHandle.of(Long.parseLong(redisPid)).filter(h -> runsFrom(h, candidate));
                if (orphan.isPresent()) {
                    ProcessHandle h = orphan.get();
                    h.destroyForcibly();
                    try {
                        h.onExit().get(10, TimeUnit.SECONDS);
                    } catch (ExecutionException | TimeoutException e) {
                        log.warn("could not kill the orphaned embedded Redis, pid {}: {}", h.pid(), e.toString());
                        continue;
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return removed;
                    }
                    log.warn("killed the embedded Redis (pid {}) that service process {} left running", h.pid(), owner);
                }
            }
            deleteRecursively(candidate);
            removed++;
        }
        return removed;
    }

    private static boolean isAlive(long pid, String start) {
        return ProcessHandle.of(pid).filter(h -> start.equals(startOf(h))).isPresent();
    }

    private static String startOf(ProcessHandle h) {
        return h.info().startInstant().map(Instant::toString).orElse("");
    }

    private static boolean runsFrom(ProcessHandle h, Path dir) {
        try {
            Path real = dir.toRealPath();
            return h.info()
                    .command()
                    .map(c -> Path.of(c).startsWith(real) || Path.of(c).startsWith(dir))
                    .orElse(false);
        } catch (IOException e) {
            return false;
        }
    }

    /** Written whole (a temporary file moved into place): a reader never sees half of it. */
    private static void writeRecord(Path dir, ProcessHandle service, Long redisPid) throws IOException {
        Properties p = new Properties();
        p.setProperty("service.pid", Long.toString(service.pid()));
        p.setProperty("service.start", startOf(service));
        if (redisPid != null) {
            p.setProperty("redis.pid", Long.toString(redisPid));
        }
        Path tmp = dir.resolve(RECORD + ".tmp");
        try (var out = Files.newOutputStream(tmp)) {
            p.store(out, "an embedded Redis of delay-queue; removed by the next start once this service is gone");
        }
        try {
            Files.move(tmp, dir.resolve(RECORD), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, dir.resolve(RECORD), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private static void createPrivateDirectories(Path home) throws IOException {
        if (Files.isDirectory(home)) {
            return;
        }
        Files.createDirectories(home);
        try {
            Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwx------"));
        } catch (UnsupportedOperationException notPosix) {
            // Windows: the temp directory is the user's own
        }
    }

    /**
     * A program of util-linux on Linux: {@code setpriv}, which sets the parent-death signal and runs the command,
     * or {@code setsid}, which runs it in a session (and process group) of its own.
     */
    static Optional<String> utilLinux(String program) {
        if (!System.getProperty("os.name", "").startsWith("Linux")) {
            return Optional.empty();
        }
        String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
        return Stream.concat(Stream.of(path.split(":")), Stream.of("/usr/bin", "/bin"))
                .filter(d -> !d.isEmpty())
                .map(d -> Path.of(d, program))
                .filter(Files::isExecutable)
                .map(Path::toString)
                .findFirst();
    }

    static void deleteRecursively(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
