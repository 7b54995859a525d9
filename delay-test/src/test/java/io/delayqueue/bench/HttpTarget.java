package io.delayqueue.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * This service over HTTP: the packaged service ({@code delay-core/target/delay-core-exec.jar}, or the jar given
 * with {@code --service-jar}) as a JVM of its own ({@link ServiceProcess}). Clients are persistent HTTP/1.1
 * connections from the benchmark's JVM. Two set-ups:
 *
 * <ul>
 *   <li><b>MariaDB</b> ({@code http}), as it runs in production: the Redis at 127.0.0.1:6379 under a prefix of its
 *       own, a MariaDB journal database of the benchmark's own in {@code sync} mode, the topics of {@link
 *       UserPaths#routes()}, every other setting at its default. Between runs the service idles while its keys are
 *       unlinked and its journal tables emptied. Measures the pushes and the hand-over paths users take ({@link
 *       UserPaths}).
 *   <li><b>The embedded default</b> ({@code embedded}), as {@code bin/run} starts it: no settings at all (embedded
 *       Redis, the embedded journal file), in a fresh working directory. Measures the pushes; what it holds grows
 *       from run to run, as a real store does.
 * </ul>
 *
 * <p>Due jobs of the push figures, their lateness and their Redis memory are the same engine and the same Redis
 * layout as in-process.
 */
final class HttpTarget implements BenchTarget {
    static final String SAME_ENGINE = "same engine and Redis layout as in-process";
    static final String ON_MARIADB = "measured on the MariaDB set-up";

    private final BenchOptions options;
    private final BenchRedis benchRedis;
    private final boolean embedded;
    private final BenchDatabase database; // null on the embedded default
    private final String prefix = BenchRedis.uniqueName("http");
    private final Path workDir;
    private final Path jar;
    private final Path benchDir;
    private final Path log;
    private final List<String> args;
    private ServiceProcess service; // replaced by the full-size restore's restart
    private final CallbackReceiver receiver; // null on the embedded default
    private UserPaths paths;
    private int port;
    /** Seconds from launching the service to its health saying UP, without a restore. */
    private final double startSeconds;

    private final byte[] single;
    private final byte[] batch;

    /** @param jar the service jar; null: the one this tree packages */
    HttpTarget(BenchOptions options, BenchRedis benchRedis, Path root, boolean embedded, Path jar) throws Exception {
        this.options = options;
        this.benchRedis = benchRedis;
        this.embedded = embedded;
        String job = "{\"topic\":\"" + InProcessTarget.TOPIC + "\",\"body\":\"" + "x".repeat(options.bodyBytes())
                + "\",\"delay\":" + Duration.ofHours(1).toMillis() + "}";
        this.single = job.getBytes(StandardCharsets.UTF_8);
        this.batch = ("[" + String.join(",", java.util.Collections.nCopies(options.batchSize(), job)) + "]")
                .getBytes(StandardCharsets.UTF_8);
        if (jar == null) {
            jar = root.resolve("delay-core/target/delay-core-exec.jar");
        }
        Path benchDir = root.resolve("delay-test/target/bench");
        this.jar = jar;
        this.benchDir = benchDir;
        this.workDir = benchDir.resolve(BenchRedis.uniqueName(embedded ? "embedded" : "http"));
        String logName = (embedded ? "service-embedded" : "service") + "-" + jar.getFileName() + ".log";
        List<String> args = new ArrayList<>();
        if (embedded) {
            this.database = null;
            this.receiver = null;
        } else {
            this.database = BenchDatabase.create();
            this.receiver = new CallbackReceiver();
            args.addAll(onMariaDb(BenchRedis.URI, prefix, database));
        }
        this.args = List.copyOf(args);
        this.log = benchDir.resolve(logName);
        ServiceProcess started;
        long launched = System.nanoTime();
        try {
            started = ServiceProcess.start(jar, workDir, log, args);
        } catch (Exception e) {
            closeQuietly();
            throw e;
        }
        this.startSeconds = (System.nanoTime() - launched) / 1e9;
        this.service = started;
        this.port = started.port();
        this.paths = receiver == null ? null : new UserPaths(port, receiver, options.bodyBytes(), options.pullCount());
    }

    @Override
    public String notMeasured(Kind kind) {
        return switch (kind) {
            case PUSH_FEW, PUSH_SINGLE, PUSH_BATCH -> null;
            case CALLBACK_BURST, PULL_BURST, CALLBACK_LATENESS, CANARY, RETRY_STORM -> embedded ? ON_MARIADB : null;
            case SCALE_OUT, FULL_BURST, FULL_PENDING, FIRST_BURST, TAKE_OVER -> embedded ? ON_MARIADB : null;
            default -> SAME_ENGINE;
        };
    }

    @Override
    public RunResult pushSingle(int callers, Duration preRoll, Duration measure) throws Exception {
        return push("/push", single, 1, callers, preRoll, measure);
    }

    @Override
    public RunResult pushBatch(Duration preRoll, Duration measure) throws Exception {
        return push("/push/batch", batch, options.batchSize(), options.batchThreads(), preRoll, measure);
    }

    @Override
    public RunResult callbackBurst(int jobs) throws Exception {
        return thenClean(() -> paths.callbackBurst(jobs));
    }

    @Override
    public RunResult pullBurst(int jobs, int consumers) throws Exception {
        return thenClean(() -> paths.pullBurst(jobs, consumers));
    }

    @Override
    public RunResult callbackLateness(int rate, Duration duration) throws Exception {
        return thenClean(() -> paths.callbackLateness(rate, duration));
    }

    @Override
    public RunResult canary(int topics, int rate, Duration duration) throws Exception {
        return thenClean(() -> paths.canary(topics, rate, duration));
    }

    @Override
    public RunResult retryStorm(int knownIds, int rate, Duration duration) throws Exception {
        return thenClean(() -> paths.retryStorm(knownIds, rate, duration));
    }

    /**
     * The MariaDB set-up's settings: the Redis at {@code redisUri} under {@code prefix}, the journal in {@code sync}
     * mode on {@code database}, no restore at start, the topics of {@link UserPaths#routes()}.
     */
    static List<String> onMariaDb(String redisUri, String prefix, BenchDatabase database) {
        List<String> args = new ArrayList<>(List.of(
                "--delay.redis.uri=" + redisUri,
                "--delay.redis.prefix=" + prefix,
                "--spring.datasource.url=" + database.jdbcUrl(),
                "--spring.datasource.username=" + BenchDatabase.USER,
                "--spring.datasource.password=" + BenchDatabase.PASSWORD,
                "--delay.journal.mode=sync",
                "--delay.journal.restore-on-start=false"));
        args.addAll(UserPaths.routes());
        return args;
    }

    @Override
    public RunResult firstBurst() throws Exception {
        return new ColdStart(options, benchRedis, jar, benchDir).firstBurst();
    }

    @Override
    public RunResult takeOver() throws Exception {
        return new ColdStart(options, benchRedis, jar, benchDir).takeOver();
    }

    @Override
    public RunResult scaleOut() throws Exception {
        return new ScaleOut(options, jar, benchDir).run();
    }

    @Override
    public RunResult fullBurst(int jobs) throws Exception {
        return thenClean(() -> paths.callbackBurst(jobs));
    }

    @Override
    public RunResult fullPending(int jobs) throws Exception {
        try {
            clean();
            RunResult run = new FullPending(options, benchRedis, database, prefix, port)
                    .run(jobs, startSeconds, this::stopAndFlush, this::startRestoring);
            // the restore's own report, logged when it returns (the jobs may all be back before: the owner's replay
            // of the journal's last minute and the tier loader put jobs back beside it)
            String[] line = {null};
            org.awaitility.Awaitility.await("the restore's report in " + restoreLog())
                    .atMost(Duration.ofMinutes(30))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> {
                        try (var lines = Files.lines(restoreLog())) {
                            line[0] = lines.filter(l -> l.contains("restored from the journal at start-up"))
                                    .findFirst()
                                    .orElse(null);
                        }
                        return line[0] != null;
                    });
            run.with("restoreLogLine", line[0].trim());
            return run;
        } finally {
            clean();
        }
    }

    /** Stops the service (gracefully) and unlinks its Redis keys, its prefix only; the journal stays. */
    private void stopAndFlush() throws Exception {
        service.close();
        benchRedis.unlink("{" + prefix + ":*");
    }

    /**
     * Starts the service again in place of the one {@link #stopAndFlush()} stopped, with {@code
     * delay.journal.restore-on-start=true}; returns once its health is UP.
     */
    private void startRestoring() throws Exception {
        List<String> restoring = new ArrayList<>(args.stream()
                .filter(a -> !a.startsWith("--delay.journal.restore-on-start="))
                .toList());
        restoring.add("--delay.journal.restore-on-start=true");
        // ready once the restore at start and the warm-up are done: a million jobs take minutes
        service = ServiceProcess.start(jar, workDir, restoreLog(), restoring, Duration.ofMinutes(30));
        port = service.port();
        paths = new UserPaths(port, receiver, options.bodyBytes(), options.pullCount());
    }

    private Path restoreLog() {
        return log.resolveSibling("service-restore-" + log.getFileName());
    }

    /** One run of a user path, then the keys and rows it left go. */
    private RunResult thenClean(java.util.concurrent.Callable<RunResult> run) throws Exception {
        try {
            return run.call();
        } finally {
            clean();
        }
    }

    private RunResult push(String path, byte[] json, int jobs, int clients, Duration preRoll, Duration measure)
            throws Exception {
        try {
            ServiceTimers.Snapshot before = ServiceTimers.read(port);
            RunResult run = HttpPushLoad.run("127.0.0.1", port, path, json, jobs, clients, preRoll, measure)
                    .with("path", path);
            Map<String, Object> inside = ServiceTimers.breakdown(before, ServiceTimers.read(port), path);
            System.err.printf(
                    "  %s from %d callers: a call's mean %.0f µs at the caller; inside the service %s%n",
                    path, clients, ((Number) run.details().get("callMeanMs")).doubleValue() * 1e3, inside);
            return run.with("inside", inside);
        } finally {
            clean();
        }
    }

    /** Between runs on MariaDB: the run's keys and rows go. The embedded default keeps what it holds. */
    private void clean() throws Exception {
        if (!embedded) {
            benchRedis.unlink("{" + prefix + ":*");
            database.truncate();
        }
    }

    @Override
    public RunResult burst(int jobs, long leadMs) {
        throw new UnsupportedOperationException(SAME_ENGINE);
    }

    @Override
    public RunResult lateness(int rate, Duration duration) {
        throw new UnsupportedOperationException(SAME_ENGINE);
    }

    @Override
    public RunResult memory(int jobs) {
        throw new UnsupportedOperationException(SAME_ENGINE);
    }

    @Override
    public void close() throws Exception {
        try {
            if (service != null) {
                service.close();
            }
        } finally {
            closeQuietly();
        }
    }

    private void closeQuietly() throws Exception {
        if (receiver != null) {
            receiver.close();
        }
        if (!embedded) {
            benchRedis.unlink("{" + prefix + ":*");
        }
        if (database != null) {
            database.close();
        }
        if (Files.isDirectory(workDir)) {
            try (var files = Files.walk(workDir)) {
                files.sorted(java.util.Comparator.reverseOrder())
                        .forEach(f -> f.toFile().delete());
            }
        }
    }
}
