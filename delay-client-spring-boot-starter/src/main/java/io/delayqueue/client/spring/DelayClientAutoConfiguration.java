package io.delayqueue.client.spring;

import io.delayqueue.client.DelayQueueClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The client in a Spring Boot application: a {@link DelayQueueClient} from {@code delay.client.*} (unless the
 * application makes its own), a consumer per {@link DelayListener} method, the receiver of {@link DelayCallback}
 * methods in a Spring MVC application, and {@code delayQueue} in the health when the actuator is there.
 */
@AutoConfiguration
@ConditionalOnClass(DelayQueueClient.class)
@EnableConfigurationProperties(DelayClientProperties.class)
public class DelayClientAutoConfiguration {
    @Bean
    @ConditionalOnMissingBean
    public DelayQueueClient delayQueueClient(DelayClientProperties properties) {
        DelayQueueClient.Builder builder = DelayQueueClient.builder(properties.getUrl())
                .connectTimeout(properties.getConnectTimeout())
                .requestTimeout(properties.getRequestTimeout())
                .retryPolicy(properties.getRetry().toPolicy());
        if (properties.getToken() != null && !properties.getToken().isBlank()) {
            builder.token(properties.getToken());
        }
        return builder.build();
    }

    /** Static and without dependencies: a bean post-processor is made before the beans it looks at. */
    @Bean
    public static DelayHandlerMethods delayHandlerMethods() {
        return new DelayHandlerMethods();
    }

    @Bean
    public DelayListeners delayListeners(
            DelayHandlerMethods methods, ObjectProvider<DelayQueueClient> client, DelayClientProperties properties) {
        return new DelayListeners(methods, client, properties);
    }

    /** The callback receiver, in a servlet application with Spring MVC. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass(name = "org.springframework.web.servlet.DispatcherServlet")
    static class Callbacks {
        @Bean
        public DelayCallbackReceiver delayCallbackReceiver(
                DelayHandlerMethods methods, DelayClientProperties properties) {
            return new DelayCallbackReceiver(methods, properties);
        }
    }

    /** {@code delayQueue} in the application's health. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    @ConditionalOnEnabledHealthIndicator("delayQueue")
    static class Health {
        @Bean
        @ConditionalOnMissingBean(name = "delayQueueHealthIndicator")
        public DelayQueueHealthIndicator delayQueueHealthIndicator(DelayClientProperties properties) {
            return new DelayQueueHealthIndicator(properties);
        }
    }
}
