package io.delayqueue.core;

import dev.failsafe.Failsafe;
import dev.failsafe.RetryPolicy;
import io.delayqueue.common.DelayQueueException;
import io.delayqueue.config.DelayProperties;
import io.delayqueue.controller.TokenFilter;
import io.delayqueue.queue.coordination.Coordinator;
import io.delayqueue.queue.coordination.WakeUpChannel;
import io.delayqueue.queue.dispatch.Dispatcher;
import io.delayqueue.queue.dispatch.console.ConsoleDispatcher;
import io.delayqueue.queue.engine.DelayQueueEngine;
import io.delayqueue.queue.engine.EngineConfig;
import io.delayqueue.queue.engine.restore.RestoreReport;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.journal.mybatis.MyBatisJournal;
import io.delayqueue.queue.store.JobStore;
import io.delayqueue.queue.store.redis.RedisJobStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.apache.ibatis.session.SqlSessionFactory;
import org.apache.ibatis.transaction.jdbc.JdbcTransactionFactory;
import org.mybatis.spring.boot.autoconfigure.MybatisAutoConfiguration;
import org.mybatis.spring.boot.autoconfigure.SqlSessionFactoryBeanCustomizer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.flyway.FlywayAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.DependsOn;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Lazy;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.util.JedisURIHelper;

/**
 * Wiring of the service: the engine, its Redis store, its journal and the restore at start-up. An
 * auto-configuration (listed in {@code META-INF/spring/...AutoConfiguration.imports}, never component-scanned),
 * so its conditions are evaluated after the application's own configuration: every
 * {@code @ConditionalOnMissingBean} bean is replaced by an application's (or a test's) bean of its type. After
 * the data source, Flyway and MyBatis auto-configurations, whose {@code SqlSessionFactory} the journal uses.
 */
@AutoConfiguration(
        after = {DataSourceAutoConfiguration.class, FlywayAutoConfiguration.class, MybatisAutoConfiguration.class})
@EnableConfigurationProperties(DelayProperties.class)
@Import(EmbeddedJournalConfiguration.class)
public class DelayQueueConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public Clock clock() {
        return Clock.systemUTC();
    }

    @Bean
    @ConditionalOnMissingBean
    public EngineConfig engineConfig(DelayProperties properties) {
        return properties.toEngineConfig();
    }

    /**
     * Lazy: started only when {@link #redisClient} needs it (no uri, and neither Sentinel nor Cluster). When it
     * keeps dying, the service stops with status 1.
     */
    @Bean(destroyMethod = "close")
    @Lazy
    @ConditionalOnProperty(name = "delay.redis.uri", havingValue = "embedded", matchIfMissing = true)
    public EmbeddedRedis embeddedRedis(ConfigurableApplicationContext context) {
        return new EmbeddedRedis(
                EmbeddedRedis.defaultHome(), () -> System.exit(SpringApplication.exit(context, () -> 1)));
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public UnifiedJedis redisClient(DelayProperties properties, ObjectProvider<EmbeddedRedis> embedded) {
        var redis = properties.getRedis();
        if (RedisDeployments.configured(redis)) {
            return RedisDeployments.create(redis);
        }
        String uri = redis.getUri();
        if (uri == null || uri.isBlank() || uri.equals("embedded")) {
            uri = embedded.getObject().uri();
        }
        URI parsed = URI.create(uri);
        if (!JedisURIHelper.isValid(parsed)) {
            throw new IllegalArgumentException("delay.redis.uri must look like redis://host:port[/db]: " + uri);
        }
        int timeoutMs = (int) redis.getTimeout().toMillis();
        JedisClientConfig clientConfig = DefaultJedisClientConfig.builder()
                .user(JedisURIHelper.getUser(parsed))
                .password(JedisURIHelper.getPassword(parsed))
                .database(JedisURIHelper.getDBIndex(parsed))
                .ssl(JedisURIHelper.isRedisSSLScheme(parsed))
                .connectionTimeoutMillis(timeoutMs)
                .socketTimeoutMillis(timeoutMs)
                .clientName("delay-queue")
                .build();
        GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
        pool.setMaxTotal(redis.getMaxConnections());
        pool.setMaxIdle(redis.getMaxConnections());
        // a caller waits for a free connection no longer than for an answer: a push's wait stays bounded
        pool.setMaxWait(redis.getTimeout());
        pool.setJmxEnabled(false);
        return new JedisPooled(pool, new HostAndPort(parsed.getHost(), parsed.getPort()), clientConfig);
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public JobStore jobStore(UnifiedJedis redis, EngineConfig config, DelayProperties properties) {
        return new RedisJobStore(
                redis,
                config.redisPrefix(),
                config.shards(),
                config.retention(),
                false,
                RedisDeployments.replicaWait(properties.getRedis()));
    }

    /**
     * The journal commits each group itself, in one transaction. Spring-managed MyBatis transactions outside
     * a Spring transaction would take the pool's auto-commit connection and commit every statement on its own
     * (half a group could land, and a retried group would find its own rows), so MyBatis manages the JDBC
     * transactions here.
     */
    @Bean
    public SqlSessionFactoryBeanCustomizer journalOwnsItsTransactions() {
        return factory -> factory.setTransactionFactory(new JdbcTransactionFactory());
    }

    /** The journal: MyBatis over {@code spring.datasource.*} (SQLite on disk by default), or none. */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    @DependsOnDatabaseInitialization // Flyway first: the engine starts writing as soon as it exists
    @DependsOn(EmbeddedJournalConfiguration.FORMER_H2_IMPORTED)
    public Journal journal(DelayProperties properties, ObjectProvider<SqlSessionFactory> sessions, Clock clock) {
        var j = properties.getJournal();
        if (j.getMode() == JournalMode.OFF) {
            return Journal.NONE;
        }
        return new MyBatisJournal(sessions.getObject(), j.toSettings(), properties.getShards(), clock);
    }

    /**
     * A stop begins with the journal (the context's close event comes before the HTTP server's graceful shutdown and
     * the engine's close): its writers have a bounded time from now to write what they hold, so that a database that
     * does not answer cannot hold the stop (see docs/operating.md, "Stopping").
     */
    @Bean
    public ApplicationListener<ContextClosedEvent> journalStartsClosingFirst(Journal journal) {
        return event -> journal.startClosing();
    }

    /**
     * Restores from the journal once started, by default when Redis is the embedded (empty) one, and each time
     * the embedded Redis was started again after it died (empty again).
     */
    @Bean
    @Order(Ordered.HIGHEST_PRECEDENCE) // before the warm-up: a restore is real work, and the warm-up waits for it
    public ApplicationRunner restoreOnStart(
            DelayProperties properties,
            DelayQueueEngine engine,
            ObjectProvider<EmbeddedRedis> embedded,
            UnifiedJedis redis) {
        return args -> {
            Logger log = LoggerFactory.getLogger(DelayQueueConfiguration.class);
            // not for Sentinel or Cluster: asking the lazy bean would start an embedded Redis nobody uses
            EmbeddedRedis embeddedRedis =
                    RedisDeployments.configured(properties.getRedis()) ? null : embedded.getIfAvailable();
            boolean journaled = properties.getJournal().getMode() != JournalMode.OFF;
            Boolean configured = properties.getJournal().getRestoreOnStart();
            boolean wanted = configured != null ? configured : embeddedRedis != null;
            if (wanted && journaled) {
                RestoreReport report = engine.restore(true);
                log.info("restored from the journal at start-up: {}", report);
            }
            if (embeddedRedis != null) {
                // Each idle pooled connection still leads to the dead server and would fail once: drop them.
                // Connections in use fail once and are dropped too, so a restore that meets one tries again.
                RetryPolicy<RestoreReport> untilRedisAnswers = RetryPolicy.<RestoreReport>builder()
                        .handle(DelayQueueException.Unavailable.class)
                        .withBackoff(Duration.ofMillis(100), Duration.ofSeconds(2))
                        .withMaxRetries(10)
                        .build();
                embeddedRedis.onRestart(() -> {
                    if (redis instanceof JedisPooled pooled) {
                        pooled.getPool().clear();
                    }
                    if (journaled) {
                        log.info(
                                "restored from the journal after the embedded Redis restarted: {}",
                                Failsafe.with(untilRedisAnswers).get(() -> engine.restore(true)));
                    } else {
                        log.error("the embedded Redis restarted empty, and without a journal its jobs are lost");
                    }
                });
            }
        };
    }

    /**
     * The start-up warm-up ({@link WarmUp}), after the restore: the service is ready (its readiness {@code
     * ACCEPTING_TRAFFIC}, {@code /actuator/health/readiness} UP) only once it is done, as Spring Boot marks it ready
     * after every runner returned. In every HA mode: a follower warms up at its start, so that a take-over meets warm
     * code. A warm-up that fails is logged and the service starts anyway (cold).
     */
    @Bean
    @Order(Ordered.LOWEST_PRECEDENCE)
    public WarmUpOnStart warmUpBeforeReady(
            DelayProperties properties,
            EngineConfig config,
            DelayQueueEngine engine, // started before: real jobs are served while the warm-up runs
            UnifiedJedis redis,
            Journal journal,
            WakeUpChannel wakeUps,
            Clock clock,
            ObjectProvider<MeterRegistry> registries) {
        var settings = properties.getWarmUp().toSettings(); // a bad setting stops the start, as any other does
        return new WarmUpOnStart(
                settings.enabled(),
                () -> new WarmUp(
                        config,
                        redis,
                        journal,
                        properties.getHttp().toSettings(),
                        RedisDeployments.replicaWait(properties.getRedis()),
                        wakeUps != WakeUpChannel.NONE,
                        clock,
                        settings,
                        rehearsalMetrics(registries.getIfAvailable(), properties)));
    }

    /**
     * The warm-up's metrics: the service's listener on a registry of the service's registry's kind (the same meters'
     * code), its own; none where the service has no registry.
     */
    static WarmUp.Metrics rehearsalMetrics(MeterRegistry service, DelayProperties properties) {
        if (service == null) {
            return WarmUp.Metrics.NONE;
        }
        int maxTopics = properties.getMetrics().getMaxTopics();
        if (service instanceof PrometheusMeterRegistry) {
            return new WarmUp.Metrics(() -> new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), maxTopics);
        }
        return new WarmUp.Metrics(SimpleMeterRegistry::new, maxTopics);
    }

    @Bean
    @ConditionalOnMissingBean(ConsoleDispatcher.class)
    public ConsoleDispatcher consoleDispatcher() {
        return new ConsoleDispatcher(System.out);
    }

    @Bean(initMethod = "start", destroyMethod = "close")
    @ConditionalOnMissingBean
    public DelayQueueEngine delayQueueEngine(
            EngineConfig config,
            JobStore store,
            List<Dispatcher> dispatchers,
            Coordinator coordinator,
            Journal journal,
            Clock clock,
            WakeUpChannel wakeUps) {
        return new DelayQueueEngine(config, store, dispatchers, coordinator, journal, clock, wakeUps);
    }

    @Bean
    @Conditional(TokenConfigured.class)
    public FilterRegistrationBean<TokenFilter> tokenFilter(DelayProperties properties) {
        FilterRegistrationBean<TokenFilter> registration = new FilterRegistrationBean<>(
                new TokenFilter(properties.getSecurity().configuredToken()));
        registration.setOrder(0);
        return registration;
    }
}
