package io.delayqueue.config;

import io.delayqueue.queue.dispatch.rocketmq.RocketMqSettings;
import java.time.Duration;

/** The RocketMQ dispatcher ({@code rocketmq}); created only when {@code namesrv} is set. */
public class RocketMqProperties {
    /** Name server address(es), {@code host:port[;host:port]}. */
    private String namesrv;

    /** Producer group the service sends as. */
    private String producerGroup = RocketMqSettings.DEFAULT_PRODUCER_GROUP;

    /** Longest a send may take, the client's own retries included; keep it well below the dispatch timeout. */
    private Duration sendTimeout = RocketMqSettings.DEFAULT_SEND_TIMEOUT;

    /** Times the client itself tries another broker within one send. */
    private int retries = RocketMqSettings.DEFAULT_RETRIES;

    /** Sends running at once. */
    private int threads = RocketMqSettings.DEFAULT_THREADS;

    /** Sends waiting for a thread; more are put back unsent for a moment. */
    private int maxPending = RocketMqSettings.DEFAULT_MAX_PENDING;

    public RocketMqSettings toSettings() {
        return new RocketMqSettings(namesrv, producerGroup, sendTimeout, retries, threads, maxPending);
    }

    public String getNamesrv() {
        return namesrv;
    }

    public void setNamesrv(String namesrv) {
        this.namesrv = namesrv;
    }

    public String getProducerGroup() {
        return producerGroup;
    }

    public void setProducerGroup(String producerGroup) {
        this.producerGroup = producerGroup;
    }

    public Duration getSendTimeout() {
        return sendTimeout;
    }

    public void setSendTimeout(Duration sendTimeout) {
        this.sendTimeout = sendTimeout;
    }

    public int getRetries() {
        return retries;
    }

    public void setRetries(int retries) {
        this.retries = retries;
    }

    public int getThreads() {
        return threads;
    }

    public void setThreads(int threads) {
        this.threads = threads;
    }

    public int getMaxPending() {
        return maxPending;
    }

    public void setMaxPending(int maxPending) {
        this.maxPending = maxPending;
    }
}
