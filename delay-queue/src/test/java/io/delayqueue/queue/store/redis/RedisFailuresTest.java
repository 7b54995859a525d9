package io.delayqueue.queue.store.redis;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayqueue.common.DelayQueueException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.exceptions.JedisBusyException;
import redis.clients.jedis.exceptions.JedisClusterException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/** Which Redis failures are "not now" (a 503, a 202 after a commit) and which are a bug of the store (a 500). */
class RedisFailuresTest {

    /** Replies as Redis 7 words them, plain and quoted in a script's error. */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSCRIPT.",
                "LOADING Redis is loading the dataset in memory",
                "READONLY You can't write against a read only replica.",
                "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.",
                "CLUSTERDOWN The cluster is down",
                "TRYAGAIN Multiple keys request during rehashing of slot",
                "NOREPLICAS Not enough good replicas to write.",
                "OOM command not allowed when used memory > 'maxmemory'.",
                "ERR max number of clients reached",
                "ERR Error running script (call to f_0d1e): @user_script:12: -READONLY You can't write against a read"
                        + " only replica.",
                "OOM command not allowed when used memory > 'maxmemory'. script: 0d1e, on @user_script:12."
            })
    void a_redis_that_cannot_take_the_command_now_is_unavailable(String reply) {
        assertThatThrownBy(() -> RedisFailures.call(() -> {
                    throw new JedisDataException(reply);
                }))
                .isInstanceOf(DelayQueueException.Unavailable.class)
                .hasMessageContaining(reply);
    }

    @Test
    void busy_and_cluster_down_replies_by_their_type_are_unavailable() {
        assertThatThrownBy(() -> RedisFailures.call(() -> {
                    throw new JedisBusyException("BUSY");
                }))
                .isInstanceOf(DelayQueueException.Unavailable.class);
        assertThatThrownBy(() -> RedisFailures.call(() -> {
                    throw new JedisClusterException("CLUSTERDOWN Hash slot not served");
                }))
                .isInstanceOf(DelayQueueException.Unavailable.class);
        assertThatThrownBy(() -> RedisFailures.call(() -> {
                    throw new JedisConnectionException("refused");
                }))
                .isInstanceOf(DelayQueueException.Unavailable.class);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "ERR wrong number of arguments for 'evalsha' command",
                "ERR user_script:3: attempt to compare nil with number script: 0d1e, on @user_script:3.",
                "WRONGTYPE Operation against a key holding the wrong kind of value script: 0d1e, on @user_script:5."
            })
    void a_command_redis_refuses_as_wrong_is_a_bug_of_the_store(String reply) {
        assertThatThrownBy(() -> RedisFailures.call(() -> {
                    throw new JedisDataException(reply);
                }))
                .isInstanceOf(IllegalStateException.class);
    }
}
