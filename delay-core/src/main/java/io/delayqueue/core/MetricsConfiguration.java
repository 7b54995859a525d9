package io.delayqueue.core;

import io.delayqueue.config.DelayProperties;
import io.delayqueue.queue.coordination.Coordinator;
import io.delayqueue.queue.dispatch.Dispatcher;
import io.delayqueue.queue.engine.DelayQueueEngine;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.store.JobStore;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The service's own metrics (Micrometer; Boot's actuator serves them at {@code /actuator/prometheus}). An
 * auto-configuration, after {@link DelayQueueConfiguration} whose engine, journal and store it listens to.
 */
@AutoConfiguration(after = DelayQueueConfiguration.class)
@EnableConfigurationProperties(DelayProperties.class)
public class MetricsConfiguration {

    /**
     * Hears the engine, the journal and the store from here on: what happened before it existed (a restore at
     * start-up, say) is not counted.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public DelayQueueMetrics delayQueueMetrics(
            DelayQueueEngine engine,
            Coordinator coordinator,
            Journal journal,
            JobStore store,
            List<Dispatcher> dispatchers,
            DelayProperties properties) {
        Set<String> names = dispatchers.stream().map(Dispatcher::name).collect(Collectors.toSet());
        DelayQueueMetrics metrics = new DelayQueueMetrics(
                engine, coordinator, journal, names, properties.getMetrics().getMaxTopics());
        engine.setListener(metrics);
        journal.setListener(metrics);
        store.setListener(metrics);
        return metrics;
    }
}
