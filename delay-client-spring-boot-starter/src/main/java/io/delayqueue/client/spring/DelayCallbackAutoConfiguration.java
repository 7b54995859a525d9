package io.delayqueue.client.spring;

import java.util.Map;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.web.servlet.handler.SimpleUrlHandlerMapping;

/**
 * The receiver of {@link DelayCallback} methods at {@code delay.client.callback.path}, in a servlet application with
 * Spring MVC: a plain {@link org.springframework.web.HttpRequestHandler} mapped to the path (no controller
 * annotation, so that a component scan finds nothing of it).
 */
@AutoConfiguration(after = DelayClientAutoConfiguration.class)
@ConditionalOnProperty(prefix = "delay.client", name = "url")
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(name = "org.springframework.web.servlet.DispatcherServlet")
public class DelayCallbackAutoConfiguration {
    @Bean
    public DelayCallbackReceiver delayCallbackReceiver(DelayHandlerMethods methods, DelayClientProperties properties) {
        return new DelayCallbackReceiver(methods, properties);
    }

    /** The path to the receiver, ahead of the application's own mappings (it answers that one path only). */
    @Bean
    public SimpleUrlHandlerMapping delayCallbackMapping(
            DelayCallbackReceiver receiver, DelayClientProperties properties) {
        return new SimpleUrlHandlerMapping(
                Map.of(properties.getCallback().getPath(), receiver), Ordered.HIGHEST_PRECEDENCE + 10);
    }
}
