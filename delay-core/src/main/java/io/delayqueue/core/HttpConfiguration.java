package io.delayqueue.core;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayqueue.config.DelayProperties;
import io.delayqueue.config.SecurityProperties;
import io.delayqueue.controller.ApiExceptionHandler;
import io.delayqueue.controller.BrowserGuardValve;
import io.delayqueue.controller.CompletedFutureReturnValueHandler;
import io.delayqueue.controller.DirectPushFilter;
import io.delayqueue.controller.EnvelopeReturnValueHandler;
import io.delayqueue.controller.JobController;
import io.delayqueue.controller.JsonCorsProcessor;
import io.delayqueue.controller.JsonErrorReportValve;
import io.delayqueue.controller.StrictInputInterceptor;
import io.delayqueue.controller.TokenFilter;
import io.delayqueue.controller.Utf8WriterJsonFactory;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import org.apache.catalina.Valve;
import org.apache.catalina.core.StandardHost;
import org.apache.catalina.valves.ErrorReportValve;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.jackson.Jackson2ObjectMapperBuilderCustomizer;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.embedded.tomcat.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import org.springframework.http.converter.json.MappingJackson2HttpMessageConverter;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.handler.AbstractHandlerMapping;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;

/**
 * The HTTP layer's strictness: bodies must be JSON and query strings well-formed UTF-8 ({@link
 * StrictInputInterceptor}), Tomcat reports its own errors in the JSON envelope ({@link JsonErrorReportValve};
 * errors forwarded to {@code /error} are answered by the controller module's {@code ApiErrorController}), and
 * answers carry text exactly as it was pushed ({@link Utf8WriterJsonFactory}), and browsers are kept to what a web
 * page may do ({@link BrowserGuardValve}). An auto-configuration, for
 * servlet web applications only.
 */
@AutoConfiguration
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@EnableConfigurationProperties(DelayProperties.class)
public class HttpConfiguration implements WebMvcConfigurer {
    private static final Logger log = LoggerFactory.getLogger(HttpConfiguration.class);

    @Override
    public void addInterceptors(InterceptorRegistry registry) {
        registry.addInterceptor(new StrictInputInterceptor());
    }

    /**
     * No Bean Validation in Spring MVC: the handlers check their input themselves and answer 400 naming the
     * field. With a JSR-303 validator configured (Spring MVC sets one up whenever {@code jakarta.validation} is
     * on the class path, here through the API description's libraries), Spring MVC 6.1 looks up each handler
     * method's validation groups by scanning its annotations on every request: 4% of a push's CPU at 128
     * connections (JFR).
     */
    @Override
    public Validator getValidator() {
        return NO_BEAN_VALIDATION;
    }

    private static final Validator NO_BEAN_VALIDATION = new Validator() {
        @Override
        public boolean supports(Class<?> type) {
            return false;
        }

        @Override
        public void validate(Object target, Errors errors) {}
    };

    /** Answers carry non-ASCII text as its own UTF-8 bytes, emoji included ({@link Utf8WriterJsonFactory}). */
    @Bean
    public Jackson2ObjectMapperBuilderCustomizer utf8WriterJsonFactory() {
        return builder -> builder.factory(new Utf8WriterJsonFactory());
    }

    /** Every handler mapping refuses a CORS preflight in the envelope ({@link JsonCorsProcessor}). */
    @Bean
    public static BeanPostProcessor jsonCorsRefusals() {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String beanName) {
                if (bean instanceof AbstractHandlerMapping mapping) {
                    mapping.setCorsProcessor(new JsonCorsProcessor());
                }
                return bean;
            }
        };
    }

    /**
     * A handler's envelope is written straight as JSON, without content negotiation or chunked streaming ({@link
     * EnvelopeReturnValueHandler}), and a future a handler returns already complete (a pull answered at once) is
     * written on the request's thread, not through an async dispatch ({@link CompletedFutureReturnValueHandler}).
     */
    @Bean
    public static BeanPostProcessor envelopesWrittenDirectly() {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String beanName) {
                if (bean instanceof RequestMappingHandlerAdapter adapter && adapter.getReturnValueHandlers() != null) {
                    adapter.getMessageConverters().stream()
                            .filter(MappingJackson2HttpMessageConverter.class::isInstance)
                            .map(c -> ((MappingJackson2HttpMessageConverter) c).getObjectMapper())
                            .findFirst()
                            .ifPresent(json ->
                                    adapter.setReturnValueHandlers(CompletedFutureReturnValueHandler.installedFirst(
                                            adapter.getReturnValueHandlers(), json)));
                }
                return bean;
            }
        };
    }

    /**
     * {@code POST /push} answered by {@link DirectPushFilter}, without the dispatcher, first of the filters: it
     * checks the token itself where one is set, and times its requests into Spring's request timer ({@link
     * PushRequestTiming}).
     */
    @Bean
    public FilterRegistrationBean<DirectPushFilter> directPush(
            JobController jobs,
            ApiExceptionHandler errors,
            ObjectMapper json,
            ObjectProvider<MeterRegistry> meters,
            ObjectProvider<FilterRegistrationBean<TokenFilter>> tokens) {
        MeterRegistry registry = meters.getIfAvailable();
        FilterRegistrationBean<TokenFilter> token = tokens.getIfAvailable();
        FilterRegistrationBean<DirectPushFilter> registration = new FilterRegistrationBean<>(new DirectPushFilter(
                jobs,
                errors,
                new EnvelopeReturnValueHandler(json),
                registry == null ? DirectPushFilter.Timing.NONE : new PushRequestTiming(registry),
                token == null ? null : token.getFilter()));
        registration.addUrlPatterns(DirectPushFilter.PATH);
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
        return registration;
    }

    /**
     * {@link BrowserGuardValve} on the web application's context, before every filter: a {@code Host} the service
     * does not answer for ({@link SecurityProperties#answeredHosts}) is refused with 421, and another site's page
     * cannot change the queue (403). One line at start-up names the hosts answered.
     */
    @Bean
    public WebServerFactoryCustomizer<TomcatServletWebServerFactory> browserGuard(
            DelayProperties properties, Environment environment) {
        List<String> hosts = properties.getSecurity().answeredHosts(environment.getProperty("server.address"));
        if (hosts.contains("*")) {
            log.info("answering requests for any Host name: the token guards the API (delay.security.allowed-hosts"
                    + " limits the names)");
        } else {
            log.info(
                    "answering requests for IP addresses and Host names {} only (delay.security.allowed-hosts)",
                    String.join(", ", hosts));
        }
        return factory -> factory.addContextValves(new BrowserGuardValve(hosts));
    }

    /**
     * Puts {@link JsonErrorReportValve} on the host in place of Tomcat's HTML one. Unordered, so it runs after
     * Spring Boot's own customizer (order 0), which adds a plain {@link ErrorReportValve} that is removed here;
     * naming the class on the host keeps Tomcat from adding its default one at start.
     */
    @Bean
    public WebServerFactoryCustomizer<TomcatServletWebServerFactory> jsonErrorReports() {
        return factory -> factory.addContextCustomizers(context -> {
            StandardHost host = (StandardHost) context.getParent();
            for (Valve valve : host.getPipeline().getValves()) {
                if (valve instanceof ErrorReportValve) {
                    host.getPipeline().removeValve(valve);
                }
            }
            host.setErrorReportValveClass(JsonErrorReportValve.class.getName());
            host.getPipeline().addValve(new JsonErrorReportValve());
        });
    }
}
