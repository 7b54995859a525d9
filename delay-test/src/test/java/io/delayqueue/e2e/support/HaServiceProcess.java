package io.delayqueue.e2e.support;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The service as a separate JVM for the HA tests, which need each delivery's arrival time and instance
 * ({@link ServiceProcess} counts deliveries by id): {@code java -jar delay-core-exec.jar
 * --server.port=<free> <args>}, the jar
 * that {@code mvn package} builds in delay-core (so run these tests with {@code verify}). Its standard
 * output is read on a thread of its own: each line the console dispatcher prints (the job as JSON) is a
 * delivery, recorded with the wall-clock time it arrived; every other line goes to
 * {@code target/service-logs/<name>.log}.
 *
 * <p>{@link #kill()} is {@code kill -9} (SIGKILL, no shutdown hook runs), {@link #stop()} a graceful
 * SIGTERM. Close it in a {@code finally} or {@code @AfterAll}: it kills what is still running.
 */
public final class HaServiceProcess implements AutoCloseable {
    /**
     * One job printed by the console dispatcher.
     *
     * @param line the number of the output line that printed it (the output is one stream, so line numbers order
     *     what the process printed regardless of when this test read it)
     */
    /**
     * A job the console dispatcher printed.
     *
     * @param wallMs when this test read the line
     * @param executeAt the job's due time, as printed
     * @param line the line's number in the instance's output
     */
    public record Delivery(String id, String instance, long wallMs, long executeAt, long line) {}

    /** What the engine logs when it takes an owner epoch for a shard it gained (it may move the shard's jobs). */
    private static final String EPOCH_TAKEN = ": owner epoch ";

    private static final String ID_FIELD = "\"id\":\"";
    private static final String DUE_FIELD = "\"executeAt\":";

    private final String name;
    private final int port;
    private final Process process;
    private final Thread reader;
    private final Api api;
    private final ConcurrentLinkedQueue<Delivery> deliveries = new ConcurrentLinkedQueue<>();
    private final AtomicInteger deliveryCount = new AtomicInteger();
    private final AtomicLong lines = new AtomicLong();
    private final ConcurrentLinkedQueue<Long> epochsTaken = new ConcurrentLinkedQueue<>();

    private HaServiceProcess(String name, int port, Process process, Path log) {
        this.name = name;
        this.port = port;
        this.process = process;
        this.api = new Api(port);
        this.reader = new Thread(() -> readOutput(log), "output-of-" + name);
        reader.setDaemon(true);
        reader.start();
    }

    /** The runnable jar built by delay-core's {@code package} phase. */
    public static Path execJar() {
        Path base = Paths.get(System.getProperty("basedir", System.getProperty("user.dir")));
        Path jar = base.resolveSibling("delay-core")
                .resolve("target")
                .resolve("delay-core-exec.jar")
                .toAbsolutePath()
                .normalize();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing: these tests start the packaged service; run them "
                    + "with `mvn verify` (or `mvn -pl delay-test -am verify`), which packages delay-core first");
        }
        return jar;
    }

    /** Starts the service on a free port; returns at once (see {@link #awaitReady}). */
    public static HaServiceProcess start(String name, List<String> args) {
        int port = freePort();
        List<String> command = new ArrayList<>(List.of(
                Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-XX:+UseSerialGC",
                "-jar",
                execJar().toString(),
                "--server.port=" + port,
                "--spring.main.banner-mode=off"));
        command.addAll(ServiceProcess.withoutWarmUp(args));
        try {
            Path logs = Paths.get(System.getProperty("basedir", "."), "target", "service-logs");
            Files.createDirectories(logs);
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            return new HaServiceProcess(name, port, p, logs.resolve(name + ".log"));
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + command, e);
        }
    }

    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void readOutput(Path log) {
        try (BufferedReader in =
                        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                PrintWriter out = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8), true)) {
            String line;
            while ((line = in.readLine()) != null) {
                long number = lines.incrementAndGet();
                int at = line.startsWith("{") ? line.indexOf(ID_FIELD) : -1;
                if (at >= 0) {
                    int from = at + ID_FIELD.length();
                    deliveries.add(new Delivery(
                            line.substring(from, line.indexOf('"', from)),
                            name,
                            System.currentTimeMillis(),
                            executeAt(line),
                            number));
                    deliveryCount.incrementAndGet();
                } else {
                    if (line.contains(EPOCH_TAKEN)) {
                        epochsTaken.add(number);
                    }
                    out.println(line);
                }
            }
        } catch (IOException e) {
            // the process is gone
        }
    }

    public String name() {
        return name;
    }

    public int port() {
        return port;
    }

    public Api api() {
        return api;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Waits until the HTTP API answers {@code /stats}; fails early when the process died. */
    public HaServiceProcess awaitReady(Duration timeout) {
        await(name + " answers on port " + port).atMost(timeout).until(() -> {
            if (!process.isAlive()) {
                throw new AssertionError(
                        name + " exited with " + process.exitValue() + "; see target/service-logs/" + name + ".log");
            }
            try {
                return api.get("/stats").status() == 200;
            } catch (UncheckedIOException notYet) {
                return false;
            }
        });
        return this;
    }

    /** {@code data.role} of {@code /stats}, or {@code "unreachable"}. */
    public String role() {
        try {
            Api.Response r = api.get("/stats");
            return r.status() == 200 ? r.data().path("role").asText() : "unreachable";
        } catch (UncheckedIOException e) {
            return "unreachable";
        }
    }

    /** The shards this instance scans, from {@code /actuator/health}. */
    public List<Integer> ownedShards() {
        Api.Response r = api.get("/actuator/health");
        List<Integer> shards = new ArrayList<>();
        JsonNode owned = r.json() == null
                ? null
                : r.json()
                        .path("components")
                        .path("coordination")
                        .path("details")
                        .path("ownedShards");
        if (owned != null) {
            owned.forEach(n -> shards.add(n.asInt()));
        }
        return shards;
    }

    /** Every job this instance printed so far, oldest first. */
    public List<Delivery> deliveries() {
        return new ArrayList<>(deliveries);
    }

    /** How many lines of output were read so far. */
    public long lineCount() {
        return lines.get();
    }

    /** The numbers of the output lines that logged an owner epoch taken (the instance gained a shard). */
    public List<Long> epochsTaken() {
        return new ArrayList<>(epochsTaken);
    }

    /** How many jobs this instance printed so far (cheap: poll this, then look at {@link #deliveries()}). */
    public int deliveryCount() {
        return deliveryCount.get();
    }

    /**
     * {@code kill -STOP}: the JVM freezes where it is (as in a long GC pause) and its ZooKeeper session expires
     * once the session timeout passes; {@link #resume()} wakes it.
     */
    public void pause() {
        signal("-STOP");
    }

    /** {@code kill -CONT}: a paused JVM goes on where it stopped. */
    public void resume() {
        signal("-CONT");
    }

    private void signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", signal, Long.toString(process.pid()))
                    .redirectErrorStream(true)
                    .start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill " + signal + " " + process.pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** {@code kill -9}: no shutdown hook, no flush, no hand-over. */
    public void kill() {
        process.toHandle().destroyForcibly();
        awaitExit(Duration.ofSeconds(30));
    }

    /** SIGTERM: Spring's graceful shutdown (the engine stops scanning and hands its shards over). */
    public void stop() {
        process.toHandle().destroy();
        awaitExit(Duration.ofSeconds(60));
    }

    private void awaitExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.toHandle().destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
            // the last lines it printed: the signals go through the process handle, because Process.destroy and
            // destroyForcibly also close this side of the output pipe, and jobs printed but not read yet were lost
            reader.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            try {
                resume(); // a paused JVM is killed all the same, but let it not linger stopped if that fails
            } catch (RuntimeException exited) {
                // it exited meanwhile
            }
            kill();
        }
    }

    /** The {@code executeAt} of a printed job, or -1 when the line has none. */
    private static long executeAt(String line) {
        int at = line.indexOf(DUE_FIELD);
        if (at < 0) {
            return -1;
        }
        int from = at + DUE_FIELD.length();
        int to = from;
        while (to < line.length() && Character.isDigit(line.charAt(to))) {
            to++;
        }
        return to > from ? Long.parseLong(line.substring(from, to)) : -1;
    }
}
