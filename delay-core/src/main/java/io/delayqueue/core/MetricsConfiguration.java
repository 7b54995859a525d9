package io.delayqueue.core;

import io.delayqueue.config.DelayProperties;
import io.delayqueue.queue.coordination.Coordinator;
import io.delayqueue.queue.dispatch.Dispatcher;
import io.delayqueue.queue.engine.DelayQueueEngine;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.store.JobStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

/**
 * The service's own metrics (Micrometer; Boot's actuator serves them at {@code /actuator/prometheus}). An
 * auto-configuration, after {@link DelayQueueConfiguration} whose engine, journal and store it listens to.
 */
@AutoConfiguration(after = DelayQueueConfiguration.class)
@EnableConfigurationProperties(DelayProperties.class)
public class MetricsConfiguration {
    /** Where the Redis store's scripts are, beside {@code RedisJobStore}. */
    static final String SCRIPTS = "io/delayqueue/queue/store/redis/";

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
                engine, coordinator, journal, names, properties.getMetrics().getMaxTopics(), storeScripts());
        return metrics.listenTo(engine, journal, store);
    }

    /** The Redis store's Lua scripts by name ({@code push}, {@code move_due}, ...; {@code lib.lua} is their prelude). */
    static Set<String> storeScripts() {
        try {
            Resource[] scripts =
                    new PathMatchingResourcePatternResolver().getResources("classpath*:" + SCRIPTS + "*.lua");
            return Arrays.stream(scripts)
                    .map(Resource::getFilename)
                    .filter(name -> name != null && !name.equals("lib.lua"))
                    .map(name -> name.substring(0, name.length() - ".lua".length()))
                    .collect(Collectors.toCollection(TreeSet::new));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the store's scripts in " + SCRIPTS, e);
        }
    }
}
