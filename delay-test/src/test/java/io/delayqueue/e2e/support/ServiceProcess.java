package io.delayqueue.e2e.support;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The service as a separate JVM ({@code java -jar delay-core-exec.jar}, built by the reactor's package phase
 * before this module's tests run), with the console dispatcher: every JSON line it prints is one delivered
 * job, counted by id. Its whole output goes to a log file for post-mortems.
 */
public final class ServiceProcess implements AutoCloseable {
    public static final Path EXEC_JAR = Path.of("..", "delay-core", "target", "delay-core-exec.jar");

    private final String name;
    private final Process process;
    private final int port;
    private final Map<String, Integer> printed;
    private final Deque<String> tail = new ArrayDeque<>();
    private final List<String> infoLines = new ArrayList<>();
    /** Output lines other than printed jobs, the first 10,000. */
    private final List<String> logLines = new ArrayList<>();
    /**
     * Output lines that hold a job's JSON but are not one job's line (something else printed into it), or that
     * look like a job's line and do not parse: the first 100, for a post-mortem.
     */
    private final List<String> oddLines = new ArrayList<>();

    private final Thread reader;
    /** Why the reader stopped before the end of the output, if it did. */
    private volatile IOException outputFailure;

    private final Thread errorReader;
    /** The log file, written by both readers. */
    private final PrintWriter file;

    private ServiceProcess(String name, Process process, int port, Map<String, Integer> printed, Path log)
            throws IOException {
        this.name = name;
        this.process = process;
        this.port = port;
        this.printed = printed;
        this.file = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8));
        this.reader = new Thread(this::readOutput, "service-output-" + name);
        reader.setDaemon(true);
        reader.start();
        this.errorReader = new Thread(this::readErrors, "service-errors-" + name);
        errorReader.setDaemon(true);
        errorReader.start();
    }

    /**
     * Starts the service with {@code args} on a free port; every job it prints is counted into {@code printed}
     * (shared between runs, so that a restarted service adds to the same counts).
     */
    public static ServiceProcess start(String name, List<String> args, Map<String, Integer> printed) {
        return start(name, args, printed, null);
    }

    /**
     * As {@link #start(String, List, Map)}, in {@code workDir} (null: this JVM's): where the default journal
     * ({@code ./data/delay-queue.db}, a SQLite file) lives.
     */
    public static ServiceProcess start(String name, List<String> args, Map<String, Integer> printed, Path workDir) {
        return start(name, List.of(), args, printed, workDir);
    }

    /**
     * As {@link #start(String, List, Map, Path)}, as a terminal's shell starts {@code bin/run}: the JVM leads a
     * process group (and session) of its own, with SIGINT and SIGTERM at their default actions even when this
     * JVM was started with them ignored (a background job's). {@link #signalGroup} then signals the group, as a
     * Ctrl-C or {@code kill -TERM -<pgid>} does. Needs {@code setsid} (util-linux) and {@code env} of coreutils 8.31
     * or later on the PATH.
     */
    public static ServiceProcess startAsProcessGroup(
            String name, List<String> args, Map<String, Integer> printed, Path workDir) {
        // setsid execs in place (this JVM's child leads no group), and so does env: the pid is the JVM's and the
        // group's
        return start(name, List.of("setsid", "env", "--default-signal=INT,TERM"), args, printed, workDir);
    }

    private static ServiceProcess start(
            String name, List<String> launcher, List<String> args, Map<String, Integer> printed, Path workDir) {
        if (!Files.isRegularFile(EXEC_JAR)) {
            throw new IllegalStateException(
                    EXEC_JAR.toAbsolutePath()
                            + " is missing: run the reactor build (mvn -pl delay-test -am verify) so that delay-core is packaged");
        }
        int port = freePort();
        List<String> command = new ArrayList<>(launcher);
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-Xmx384m");
        command.add("-jar");
        command.add(EXEC_JAR.toAbsolutePath().toString());
        command.add("--server.port=" + port);
        command.addAll(withoutWarmUp(args));
        return start(name, command, port, printed, workDir);
    }

    /**
     * {@code args} with {@code --delay.warm-up.enabled=false} unless they set it: a test's service starts without the
     * start-up warm-up (seconds on every start), as the tests in this JVM do ({@code config/application.properties}).
     */
    static List<String> withoutWarmUp(List<String> args) {
        if (args.stream().anyMatch(a -> a.startsWith("--delay.warm-up.enabled="))) {
            return args;
        }
        List<String> all = new ArrayList<>(args);
        all.add("--delay.warm-up.enabled=false");
        return all;
    }

    /**
     * Runs {@code command} (any program that prints jobs as the console dispatcher does) as {@link #start} runs the
     * service; for tests of this class.
     */
    static ServiceProcess startCommand(String name, List<String> command, Map<String, Integer> printed) {
        return start(name, command, -1, printed, null);
    }

    private static ServiceProcess start(
            String name, List<String> command, int port, Map<String, Integer> printed, Path workDir) {
        Path log = Path.of("target", "service-" + name + ".log");
        try {
            Files.createDirectories(log.getParent());
            // Standard error apart from standard output, which carries the jobs: the JVM writes its own warnings
            // to standard error in several pieces, and a job's line written between two of them would be cut
            // off from the start of its line and not counted.
            ProcessBuilder builder = new ProcessBuilder(command);
            if (workDir != null) {
                builder.directory(workDir.toFile());
            }
            Process p = builder.start();
            try {
                return new ServiceProcess(name, p, port, printed, log);
            } catch (IOException e) {
                p.toHandle().destroyForcibly();
                throw e;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + command, e);
        }
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void readOutput() {
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                log(line);
                if (line.contains(JOB_START) && countJobs(line)) {
                    continue;
                }
                remember(line);
            }
        } catch (IOException e) {
            // the output broke off before its end: jobs printed after what was read are not counted
            outputFailure = e;
        } finally {
            synchronized (file) {
                file.flush();
            }
        }
    }

    private static final String JOB_START = "{\"id\":";
    /** Reads a line that is one JSON object and nothing else. */
    private static final ObjectReader ONE_OBJECT =
            Api.JSON.readerFor(JsonNode.class).with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    /**
     * Counts the jobs printed in {@code line}: normally the line is one job's JSON; a line that holds more, or
     * something else besides, is kept in {@link #oddLines()} and each job found in it still counts (the service
     * printed it). {@code false} when the line holds no job.
     */
    private boolean countJobs(String line) {
        List<String> ids = new ArrayList<>();
        boolean clean = false;
        try {
            if (line.startsWith(JOB_START)) {
                JsonNode whole = ONE_OBJECT.readValue(line);
                if (whole.hasNonNull("id")) {
                    ids.add(whole.get("id").asText());
                    clean = true;
                }
            }
        } catch (IOException notOneObject) {
            // looked at piece by piece below
        }
        if (!clean) {
            ids.clear();
            for (int at = line.indexOf(JOB_START); at >= 0; at = line.indexOf(JOB_START, at + 1)) {
                try (JsonParser parser = Api.JSON.getFactory().createParser(line.substring(at))) {
                    JsonNode job = Api.JSON.readTree(parser);
                    // the console's line of a job, not a log message that happens to quote an id
                    if (job != null && job.hasNonNull("id") && job.has("topic") && job.has("status")) {
                        ids.add(job.get("id").asText());
                    }
                } catch (IOException cutOff) {
                    // not a whole job
                }
            }
            synchronized (tail) {
                if (oddLines.size() < 100) {
                    oddLines.add(line);
                }
            }
        }
        ids.forEach(id -> printed.merge(id, 1, Integer::sum));
        return !ids.isEmpty();
    }

    private void readErrors() {
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                log("[stderr] " + line);
                remember("[stderr] " + line);
            }
        } catch (IOException e) {
            // the process died
        } finally {
            synchronized (file) {
                file.flush();
            }
        }
    }

    private void log(String line) {
        synchronized (file) {
            file.println(line);
        }
    }

    private void remember(String line) {
        synchronized (tail) {
            tail.addLast(line);
            if (tail.size() > 60) {
                tail.removeFirst();
            }
            if (line.contains("restored from the journal")) {
                infoLines.add(line);
            }
            if (logLines.size() < 10_000) {
                logLines.add(line);
            }
        }
    }

    /** The service JVM's process id. */
    public long pid() {
        return process.pid();
    }

    public int port() {
        return port;
    }

    public Api api() {
        return new Api(port);
    }

    /** Waits until {@code /actuator/health} answers UP; fails with the output's tail if the JVM exits. */
    public void awaitUp(Duration timeout) {
        Api api = api();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (!process.isAlive()) {
                throw new AssertionError(
                        name + " exited with " + process.exitValue() + " before it was up:\n" + tail());
            }
            try {
                Api.Response r = api.get("/actuator/health");
                if (r.status() == 200 && "UP".equals(r.json().path("status").asText())) {
                    return;
                }
            } catch (RuntimeException notYet) {
                // not listening yet
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new AssertionError(name + " did not come up within " + timeout.toMillis() + " ms:\n" + tail());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
    }

    /**
     * {@code kill -9}: no shutdown hook, no flush, nothing. Returns once the output is read to its end, so that
     * every job the service printed before it died is counted.
     *
     * <p>The signal goes through the process handle, not {@link Process#destroyForcibly()}: that one also closes
     * this side of the output pipe, and what the service had printed and the reader not read yet (jobs delivered,
     * acknowledged, and never delivered again) was thrown away and counted as lost.
     */
    public void kill() throws InterruptedException {
        process.toHandle().destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new AssertionError(name + " survived kill -9 for 30 s");
        }
        joinReaders();
        if (reader.isAlive() || outputFailure != null) {
            throw new AssertionError(
                    name + " was killed and its output was not read to its end (within 30 s)", outputFailure);
        }
    }

    private void joinReaders() throws InterruptedException {
        reader.join(TimeUnit.SECONDS.toMillis(30));
        errorReader.join(TimeUnit.SECONDS.toMillis(30));
        synchronized (file) {
            file.flush();
        }
    }

    /** Sends {@code signal} ({@code INT}, {@code TERM}) to the process group of a {@link #startAsProcessGroup}. */
    public void signalGroup(String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-s", signal, "--", "-" + process.pid())
                .redirectErrorStream(true)
                .start();
        String said = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (kill.waitFor() != 0) {
            throw new IllegalStateException("kill -s " + signal + " -- -" + process.pid() + " failed: " + said);
        }
    }

    /**
     * Waits until the JVM exits on its own and its output is read to its end; its exit status. Fails with the
     * output's tail when it runs on past {@code timeout}.
     */
    public int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError(name + " did not exit within " + timeout.toMillis() + " ms:\n" + tail());
        }
        joinReaders();
        return process.exitValue();
    }

    /** Output lines other than printed jobs (standard error's marked {@code [stderr]}), the first 10,000. */
    public List<String> logLines() {
        synchronized (tail) {
            return new ArrayList<>(logLines);
        }
    }

    /**
     * Output lines that held a job's JSON along with something else, or that looked like a job's line and did
     * not parse (the jobs found in them are counted all the same).
     */
    public List<String> oddLines() {
        synchronized (tail) {
            return new ArrayList<>(oddLines);
        }
    }

    /** Output lines (other than printed jobs) that contain {@code text}. */
    public List<String> linesContaining(String text) {
        synchronized (tail) {
            return logLines.stream().filter(l -> l.contains(text)).toList();
        }
    }

    /** Output lines mentioning a restore from the journal. */
    public List<String> restoreLines() {
        synchronized (tail) {
            return new ArrayList<>(infoLines);
        }
    }

    public String tail() {
        synchronized (tail) {
            return String.join("\n", tail);
        }
    }

    /**
     * Sends SIGTERM (a graceful stop) and waits up to {@code within} for the process to end; {@link #close()} still
     * reads its output to the end (and kills it if it is still alive).
     *
     * @return whether it ended within {@code within}
     */
    public boolean terminate(Duration within) throws InterruptedException {
        process.toHandle().destroy();
        return process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * A graceful stop (SIGTERM), then kill -9 if it takes over 30 s; the output is read to its end (the signals go
     * through the process handle, see {@link #kill()}).
     */
    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.toHandle().destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.toHandle().destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
        joinReaders();
        synchronized (file) {
            file.close();
        }
    }

    /** A map to count printed jobs into, safe for the reader threads of several runs. */
    public static Map<String, Integer> newCounts() {
        return new ConcurrentHashMap<>();
    }
}
