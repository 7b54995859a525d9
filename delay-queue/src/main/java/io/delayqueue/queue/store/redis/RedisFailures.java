package io.delayqueue.queue.store.redis;

import io.delayqueue.common.DelayQueueException;
import java.util.function.Supplier;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * What a failed Redis command means to the store's callers: Redis refusing a command as wrong (an {@code ERR}
 * reply, or a script error) is a bug of the store, an {@link IllegalStateException}; any other failure (no
 * connection, a timeout, a busy or loading server) is {@link DelayQueueException.Unavailable}, which callers
 * may try again later. Stateless; every store command, script or plain, goes through {@link #call}.
 */
final class RedisFailures {
    private RedisFailures() {}

    static <T> T call(Supplier<T> action) {
        try {
            return action.get();
        } catch (JedisDataException e) {
            String m = String.valueOf(e.getMessage());
            if (m.startsWith("ERR") || m.contains("script")) {
                throw new IllegalStateException("Redis rejected a delay-queue command: " + m, e);
            }
            throw new DelayQueueException.Unavailable("Redis cannot take the request: " + m, e);
        } catch (JedisException e) {
            throw new DelayQueueException.Unavailable("Redis is unavailable: " + e.getMessage(), e);
        }
    }
}
