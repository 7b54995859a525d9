package io.delayqueue.queue.testing;

import io.delayqueue.queue.store.redis.RedisJobStore;
import io.delayqueue.queue.store.redis.RedisKeys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.commands.KeyCommands;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * The Redis on 127.0.0.1:6379 under a key prefix of its own ({@code t-<uuid>}), so that tests never see
 * each other's keys; {@link #close()} removes every key of the prefix.
 */
public final class RedisFixture implements AutoCloseable {
    public static final String HOST = "127.0.0.1";
    public static final int PORT = 6379;

    private final JedisPooled redis = new JedisPooled(HOST, PORT);
    private final String prefix = "t-" + UUID.randomUUID();
    private final RedisKeys keys = new RedisKeys(prefix);

    public JedisPooled redis() {
        return redis;
    }

    public String prefix() {
        return prefix;
    }

    public RedisKeys keys() {
        return keys;
    }

    /** A store on this prefix that leaves the connection pool open (the fixture closes it). */
    public RedisJobStore store(int shards, Duration retention) {
        return new RedisJobStore(redis, prefix, shards, retention, false);
    }

    /** Every key of the prefix, found with SCAN. */
    public List<String> allKeys() {
        return scanGlob(redis, keys.allKeysPattern());
    }

    /** Keys matching a glob, found with SCAN (never KEYS, which blocks the server). */
    public static List<String> scanGlob(KeyCommands redis, String glob) {
        List<String> found = new ArrayList<>();
        ScanParams params = new ScanParams().match(glob).count(1000);
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
            ScanResult<String> page = redis.scan(cursor, params);
            found.addAll(page.getResult());
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        return found;
    }

    @Override
    public void close() {
        try {
            List<String> all = allKeys();
            if (!all.isEmpty()) {
                redis.unlink(all.toArray(String[]::new));
            }
        } finally {
            redis.close();
        }
    }
}
