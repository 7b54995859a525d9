package io.delayqueue.e2e.support;

import io.delayqueue.queue.testing.RedisFixture;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * The machine's Redis ({@link RedisFixture}'s) for a Spring application under test: each test class works
 * under a prefix of its own and deletes its keys afterwards.
 */
public final class TestRedis {
    public static final String HOST = RedisFixture.HOST;
    public static final int PORT = RedisFixture.PORT;
    public static final String URI = "redis://" + HOST + ":" + PORT;

    private TestRedis() {}

    /** A key prefix no other run uses, e.g. {@code e2e-http-3f2a...}. */
    public static String uniquePrefix(String name) {
        return "e2e-" + name + "-" + UUID.randomUUID();
    }

    /** Points the application at the machine's Redis under {@code prefix}; fails at once when it is down. */
    public static void register(DynamicPropertyRegistry registry, String prefix) {
        requireRunning();
        registry.add("delay.redis.uri", () -> URI);
        registry.add("delay.redis.prefix", () -> prefix);
    }

    private static void requireRunning() {
        try (Jedis jedis = new Jedis(HOST, PORT)) {
            jedis.ping();
        } catch (JedisConnectionException e) {
            throw new IllegalStateException(
                    "these tests need Redis on " + HOST + ":" + PORT + "; start it with: "
                            + "redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save \"\" --appendonly no",
                    e);
        }
    }

    /** Every key of the queue under {@code prefix} (they all start with the hash tag {@code {prefix:}). */
    public static List<String> keys(String prefix) {
        try (Jedis jedis = new Jedis(HOST, PORT)) {
            return scan(jedis, prefix);
        }
    }

    /** Unlinks every key under {@code prefix}; returns how many there were. */
    public static int deleteKeys(String prefix) {
        try (Jedis jedis = new Jedis(HOST, PORT)) {
            List<String> keys = scan(jedis, prefix);
            for (int i = 0; i < keys.size(); i += 500) {
                jedis.unlink(keys.subList(i, Math.min(keys.size(), i + 500)).toArray(String[]::new));
            }
            return keys.size();
        }
    }

    private static List<String> scan(Jedis jedis, String prefix) {
        if (prefix.contains("*") || prefix.contains("?") || prefix.contains("[")) {
            throw new IllegalArgumentException("prefix must not contain glob characters: " + prefix);
        }
        return RedisFixture.scanGlob(jedis, "{" + prefix + ":*");
    }

    /**
     * Deletes the keys under the test class's {@code static final String PREFIX} once the class is done.
     * Declare it with {@code @ExtendWith} <em>above</em> {@code @SpringBootTest}: extensions registered first
     * finish last, so this runs after Spring closed the (dirtied) application context and no engine of the
     * class can write again.
     */
    public static final class Cleanup implements AfterAllCallback {
        @Override
        public void afterAll(ExtensionContext context) throws Exception {
            String prefix = StaticResources.stringField(context.getRequiredTestClass(), "PREFIX");
            int deleted = deleteKeys(prefix);
            System.out.println("TestRedis: unlinked " + deleted + " keys under {" + prefix + ":*");
            List<String> left = keys(prefix);
            if (!left.isEmpty()) {
                throw new AssertionError("keys under " + prefix + " survived the clean-up: " + left);
            }
        }
    }
}
