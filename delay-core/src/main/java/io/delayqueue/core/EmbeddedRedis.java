package io.delayqueue.core;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.embedded.RedisServer;

/**
 * A real redis-server (the binary shipped in {@code com.github.codemonstur:embedded-redis}) on a free
 * loopback port, for the default run when {@code delay.redis.uri} is unset. It keeps nothing on disk.
 */
public final class EmbeddedRedis implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EmbeddedRedis.class);

    private final RedisServer server;
    private final int port;

    public EmbeddedRedis() {
        this.port = freePort();
        try {
            this.server = RedisServer.newRedisServer()
                    .bind("127.0.0.1")
                    .port(port)
                    .setting("save \"\"")
                    .setting("appendonly no")
                    .build();
            server.start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start the embedded Redis", e);
        }
        log.info("embedded Redis started on 127.0.0.1:{} (set delay.redis.uri to use your own)", port);
    }

    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        try {
            server.stop();
        } catch (IOException e) {
            log.warn("embedded Redis did not stop cleanly: {}", e.toString());
        }
    }
}
