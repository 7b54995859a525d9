package io.delayqueue.queue.dispatch.rocketmq;

import java.time.Duration;

/**
 * Settings of the RocketMQ dispatcher. The {@code DEFAULT_*} constants are the one source of the defaults.
 *
 * @param namesrv name server address(es), {@code host:port[;host:port]}
 * @param producerGroup the producer group the service sends as
 * @param sendTimeout longest a send may take, the client's own retries included
 * @param retries how many times the client itself tries another broker within one send
 * @param threads sends running at once
 * @param maxPending sends waiting for a thread; more are put back unsent
 */
public record RocketMqSettings(
        String namesrv, String producerGroup, Duration sendTimeout, int retries, int threads, int maxPending) {
    public static final String DEFAULT_PRODUCER_GROUP = "delay-queue";
    public static final Duration DEFAULT_SEND_TIMEOUT = Duration.ofSeconds(3);
    public static final int DEFAULT_RETRIES = 2;
    public static final int DEFAULT_THREADS = 8;
    public static final int DEFAULT_MAX_PENDING = 2000;

    public RocketMqSettings {
        if (namesrv == null || namesrv.isBlank()) {
            throw new IllegalArgumentException("delay.rocketmq.namesrv must name the name server(s), host:port");
        }
        if (producerGroup == null || producerGroup.isBlank()) {
            throw new IllegalArgumentException("delay.rocketmq.producer-group must not be empty");
        }
        if (sendTimeout == null || sendTimeout.isNegative() || sendTimeout.isZero()) {
            throw new IllegalArgumentException("delay.rocketmq.send-timeout must be positive");
        }
        if (retries < 0 || threads < 1 || maxPending < 1) {
            throw new IllegalArgumentException(
                    "delay.rocketmq: retries must not be negative, threads and max-pending must be at least 1");
        }
    }

    public static RocketMqSettings defaults(String namesrv) {
        return new RocketMqSettings(
                namesrv,
                DEFAULT_PRODUCER_GROUP,
                DEFAULT_SEND_TIMEOUT,
                DEFAULT_RETRIES,
                DEFAULT_THREADS,
                DEFAULT_MAX_PENDING);
    }
}
