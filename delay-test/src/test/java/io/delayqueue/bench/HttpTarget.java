package io.delayqueue.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * This service over HTTP: the packaged service ({@code delay-core/target/delay-core-exec.jar}) as a JVM of its
 * own, as it runs in production: the Redis at 127.0.0.1:6379 under a prefix of its own (no embedded Redis), a
 * MariaDB journal database of the benchmark's own in {@code sync} mode, every other setting at its default.
 * Clients are persistent HTTP/1.1 connections from the benchmark's JVM. Between runs the service idles while
 * its keys are unlinked and its journal tables emptied.
 *
 * <p>Only the push figures are measured over HTTP: due jobs, their lateness and their Redis memory are the same
 * engine and the same Redis layout as in-process.
 */
final class HttpTarget implements BenchTarget {
    static final String SAME_ENGINE = "same engine and Redis layout as in-process";

    private final BenchOptions options;
    private final BenchRedis benchRedis;
    private final BenchDatabase database;
    private final String prefix = BenchRedis.uniqueName("http");
    private final int port;
    private final Process process;
    private final Path log;
    private final byte[] single;
    private final byte[] batch;

    HttpTarget(BenchOptions options, BenchRedis benchRedis, Path root) throws Exception {
        this.options = options;
        this.benchRedis = benchRedis;
        Path jar = root.resolve("delay-core/target/delay-core-exec.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(
                    jar + " is missing: bin/bench packages it (mvn -pl delay-test -am package)");
        }
        String job = "{\"topic\":\"" + InProcessTarget.TOPIC + "\",\"body\":\"" + "x".repeat(options.bodyBytes())
                + "\",\"delay\":" + Duration.ofHours(1).toMillis() + "}";
        this.single = job.getBytes(StandardCharsets.UTF_8);
        this.batch = ("[" + String.join(",", java.util.Collections.nCopies(options.batchSize(), job)) + "]")
                .getBytes(StandardCharsets.UTF_8);
        this.database = BenchDatabase.create();
        this.port = freePort();
        this.log = root.resolve("delay-test/target/bench/service.log");
        Files.createDirectories(log.getParent());
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx1g",
                "-jar",
                jar.toString(),
                "--server.port=" + port,
                "--delay.redis.uri=" + BenchRedis.URI,
                "--delay.redis.prefix=" + prefix,
                "--spring.datasource.url=" + database.jdbcUrl(),
                "--spring.datasource.username=" + BenchDatabase.USER,
                "--spring.datasource.password=" + BenchDatabase.PASSWORD,
                "--delay.journal.mode=sync",
                "--delay.journal.restore-on-start=false"));
        this.process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        try {
            awaitUp(Duration.ofSeconds(120));
        } catch (Exception e) {
            close();
            throw e;
        }
    }

    private void awaitUp(Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the service exited with " + process.exitValue() + ": see " + log);
            }
            try (HttpConnection c = new HttpConnection("127.0.0.1", port)) {
                HttpConnection.Response r = c.get("/actuator/health");
                if (r.status() == 200 && r.text().contains("\"UP\"")) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "the service was not up within " + timeout.toSeconds() + " s: see " + log);
            }
            Thread.sleep(200);
        }
    }

    @Override
    public String notMeasured(Kind kind) {
        return kind == Kind.PUSH_SINGLE || kind == Kind.PUSH_BATCH ? null : SAME_ENGINE;
    }

    @Override
    public RunResult pushSingle(Duration preRoll, Duration measure) throws Exception {
        return push("/push", single, 1, options.threads(), preRoll, measure);
    }

    @Override
    public RunResult pushBatch(Duration preRoll, Duration measure) throws Exception {
        return push("/push/batch", batch, options.batchSize(), options.batchThreads(), preRoll, measure);
    }

    private RunResult push(String path, byte[] json, int jobs, int clients, Duration preRoll, Duration measure)
            throws Exception {
        List<HttpConnection> connections = new ArrayList<>();
        try {
            return LoadDriver.throughput(clients, preRoll, measure, caller -> {
                        HttpConnection c = new HttpConnection("127.0.0.1", port);
                        synchronized (connections) {
                            connections.add(c);
                        }
                        return () -> {
                            HttpConnection.Response r = c.postJson(path, json);
                            if (r.status() != 200) {
                                throw new IllegalStateException(
                                        "POST " + path + " answered " + r.status() + ": " + r.text());
                            }
                            return jobs;
                        };
                    })
                    .with("path", path)
                    .with(
                            "reconnects",
                            connections.stream()
                                    .mapToInt(HttpConnection::reconnects)
                                    .sum());
        } finally {
            for (HttpConnection c : connections) {
                c.close();
            }
            clean();
        }
    }

    private void clean() throws Exception {
        benchRedis.unlink("{" + prefix + ":*");
        database.truncate();
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
            if (process.isAlive()) {
                process.destroy(); // SIGTERM: a graceful shutdown
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(10, TimeUnit.SECONDS);
                }
            }
        } finally {
            benchRedis.unlink("{" + prefix + ":*");
            database.close();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
