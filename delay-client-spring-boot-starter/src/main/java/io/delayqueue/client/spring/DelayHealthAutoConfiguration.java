package io.delayqueue.client.spring;

import io.delayqueue.client.DelayQueueClient;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/** {@code delayQueue} in the application's health, when the actuator is there. */
@AutoConfiguration(after = DelayClientAutoConfiguration.class)
@ConditionalOnProperty(prefix = "delay.client", name = "url")
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnEnabledHealthIndicator("delayQueue")
public class DelayHealthAutoConfiguration {
    @Bean
    @ConditionalOnMissingBean(name = "delayQueueHealthIndicator")
    public DelayQueueHealthIndicator delayQueueHealthIndicator(
            DelayQueueClient client, DelayClientProperties properties) {
        return new DelayQueueHealthIndicator(client, properties);
    }
}
