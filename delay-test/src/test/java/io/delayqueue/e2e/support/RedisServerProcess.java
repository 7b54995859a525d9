package io.delayqueue.e2e.support;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * A {@code redis-server} (Debian's, on the PATH; {@code bin/services} installs it) started by a test on a
 * loopback port with a temporary directory, for the Redis Cluster and Sentinel tests. {@link #kill()} is
 * {@code kill -9}; {@link #close()} kills it and deletes the directory.
 */
public final class RedisServerProcess implements AutoCloseable {
    private final int port;
    private final Path dir;
    private final Process process;

    private RedisServerProcess(int port, Path dir, Process process) {
        this.port = port;
        this.dir = dir;
        this.process = process;
    }

    /** {@code redis-server [config file] --port <port> <args>}, no persistence, logging to its directory. */
    public static RedisServerProcess start(String name, Path configFile, List<String> args) {
        int port = HaServiceProcess.freePort();
        try {
            Path dir = Files.createTempDirectory("redis-" + name + "-");
            List<String> command = new ArrayList<>();
            command.add("redis-server");
            if (configFile != null) {
                command.add(configFile.toString());
            }
            command.addAll(List.of(
                    "--port", Integer.toString(port),
                    "--bind", "127.0.0.1",
                    "--dir", dir.toString(),
                    "--save", "",
                    "--appendonly", "no",
                    "--daemonize", "no"));
            command.addAll(args);
            Process p = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("redis.log").toFile())
                    .start();
            RedisServerProcess server = new RedisServerProcess(port, dir, p);
            server.awaitPing(Duration.ofSeconds(20));
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "could not start redis-server (bin/services installs it: apt-get install redis-server)", e);
        }
    }

    public int port() {
        return port;
    }

    public Path dir() {
        return dir;
    }

    public String hostAndPort() {
        return "127.0.0.1:" + port;
    }

    public Jedis connect() {
        return new Jedis("127.0.0.1", port);
    }

    private void awaitPing(Duration timeout) {
        await("redis-server answers on " + port).atMost(timeout).until(() -> {
            if (!process.isAlive()) {
                throw new AssertionError("redis-server on " + port + " exited; see " + dir.resolve("redis.log"));
            }
            try (Jedis jedis = connect()) {
                return "PONG".equals(jedis.ping());
            } catch (JedisConnectionException notYet) {
                return false;
            }
        });
    }

    /** {@code kill -9}. */
    public void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        kill();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            // a temporary directory left behind
        }
    }
}
