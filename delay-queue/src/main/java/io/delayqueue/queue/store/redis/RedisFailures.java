package io.delayqueue.queue.store.redis;

import io.delayqueue.common.DelayQueueException;
import java.util.List;
import java.util.function.Supplier;
import redis.clients.jedis.exceptions.JedisBusyException;
import redis.clients.jedis.exceptions.JedisClusterException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * What a failed Redis command means to the store's callers: Redis refusing a command as wrong (an {@code ERR}
 * reply, or a script error) is a bug of the store, an {@link IllegalStateException}; any other failure (no
 * connection, a timeout) and every reply by which Redis says "not now" ({@link #NOT_NOW}: a busy script, a
 * server loading its data, a read-only replica, a master down, a cluster down or migrating a slot, no
 * memory left, no client slot left) is {@link DelayQueueException.Unavailable}, which callers may try again
 * later: after a committed push, that is a 202 with the job's id, never a 500. Stateless; every store command,
 * script or plain, goes through {@link #call}.
 */
final class RedisFailures {
    /**
     * Error codes (the reply's first word, or the code of the command a script called, which Redis quotes in the
     * script's error) of a Redis that cannot take the command now and may later.
     */
    static final List<String> NOT_NOW =
            List.of("BUSY", "LOADING", "READONLY", "MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN", "NOREPLICAS", "OOM");

    /** An {@code ERR} reply that is a server's limit, not a wrong command. */
    private static final String NO_CLIENT_SLOT = "max number of clients reached";

    private RedisFailures() {}

    static <T> T call(Supplier<T> action) {
        try {
            return action.get();
        } catch (JedisDataException e) {
            String m = String.valueOf(e.getMessage());
            if (isNotNow(e, m)) {
                throw new DelayQueueException.Unavailable("Redis cannot take the request now: " + m, e);
            }
            if (m.startsWith("ERR") || m.contains("script")) {
                throw new IllegalStateException("Redis rejected a delay-queue command: " + m, e);
            }
            throw new DelayQueueException.Unavailable("Redis cannot take the request: " + m, e);
        } catch (JedisException e) {
            throw new DelayQueueException.Unavailable("Redis is unavailable: " + e.getMessage(), e);
        }
    }

    /**
     * Whether Redis answered "not now": its reply begins with one of {@link #NOT_NOW}, or a script's error quotes
     * one (Redis 7 prefixes the called command's error with {@code -}, or gives it as the script error's first
     * word), or no client slot was left.
     */
    static boolean isNotNow(JedisDataException e, String message) {
        if (e instanceof JedisBusyException || e instanceof JedisClusterException) {
            return true;
        }
        if (message.contains(NO_CLIENT_SLOT)) {
            return true;
        }
        for (String code : NOT_NOW) {
            if (message.startsWith(code + " ") || message.equals(code) || message.contains("-" + code + " ")) {
                return true;
            }
        }
        return false;
    }
}
