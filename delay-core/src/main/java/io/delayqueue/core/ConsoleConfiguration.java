package io.delayqueue.core;

import io.delayqueue.config.DelayProperties;
import io.delayqueue.controller.ConsoleMetrics;
import io.delayqueue.queue.engine.DelayQueueEngine;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The web console's charts: a bounded ring of samples ({@link ConsoleMetrics}, the last 360) and the sampler that
 * fills it every {@code delay.metrics.console-sample-interval} from the service's meters. After {@link
 * MetricsConfiguration}, whose meters it reads.
 */
@AutoConfiguration(after = MetricsConfiguration.class)
@EnableConfigurationProperties(DelayProperties.class)
public class ConsoleConfiguration {
    /** Samples kept: an hour at the default interval of 10 s. */
    static final int SAMPLES = 360;

    @Bean
    @ConditionalOnMissingBean
    public ConsoleMetrics consoleMetrics(DelayProperties properties) {
        return new ConsoleMetrics(
                properties.getMetrics().getConsoleSampleInterval().toMillis(), SAMPLES);
    }

    @Bean(initMethod = "start", destroyMethod = "close")
    public ConsoleSampler consoleSampler(
            ConsoleMetrics ring, MeterRegistry registry, DelayQueueEngine engine, Clock clock) {
        return new ConsoleSampler(ring, registry, engine, clock);
    }
}
