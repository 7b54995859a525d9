package io.delayqueue.bench;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayqueue.e2e.support.FreePorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The packaged service ({@code delay-core-exec.jar}) as a JVM of its own, on a free port, in a working directory
 * of the benchmark's choosing (the embedded default keeps its journal file and Redis under it), its output in a
 * log file; its start-up warm-up stays on (the default is what is measured). {@link #close()} stops it as an operator does (SIGTERM, a graceful shutdown).
 */
final class ServiceProcess implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Process process;
    private final Path log;
    private final int port;

    private ServiceProcess(Process process, Path log, int port) {
        this.process = process;
        this.log = log;
        this.port = port;
    }

    /** Starts the jar with {@code args} (plus {@code --server.port}) and waits until it is ready (warmed up). */
    static ServiceProcess start(Path jar, Path workDir, Path log, List<String> args) throws Exception {
        return start(jar, workDir, log, args, Duration.ofSeconds(120));
    }

    /**
     * As {@link #start(Path, Path, Path, List)}, waiting up to {@code readyWithin} for readiness: a start that
     * restores a million jobs from the journal is ready only once they are back and the warm-up ran.
     */
    static ServiceProcess start(Path jar, Path workDir, Path log, List<String> args, Duration readyWithin)
            throws Exception {
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(
                    jar + " is missing: bin/bench packages it (mvn -pl delay-test -am package)");
        }
        int port = FreePorts.free();
        Files.createDirectories(log.getParent());
        Files.createDirectories(workDir);
        List<String> command = new ArrayList<>(
                List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx1g"));
        // the service JVM's own options, to profile it: BENCH_SERVICE_JVM_OPTS="-XX:StartFlightRecording=..."
        String jvmOptions = System.getenv("BENCH_SERVICE_JVM_OPTS");
        if (jvmOptions != null && !jvmOptions.isBlank()) {
            command.addAll(List.of(jvmOptions.trim().split("\\s+")));
        }
        command.addAll(List.of("-jar", jar.toAbsolutePath().toString(), "--server.port=" + port));
        command.addAll(args);
        Process process = new ProcessBuilder(command)
                .directory(workDir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        ServiceProcess service = new ServiceProcess(process, log, port);
        try {
            service.awaitUp(readyWithin);
        } catch (Exception e) {
            service.close();
            throw e;
        }
        return service;
    }

    int port() {
        return port;
    }

    /** The service JVM's process id (the {@code java} launcher runs the JVM in its own process). */
    long pid() {
        return process.pid();
    }

    Path log() {
        return log;
    }

    private void awaitUp(Duration timeout) {
        await("the service on port " + port + " is up (its log: " + log + ")")
                .atMost(timeout)
                .pollInterval(Duration.ofMillis(200))
                .until(this::healthy);
    }

    /** Whether the health endpoint answers UP; fails at once when the process has exited. */
    private boolean healthy() {
        if (!process.isAlive()) {
            throw new IllegalStateException("the service exited with " + process.exitValue() + ": see " + log);
        }
        try (HttpConnection c = new HttpConnection("127.0.0.1", port)) {
            // ready: after the start-up warm-up (the default), as a load balancer would wait for it
            HttpConnection.Response r = c.get("/actuator/health/readiness");
            return r.status() == 200 && r.text().contains("\"UP\"");
        } catch (IOException notYet) {
            return false; // not listening yet
        }
    }

    /** The HA role {@code /stats} says this instance has ({@code leader}, ...), or {@code unreachable}. */
    String role() {
        try (HttpConnection c = new HttpConnection("127.0.0.1", port)) {
            HttpConnection.Response r = c.get("/stats");
            return r.status() == 200
                    ? JSON.readTree(r.body()).path("data").path("role").asText()
                    : "unreachable";
        } catch (IOException e) {
            return "unreachable";
        }
    }

    /** Deletes the working directories under {@code benchDir} whose names begin with {@code prefix}. */
    static void deleteWorkDirs(Path benchDir, String prefix) throws IOException {
        try (var dirs = Files.list(benchDir)) {
            for (Path dir : dirs.filter(d -> d.getFileName().toString().startsWith(prefix))
                    .toList()) {
                try (var files = Files.walk(dir)) {
                    files.sorted(java.util.Comparator.reverseOrder())
                            .forEach(f -> f.toFile().delete());
                }
            }
        }
    }

    /** {@code kill -9}: the JVM dies at once, as a node that fails. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws Exception {
        if (process.isAlive()) {
            process.destroy(); // SIGTERM: a graceful shutdown
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
