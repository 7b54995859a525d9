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
    /** Starts the service; exits with status 1 when its SQLite journal file is in use ({@link JournalFileLock}). */
    public static void main(String[] args) {
        SpringApplication application = new SpringApplication(DelayQueueApplication.class);
        application.addListeners(new JournalFileLock());
        try {
            application.run(args);
        } catch (SpringApplication.AbandonedRunException journalInUse) {
            System.exit(1);
        }
    }
}
