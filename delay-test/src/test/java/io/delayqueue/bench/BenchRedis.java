package io.delayqueue.bench;

import io.delayqueue.queue.testing.RedisFixture;
import java.util.List;
import java.util.UUID;
import redis.clients.jedis.Jedis;

/**
 * The benchmark's own connection to a Redis (the shared one on 127.0.0.1:6379, or a private server a peer
 * runs on), for what no system under test should measure itself: the server's version and memory, and the
 * keys a run leaves behind.
 */
final class BenchRedis implements AutoCloseable {
    static final String HOST = "127.0.0.1";
    static final int PORT = 6379;
    static final String URI = "redis://" + HOST + ":" + PORT;

    private final Jedis jedis;
    private final String uri;

    /** The shared Redis on 127.0.0.1:6379. */
    BenchRedis() {
        this(PORT);
    }

    /** A Redis on 127.0.0.1 at {@code port}. */
    BenchRedis(int port) {
        this.jedis = new Jedis(HOST, port, 60_000);
        this.uri = "redis://" + HOST + ":" + port;
    }

    /** The address a client of this Redis is given ({@code redis://host:port}). */
    String uri() {
        return uri;
    }

    String info(String section, String field) {
        for (String line : jedis.info(section).split("\r?\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1).trim();
            }
        }
        throw new IllegalStateException("INFO " + section + " has no " + field);
    }

    /** The fields of an {@code INFO} section ({@code used_cpu_sys}, {@code cmdstat_evalsha}, ...). */
    java.util.Map<String, String> infoSection(String section) {
        java.util.Map<String, String> fields = new java.util.LinkedHashMap<>();
        for (String line : jedis.info(section).split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#")) {
                fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
            }
        }
        return fields;
    }

    /** {@code CONFIG GET parameter}'s value. */
    String config(String parameter) {
        return jedis.configGet(parameter).get(parameter);
    }

    /** {@code INFO memory used_memory}, once memory freed in the background (UNLINK) is gone. */
    long usedMemory() throws InterruptedException {
        for (int i = 0; i < 600 && Long.parseLong(info("memory", "lazyfree_pending_objects")) > 0; i++) {
            Thread.sleep(50);
        }
        return Long.parseLong(info("memory", "used_memory"));
    }

    /** {@code ZCARD key}. */
    long zcard(String key) {
        return jedis.zcard(key);
    }

    /** Keys matching a glob, found with SCAN (never KEYS, which blocks the server). */
    List<String> keys(String glob) {
        return RedisFixture.scanGlob(jedis, glob);
    }

    /** The exact memory ({@code MEMORY USAGE key SAMPLES 0}) of the keys matching {@code glob}. */
    long memoryOfKeys(String glob) {
        long total = 0;
        for (String key : keys(glob)) {
            Long bytes = jedis.memoryUsage(key, 0);
            total += bytes == null ? 0 : bytes;
        }
        return total;
    }

    /** Unlinks the keys matching {@code glob}; returns how many there were. */
    int unlink(String glob) {
        if (glob.equals("*") || !glob.contains("bench")) {
            throw new IllegalArgumentException("refusing to unlink " + glob + ": not a benchmark's keys");
        }
        List<String> keys = keys(glob);
        for (int i = 0; i < keys.size(); i += 500) {
            jedis.unlink(keys.subList(i, Math.min(keys.size(), i + 500)).toArray(String[]::new));
        }
        return keys.size();
    }

    /** A unique, glob-free name for one run's keys. */
    static String uniqueName(String label) {
        return "bench-" + label + "-" + UUID.randomUUID().toString().substring(0, 13);
    }

    @Override
    public void close() {
        jedis.close();
    }
}
