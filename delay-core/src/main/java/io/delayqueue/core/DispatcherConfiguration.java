package io.delayqueue.core;

import io.delayqueue.config.DelayProperties;
import io.delayqueue.queue.dispatch.BlockingSendPool;
import io.delayqueue.queue.dispatch.activemq.ActiveMqDispatcher;
import io.delayqueue.queue.dispatch.activemq.ActiveMqSettings;
import io.delayqueue.queue.dispatch.http.CallbackSigning;
import io.delayqueue.queue.dispatch.http.HttpCallbackDispatcher;
import io.delayqueue.queue.dispatch.http.HttpCallbackSettings;
import io.delayqueue.queue.dispatch.rocketmq.RocketMqDispatcher;
import io.delayqueue.queue.dispatch.rocketmq.RocketMqSettings;
import io.delayqueue.queue.engine.EngineConfig;
import java.time.Clock;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The dispatchers beyond the console: {@code http} always (it costs one idle thread), {@code rocketmq}
 * when {@code delay.rocketmq.namesrv} is set, {@code activemq} when {@code delay.activemq.url} is set. The
 * send timeout of each dispatcher in use is checked against {@code delay.dispatch.timeout} at start-up: a
 * send still running when its reservation expires would deliver the job twice.
 *
 * <p>The engine depends on every dispatcher, so Spring closes it first: no job is handed to a dispatcher
 * that is closing.
 *
 * <p>An auto-configuration, like {@link DelayQueueConfiguration}: an application's own dispatcher of one of
 * these types replaces the service's.
 */
@AutoConfiguration
@EnableConfigurationProperties(DelayProperties.class)
public class DispatcherConfiguration {
    private static final Logger log = LoggerFactory.getLogger(DispatcherConfiguration.class);

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(HttpCallbackDispatcher.class)
    public HttpCallbackDispatcher httpCallbackDispatcher(DelayProperties properties, EngineConfig config, Clock clock) {
        HttpCallbackSettings settings = properties.getHttp().toSettings();
        boolean routed = HttpCallbackDispatcher.NAME.equals(config.dispatch().defaultDispatcher())
                || config.dispatch().topics().containsValue(HttpCallbackDispatcher.NAME);
        // a callback may first wait for a slot of its topic (the lane wait), then for a connection, then take its
        // longest send: all of it within the dispatch timeout
        Duration afterLaneWait =
                config.dispatch().timeout().minus(config.dispatch().laneWait());
        if (routed) {
            if (settings.allowedHosts().any()) {
                log.info("HTTP callbacks may call any host a pushed url names: delay.http.allowed-hosts limits them");
            } else {
                log.info(
                        "HTTP callbacks may call {} only (delay.http.allowed-hosts)",
                        String.join(", ", settings.allowedHosts().entries()));
            }
            logSigning(settings.signing());
            return new HttpCallbackDispatcher(
                    settings, BlockingSendPool.maxQueueWait(afterLaneWait, settings.sendTimeout()), clock);
        }
        return new HttpCallbackDispatcher(settings, HttpCallbackDispatcher.DEFAULT_MAX_QUEUE_WAIT, clock);
    }

    /** One line on which callbacks are signed: how many secrets, never which. */
    private static void logSigning(CallbackSigning signing) {
        if (!signing.any()) {
            log.info(
                    "HTTP callbacks are not signed: a receiver cannot tell them from forged ones. Set {} (whsec_"
                            + " secrets) to sign them as Standard Webhooks are",
                    CallbackSigning.SECRETS);
        } else if (signing.secrets().isEmpty()) {
            log.info(
                    "HTTP callbacks of {} are signed ({}); other topics' are not",
                    signing.topics().keySet(),
                    CallbackSigning.TOPICS);
        } else {
            log.info(
                    "HTTP callbacks are signed with {} secret(s){}",
                    signing.secrets().size(),
                    signing.topics().isEmpty()
                            ? ""
                            : ", those of " + signing.topics().keySet() + " with their own");
        }
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnProperty("delay.rocketmq.namesrv")
    @ConditionalOnMissingBean(RocketMqDispatcher.class)
    public RocketMqDispatcher rocketMqDispatcher(DelayProperties properties, EngineConfig config) {
        RocketMqSettings settings = properties.getRocketmq().toSettings();
        return new RocketMqDispatcher(
                settings,
                BlockingSendPool.maxQueueWait(
                        config.dispatch().timeout().minus(config.dispatch().laneWait()), settings.sendTimeout()));
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnProperty("delay.activemq.url")
    @ConditionalOnMissingBean(ActiveMqDispatcher.class)
    public ActiveMqDispatcher activeMqDispatcher(DelayProperties properties, EngineConfig config) {
        ActiveMqSettings settings = properties.getActivemq().toSettings();
        return new ActiveMqDispatcher(
                settings,
                BlockingSendPool.maxQueueWait(
                        config.dispatch().timeout().minus(config.dispatch().laneWait()), settings.sendTimeout()));
    }
}
