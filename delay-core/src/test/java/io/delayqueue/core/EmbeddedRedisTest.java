package io.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.embedded.core.ExecutableProvider;

/** The embedded redis-server's life: what a dead service left is cleaned up, a dead server started again. */
class EmbeddedRedisTest {
    @TempDir
    Path home;

    @Test
    void a_redis_server_left_by_a_dead_service_is_killed_and_its_directory_removed() throws Exception {
        Path stale = Files.createDirectory(home.resolve("4242-stale"));
        Path binary =
                ExecutableProvider.newJarResourceProvider(stale.toFile()).get().toPath();
        int port = freePort();
        Process orphan = new ProcessBuilder(
                        binary.toString(), "--bind", "127.0.0.1", "--port", Integer.toString(port), "--save", "")
                .directory(stale.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        try {
            await("the orphan accepts connections")
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> pings(port));
            writeRecord(stale, deadPid(), "2026-01-01T00:00:00Z", orphan.pid());

            try (EmbeddedRedis redis = new EmbeddedRedis(home, () -> {})) {
                assertThat(orphan.waitFor(10, TimeUnit.SECONDS))
                        .as("the orphan was killed")
                        .isTrue();
                assertThat(stale).as("the dead service's directory").doesNotExist();
                assertThat(redis.dir()).as("the new instance's directory").isDirectory();
            }
        } finally {
            orphan.destroyForcibly();
        }
    }

    @Test
    void a_process_that_merely_has_the_recorded_pid_is_not_killed() throws Exception {
        Path stale = Files.createDirectory(home.resolve("4243-stale"));
        Process stranger = new ProcessBuilder("sleep", "60").start();
        try {
            writeRecord(stale, deadPid(), "2026-01-01T00:00:00Z", stranger.pid());

            assertThat(EmbeddedRedisHome.cleanUpStale(home)).isEqualTo(1);

            assertThat(stale).doesNotExist();
            assertThat(stranger.isAlive())
                    .as("a process not started from the directory")
                    .isTrue();
        } finally {
            stranger.destroyForcibly();
        }
    }

    @Test
    void the_directory_of_a_live_service_is_kept() throws Exception {
        Path live = Files.createDirectory(home.resolve("live"));
        ProcessHandle self = ProcessHandle.current();
        writeRecord(
                live,
                self.pid(),
                self.info().startInstant().map(Instant::toString).orElse(""),
                null);

        assertThat(EmbeddedRedisHome.cleanUpStale(home)).isZero();

        assertThat(live.resolve(EmbeddedRedisHome.RECORD)).exists();
    }

    @Test
    void a_redis_server_that_dies_is_started_again_on_the_same_port_and_the_listeners_are_told() throws Exception {
        CountDownLatch restarted = new CountDownLatch(1);
        try (EmbeddedRedis redis = new EmbeddedRedis(home, () -> {})) {
            redis.onRestart(restarted::countDown);
            URI uri = URI.create(redis.uri());
            try (Jedis jedis = new Jedis(uri.getHost(), uri.getPort())) {
                jedis.set("before", "1");
            }
            long first = redis.pid();

            ProcessHandle.of(first).orElseThrow().destroyForcibly();

            assertThat(restarted.await(20, TimeUnit.SECONDS))
                    .as("told of the restart")
                    .isTrue();
            assertThat(redis.pid()).isNotEqualTo(first);
            try (Jedis jedis = new Jedis(uri.getHost(), uri.getPort())) {
                assertThat(jedis.ping()).isEqualTo("PONG");
                assertThat(jedis.get("before"))
                        .as("a restarted server starts empty")
                        .isNull();
            }
        }
    }

    @Test
    void a_redis_server_that_keeps_dying_makes_it_give_up() throws Exception {
        CountDownLatch gaveUp = new CountDownLatch(1);
        AtomicInteger restarts = new AtomicInteger();
        try (EmbeddedRedis redis = new EmbeddedRedis(home, gaveUp::countDown)) {
            redis.onRestart(restarts::incrementAndGet);
            for (int kill = 0; kill <= EmbeddedRedis.MAX_RESTARTS && gaveUp.getCount() > 0; kill++) {
                int before = restarts.get();
                ProcessHandle.of(redis.pid()).orElseThrow().destroyForcibly();
                await("a restart or giving up")
                        .atMost(Duration.ofSeconds(20))
                        .until(() -> restarts.get() > before || gaveUp.getCount() == 0);
            }
            assertThat(gaveUp.await(20, TimeUnit.SECONDS)).as("gave up").isTrue();
            assertThat(restarts.get()).isEqualTo(EmbeddedRedis.MAX_RESTARTS);
        }
    }

    @Test
    void close_stops_the_server_and_removes_its_directory() throws Exception {
        EmbeddedRedis redis = new EmbeddedRedis(home, () -> {});
        ProcessHandle server = ProcessHandle.of(redis.pid()).orElseThrow();
        Path dir = redis.dir();

        redis.close();

        assertThat(server.isAlive()).isFalse();
        assertThat(dir).doesNotExist();
    }

    private static void writeRecord(Path dir, long servicePid, String serviceStart, Long redisPid) throws IOException {
        Properties p = new Properties();
        p.setProperty("service.pid", Long.toString(servicePid));
        p.setProperty("service.start", serviceStart);
        if (redisPid != null) {
            p.setProperty("redis.pid", Long.toString(redisPid));
        }
        try (OutputStream out = Files.newOutputStream(dir.resolve(EmbeddedRedisHome.RECORD))) {
            p.store(out, null);
        }
    }

    /** The pid of a process that has exited. */
    private static long deadPid() throws Exception {
        Process p = new ProcessBuilder("true").start();
        p.waitFor();
        return p.pid();
    }

    private static boolean pings(int port) {
        try (Jedis jedis = new Jedis("127.0.0.1", port)) {
            return "PONG".equals(jedis.ping());
        } catch (RuntimeException notYet) {
            return false;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
