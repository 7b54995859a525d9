package io.delayqueue.client.spring;

import io.delayqueue.client.DelayQueueClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The client in a Spring Boot application, once {@code delay.client.url} is set (a library that brings the starter
 * along changes nothing of an application that does not use it): a {@link DelayQueueClient} from {@code
 * delay.client.*} (unless the application makes its own) and a consumer per {@link DelayListener} method; {@link
 * DelayCallbackAutoConfiguration} adds the receiver of {@link DelayCallback} methods, {@link
 * DelayHealthAutoConfiguration} the health. Each is a top-level auto-configuration: an application that scans
 * {@code io.delayqueue} (the service itself, in one class path with the starter) does not pick them up.
 */
@AutoConfiguration
@ConditionalOnClass(DelayQueueClient.class)
@ConditionalOnProperty(prefix = "delay.client", name = "url")
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
}
