package io.delayqueue.core;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The delay-queue service. The scan finds the application components (controllers, health indicators); the
 * service's wiring ({@code *Configuration} in this package) is Boot auto-configuration, listed in {@code
 * META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports}, which the scan's {@code
 * AutoConfigurationExcludeFilter} leaves out, so it is processed after any application or test configuration.
 */
@SpringBootApplication(scanBasePackages = "io.delayqueue")
public class DelayQueueApplication {
    public static void main(String[] args) {
        SpringApplication.run(DelayQueueApplication.class, args);
    }
}
