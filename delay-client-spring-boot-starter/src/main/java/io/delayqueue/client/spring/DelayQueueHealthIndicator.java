package io.delayqueue.client.spring;

import io.delayqueue.client.DelayQueueClient;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/**
 * {@code delayQueue} in the application's health: up when the service's own health check ({@link
 * DelayQueueClient#health()}, one {@code GET /actuator/health}) says {@code UP}, down with the status it says, or
 * why it could not be reached. Adds the service's URL; never its token.
 */
public class DelayQueueHealthIndicator extends AbstractHealthIndicator {
    private final DelayQueueClient client;
    private final String url;

    public DelayQueueHealthIndicator(DelayQueueClient client, DelayClientProperties properties) {
        super("the delay-queue service could not be reached");
        this.client = client;
        this.url = properties.getUrl();
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        String status = client.health();
        builder.withDetail("url", url).withDetail("status", status);
        if ("UP".equals(status)) {
            builder.up();
        } else {
            builder.down();
        }
    }
}
