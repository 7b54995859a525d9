package io.delayqueue.core;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real redis-server (the binary shipped in {@code com.github.codemonstur:embedded-redis}) on a free
 * loopback port, for the default run when {@code delay.redis.uri} is unset. It keeps nothing on disk, and it
 * lives and dies with the service:
 *
 * <ul>
 *   <li>Each instance has a directory of its own under a per-user {@linkplain #defaultHome() home}, holding
 *       the binary and a record of who started it ({@code instance.properties}: the service's pid and start
 *       time, redis-server's pid). On start, every directory whose service is gone is cleaned up: its
 *       redis-server is killed if it is still running from that directory (so never someone else's process
 *       that reused the pid), and the directory removed. That is what a {@code kill -9} of the service left.
 *   <li>On Linux, redis-server is started through {@code setpriv --pdeathsig KILL}, so the kernel kills it
 *       when the service dies, even by {@code kill -9}. The parent-death signal follows the thread that
 *       started the process, so one supervisor thread, living as long as this object, starts it every time.
 *   <li>On Linux, redis-server runs in a session of its own ({@code setsid}): a Ctrl-C in the terminal (SIGINT to
 *       the foreground process group) or a SIGTERM to the service's process group reaches the service alone,
 *       which stops its engine first and redis-server last ({@link #close()}), instead of losing its Redis
 *       first and restarting it while it stops.
 *   <li>If redis-server dies while the service runs, the supervisor starts it again on the same port (the
 *       clients reconnect to it) and tells the {@linkplain #onRestart listeners}, which restore the queue from
 *       the journal. After {@value #MAX_RESTARTS} restarts within {@link #RESTART_WINDOW} it gives up and runs
 *       the give-up action (the service stops, with an error saying why). While the JVM shuts down (a shutdown
 *       hook tells), redis-server's exit is expected, not a crash: a stop that signals every process of the
 *       service at once (systemd's default, {@code KillMode=control-group}) stops it with the JVM, and it is
 *       neither restarted nor reported as an error.
 * </ul>
 *
 * <p>This class runs and restarts the process; {@link EmbeddedRedisHome} keeps the files. Threading: the
 * supervisor thread alone starts redis-server and reads its output; restart listeners and the give-up action
 * run on threads of their own; {@link #uri()}, {@link #onRestart} and {@link #close()} may be called from any
 * thread.
 */
public final class EmbeddedRedis implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EmbeddedRedis.class);

    static final int MAX_RESTARTS = 5;
    static final Duration RESTART_WINDOW = Duration.ofMinutes(1);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(20);
    private static final String READY = "Ready to accept connections";
    /** What redis-server prints when a SIGTERM or SIGINT tells it to stop ("Received SIGTERM scheduling ..."). */
    private static final Pattern STOP_SIGNAL = Pattern.compile("Received SIG(TERM|INT)");
    /**
     * How long a redis-server stopped by a signal waits for the JVM's shutdown to show (its hook runs on a thread
     * of its own, maybe after redis-server's exit is seen) before it counts as a crash.
     */
    private static final Duration STOP_SIGNAL_GRACE = Duration.ofSeconds(3);

    private final Path dir;
    private final Path executable;
    private final int port;
    private final Runnable giveUp;
    private final List<Runnable> restartListeners = new CopyOnWriteArrayList<>();
    private final CompletableFuture<Void> firstStart = new CompletableFuture<>();
    private final Deque<Instant> restarts = new ArrayDeque<>();
    private final Thread supervisor;
    private volatile Process process;
    private volatile boolean closing;
    /** The JVM is shutting down: set by {@link #jvmStopping}, a shutdown hook. */
    private final CountDownLatch stopping = new CountDownLatch(1);

    private final Thread jvmStopping = new Thread(stopping::countDown, "embedded-redis-jvm-stopping");

    /** In the {@linkplain #defaultHome() per-user home}; gives up by exiting the JVM with status 1. */
    public EmbeddedRedis() {
        this(defaultHome(), () -> System.exit(1));
    }

    /**
     * Cleans up what dead services left in {@code home}, then starts redis-server and waits until it accepts
     * connections.
     *
     * @param giveUp run (on a thread of its own) when redis-server keeps dying
     */
    public EmbeddedRedis(Path home, Runnable giveUp) {
        this.giveUp = giveUp;
        try {
            this.dir = EmbeddedRedisHome.createInstanceDirectory(home);
            this.executable = EmbeddedRedisHome.unpackServer(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("could not prepare the embedded Redis in " + home, e);
        }
        this.port = freePort();
        Runtime.getRuntime().addShutdownHook(jvmStopping);
        this.supervisor = new Thread(this::supervise, "embedded-redis-supervisor");
        supervisor.setDaemon(true);
        supervisor.start();
        try {
            firstStart.get(START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException | InterruptedException e) {
            close();
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            throw new IllegalStateException("could not start the embedded Redis: " + cause.getMessage(), cause);
        }
        log.info(
                "embedded Redis started on 127.0.0.1:{}, pid {} (set delay.redis.uri to use your own)",
                port,
                process.pid());
    }

    /** {@code <java.io.tmpdir>/delay-queue-<user>/embedded-redis}: where instances are kept and looked for. */
    public static Path defaultHome() {
        String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9._-]", "_");
        return Path.of(System.getProperty("java.io.tmpdir"), "delay-queue-" + user, "embedded-redis");
    }

    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    /** This instance's directory (binary and record), removed on {@link #close()}. */
    Path dir() {
        return dir;
    }

    /** The running redis-server's pid. */
    long pid() {
        return process.pid();
    }

    /**
     * Runs {@code listener} (on a thread of its own) each time redis-server was started again after it died:
     * it is empty then.
     */
    public void onRestart(Runnable listener) {
        restartListeners.add(listener);
    }

    // ---- the supervisor ----

    private void supervise() {
        boolean first = true;
        while (!closing) {
            Deque<String> output = new ArrayDeque<>();
            boolean ready = false;
            int exit;
            try {
                Process p = start();
                process = p;
                EmbeddedRedisHome.recordServer(dir, p.pid());
                // reads until redis-server exits (or is killed), which closes its output
                try (BufferedReader out =
                        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line = out.readLine(); line != null; line = out.readLine()) {
                        log.debug("redis-server: {}", line);
                        output.addLast(line);
                        if (output.size() > 20) {
                            output.removeFirst();
                        }
                        if (!ready && line.contains(READY)) {
                            ready = true;
                            if (first) {
                                firstStart.complete(null);
                            } else {
                                announceRestart();
                            }
                        }
                    }
                }
                exit = p.waitFor();
            } catch (IOException e) {
                output.addLast(e.toString());
                exit = -1;
            } catch (InterruptedException e) {
                return;
            }
            if (closing || stoppedWithTheJvm(output)) {
                log.debug("the embedded Redis on 127.0.0.1:{} stopped with the service (status {})", port, exit);
                firstStart.completeExceptionally(new IOException("the service is stopping"));
                return;
            }
            if (first && !ready) {
                firstStart.completeExceptionally(new IOException("redis-server exited with status " + exit
                        + " before it accepted connections: " + String.join(" | ", output)));
                return;
            }
            first = false;
            Instant now = Instant.now();
            restarts.addLast(now);
            while (restarts.peekFirst().isBefore(now.minus(RESTART_WINDOW))) {
                restarts.removeFirst();
            }
            if (restarts.size() > MAX_RESTARTS) {
                log.error(
                        "the embedded Redis on 127.0.0.1:{} died {} times within {} s (last status {}: {}); giving"
                                + " up and stopping the service. Set delay.redis.uri to use a Redis of your own",
                        port,
                        restarts.size(),
                        RESTART_WINDOW.toSeconds(),
                        exit,
                        String.join(" | ", output));
                Thread stop = new Thread(giveUp, "embedded-redis-give-up");
                stop.start();
                return;
            }
            log.error(
                    "the embedded Redis on 127.0.0.1:{} exited with status {}; starting it again, and the queue"
                            + " from the journal",
                    port,
                    exit);
            try {
                Thread.sleep(100L << Math.min(restarts.size() - 1, 4));
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /**
     * Whether redis-server's exit is part of the JVM's shutdown: the shutdown has begun, or redis-server was told
     * to stop by a signal and the shutdown begins within {@link #STOP_SIGNAL_GRACE} (one signal to every process
     * of the service reaches both at once).
     */
    private boolean stoppedWithTheJvm(Deque<String> output) {
        if (stopping.getCount() == 0) {
            return true;
        }
        if (output.stream().noneMatch(line -> STOP_SIGNAL.matcher(line).find())) {
            return false;
        }
        try {
            return stopping.await(STOP_SIGNAL_GRACE.toMillis(), TimeUnit.MILLISECONDS) || closing;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }

    private Process start() throws IOException {
        List<String> command = new ArrayList<>();
        EmbeddedRedisHome.utilLinux("setpriv")
                .ifPresent(setpriv -> command.addAll(List.of(setpriv, "--pdeathsig", "KILL", "--")));
        // setsid execs redis-server in place (the child of a JVM is no process group leader): same pid
        EmbeddedRedisHome.utilLinux("setsid").ifPresent(command::add);
        command.addAll(List.of(
                executable.toString(),
                "--bind",
                "127.0.0.1",
                "--port",
                Integer.toString(port),
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                dir.toString()));
        return new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .start();
    }

    private void announceRestart() {
        Thread t = new Thread(
                () -> {
                    for (Runnable listener : restartListeners) {
                        try {
                            listener.run();
                        } catch (RuntimeException e) {
                            log.error("a listener of the embedded Redis's restart failed", e);
                        }
                    }
                },
                "embedded-redis-restarted");
        t.setDaemon(true);
        t.start();
    }

    private static void stop(Process p) {
        if (p == null) {
            return;
        }
        p.destroy();
        try {
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Stops redis-server and removes this instance's directory. */
    @Override
    public void close() {
        closing = true;
        try {
            Runtime.getRuntime().removeShutdownHook(jvmStopping);
        } catch (IllegalStateException shuttingDown) {
            // the hook has run or runs now
        }
        // The supervisor may be starting a server again right now: stop whatever it runs until it is done.
        for (int round = 0; round < 3; round++) {
            stop(process);
            if (supervisor == null || Thread.currentThread() == supervisor || !supervisor.isAlive()) {
                break;
            }
            try {
                supervisor.join(TimeUnit.SECONDS.toMillis(2));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        try {
            if (dir != null) {
                EmbeddedRedisHome.deleteRecursively(dir);
            }
        } catch (IOException e) {
            log.warn("could not remove the embedded Redis's directory {}: {}", dir, e.toString());
        }
    }
}
