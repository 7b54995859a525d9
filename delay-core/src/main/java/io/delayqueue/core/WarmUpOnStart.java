package io.delayqueue.core;

import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;

/**
 * Runs the {@link WarmUp} once the service started, before it says it is ready: Spring Boot publishes readiness ({@code
 * ACCEPTING_TRAFFIC}) after every runner returned, so {@code /actuator/health/readiness} answers OUT_OF_SERVICE until
 * the warm-up is done. A warm-up that fails is logged and the service goes on cold: the warm-up is an optimisation.
 */
public final class WarmUpOnStart implements ApplicationRunner {
    private static final Logger log = LoggerFactory.getLogger(WarmUpOnStart.class);

    private final boolean enabled;
    private final Supplier<WarmUp> warmUp;
    private volatile WarmUp.Report report;
    private volatile long finishedAtMillis;

    /** @param enabled {@code delay.warm-up.enabled}: false, the service is ready without a warm-up */
    public WarmUpOnStart(boolean enabled, Supplier<WarmUp> warmUp) {
        this.enabled = enabled;
        this.warmUp = warmUp;
    }

    @Override
    public void run(ApplicationArguments args) {
        if (!enabled) {
            return;
        }
        try {
            report = warmUp.get().run();
        } catch (Exception e) {
            log.warn("the warm-up failed, the service starts cold: {}", e.toString(), e);
        } finally {
            finishedAtMillis = System.currentTimeMillis();
        }
    }

    /** What the warm-up did; empty before it ended, or when it failed. */
    public Optional<WarmUp.Report> report() {
        return Optional.ofNullable(report);
    }

    /** When the warm-up ended (wall clock, epoch milliseconds); 0 before. */
    public long finishedAtMillis() {
        return finishedAtMillis;
    }
}
