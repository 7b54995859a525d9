package io.delayqueue.core;

import io.delayqueue.queue.engine.DelayQueueEngine;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;
import org.springframework.stereotype.Component;
import redis.clients.jedis.UnifiedJedis;

/** {@code /actuator/health}: Redis answers PING and the engine is running. */
@Component("delayQueue")
public class RedisHealthIndicator extends AbstractHealthIndicator {
    private final UnifiedJedis redis;
    private final DelayQueueEngine engine;

    public RedisHealthIndicator(UnifiedJedis redis, DelayQueueEngine engine) {
        this.redis = redis;
        this.engine = engine;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        String pong = redis.ping();
        builder.withDetail("redis", pong).withDetail("engine", engine.isRunning() ? "running" : "stopped");
        if ("PONG".equals(pong) && engine.isRunning()) {
            builder.up();
        } else {
            builder.down();
        }
    }
}
