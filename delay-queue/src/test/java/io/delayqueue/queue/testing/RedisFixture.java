package io.delayqueue.queue.testing;

import io.delayqueue.queue.store.JobStore;
import io.delayqueue.queue.store.redis.RedisJobStore;
import io.delayqueue.queue.store.redis.RedisKeys;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.commands.KeyCommands;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * The Redis on 127.0.0.1:6379 under a key prefix of its own ({@code t-<uuid>}, or {@code t-<label>-<uuid>}),
 * so that tests never see each other's keys; {@link #close()} removes every key of the prefix. A service under
 * test (in this JVM or another) is pointed at {@link #URI} with {@link #prefix()}.
 */
public final class RedisFixture implements AutoCloseable {
    public static final String HOST = "127.0.0.1";
    public static final int PORT = 6379;
    public static final String URI = "redis://" + HOST + ":" + PORT;

    private final JedisPooled redis = new JedisPooled(HOST, PORT);
    private final String prefix;
    private final RedisKeys keys;

    public RedisFixture() {
        this("t-" + UUID.randomUUID());
    }

    private RedisFixture(String prefix) {
        this.prefix = prefix;
        this.keys = new RedisKeys(prefix);
    }

    /**
     * A fixture whose prefix names the test ({@code t-<label>-<uuid>}); fails at once, saying how to start
     * Redis, when it is down.
     */
    public static RedisFixture labelled(String label) {
        if (label.contains("*") || label.contains("?") || label.contains("[")) {
            throw new IllegalArgumentException("a prefix must not contain glob characters: " + label);
        }
        RedisFixture fixture = new RedisFixture("t-" + label + "-" + UUID.randomUUID());
        try {
            fixture.redis.ping();
        } catch (JedisConnectionException e) {
            fixture.redis.close();
            throw new IllegalStateException(
                    "these tests need Redis on " + HOST + ":" + PORT + "; start it with: "
                            + "redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save \"\" --appendonly no",
                    e);
        }
        return fixture;
    }

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

    /**
     * {@link #store}, its shards marked as agreeing with the journal ({@link #agreed}), so that a test may move and
     * reserve jobs through the store alone.
     */
    public RedisJobStore agreedStore(int shards, Duration retention) {
        return agreed(store(shards, retention));
    }

    /**
     * {@code store} with every shard's Redis master marked as replayed onto, as an engine's first move does on a new
     * master (the fail-over protocol), for tests that move and reserve jobs through a store without an engine.
     */
    public static <S extends JobStore> S agreed(S store) {
        for (int shard = 0; shard < store.shards(); shard++) {
            store.markReplayed(shard, store.masterState(shard).masterId());
        }
        return store;
    }

    /** Every key of the prefix, dumped ({@code DUMP}): what {@link #restoreDumps} puts back. */
    public Map<byte[], byte[]> dumpAll() {
        Map<byte[], byte[]> dumps = new LinkedHashMap<>();
        for (String key : allKeys()) {
            byte[] name = key.getBytes(StandardCharsets.UTF_8);
            dumps.put(name, redis.dump(name));
        }
        return dumps;
    }

    /**
     * The prefix's keys become exactly those of {@code dumps}, as on a replica promoted before it took the writes made
     * since they were dumped.
     */
    public void restoreDumps(Map<byte[], byte[]> dumps) {
        deleteAllKeys();
        dumps.forEach((key, dump) -> redis.restore(key, 0, dump));
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

    /** Unlinks every key of the prefix (the queue's data is gone, as after a flush); returns how many there were. */
    public int deleteAllKeys() {
        List<String> all = allKeys();
        for (int i = 0; i < all.size(); i += 500) {
            redis.unlink(all.subList(i, Math.min(all.size(), i + 500)).toArray(String[]::new));
        }
        return all.size();
    }

    @Override
    public void close() {
        try {
            deleteAllKeys();
        } finally {
            redis.close();
        }
    }
}
