package io.delayqueue.client.spring;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/**
 * {@code delayQueue} in the application's health: up when the service answers its own health check ({@code GET
 * /actuator/health}) with 200, down with the status it answered, or why it could not be reached. Adds the
 * service's URL; never its token.
 */
public class DelayQueueHealthIndicator extends AbstractHealthIndicator {
    private final URI health;
    private final Duration timeout;
    private final HttpClient http;

    public DelayQueueHealthIndicator(DelayClientProperties properties) {
        super("the delay-queue service could not be reached");
        String base = properties.getUrl().endsWith("/")
                ? properties.getUrl().substring(0, properties.getUrl().length() - 1)
                : properties.getUrl();
        this.health = URI.create(base + "/actuator/health");
        this.timeout = properties.getRequestTimeout();
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(properties.getConnectTimeout())
                .build();
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) throws Exception {
        HttpResponse<Void> answer = http.send(
                HttpRequest.newBuilder(health).timeout(timeout).GET().build(), HttpResponse.BodyHandlers.discarding());
        builder.withDetail("url", health.toString()).withDetail("status", answer.statusCode());
        if (answer.statusCode() == 200) {
            builder.up();
        } else {
            builder.down();
        }
    }
}
