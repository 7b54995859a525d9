package io.delayqueue.core;

import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.env.EnvironmentPostProcessor;
import org.springframework.boot.web.context.WebServerInitializedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Safe by default: without {@code delay.security.token} the API takes pushes, deletes and clearAll from anyone who
 * reaches it, so unless an address is configured ({@code server.address}, {@code SERVER_ADDRESS}) the service
 * listens on the loopback address {@value #LOOPBACK} only. With the token set ({@link TokenConfigured}, the reading
 * the token check's bean takes too: blank or {@code false} is no token), or an address configured, it
 * listens where Spring Boot would ({@code server.address}, all addresses when unset). Once the web server is up,
 * one line says where it listens and why.
 *
 * <p>Registered in {@code META-INF/spring.factories}: as an {@link EnvironmentPostProcessor} (the default address,
 * the least precedent property source, before the context exists) and as an {@link ApplicationListener} (the
 * line). Threading: both run on the starting thread.
 */
public final class ListenAddress implements EnvironmentPostProcessor, ApplicationListener<WebServerInitializedEvent> {
    static final String LOOPBACK = "127.0.0.1";
    /** The property source that holds the default address, when it applies. */
    static final String SOURCE = "delay-queue-loopback-default";

    private static final Logger log = LoggerFactory.getLogger(ListenAddress.class);

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        if (!environment.containsProperty("server.address") && !TokenConfigured.isSet(environment)) {
            environment.getPropertySources().addLast(new MapPropertySource(SOURCE, Map.of("server.address", LOOPBACK)));
        }
    }

    @Override
    public void onApplicationEvent(WebServerInitializedEvent event) {
        if (event.getApplicationContext().getServerNamespace() != null) {
            return; // a management server of its own: not the API's
        }
        ConfigurableEnvironment environment =
                (ConfigurableEnvironment) event.getApplicationContext().getEnvironment();
        int port = event.getWebServer().getPort();
        if (environment.getPropertySources().contains(SOURCE)
                && LOOPBACK.equals(environment.getProperty("server.address"))) {
            log.info(
                    "listening on {}:{}, the loopback address only, since delay.security.token is not set: set it"
                            + " (the API then needs it) to listen on every address, or server.address to choose one",
                    LOOPBACK,
                    port);
        } else {
            String address = environment.getProperty("server.address", "");
            log.info(
                    "listening on {}{}",
                    address.isBlank() ? "every address, port " + port : address + ":" + port,
                    TokenConfigured.isSet(environment)
                            ? ", the API behind delay.security.token"
                            : ", with no delay.security.token");
        }
    }
}
