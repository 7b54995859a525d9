package io.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayqueue.config.DelayProperties;
import io.delayqueue.queue.dispatch.activemq.ActiveMqDispatcher;
import io.delayqueue.queue.dispatch.http.HttpCallbackDispatcher;
import io.delayqueue.queue.dispatch.rocketmq.RocketMqDispatcher;
import io.delayqueue.queue.engine.EngineConfig;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Which dispatchers exist for which settings; no broker is contacted to create them. */
class DispatcherConfigurationTest {

    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties(DelayProperties.class)
    static class Properties {
        @Bean
        EngineConfig engineConfig(DelayProperties properties) {
            return properties.toEngineConfig();
        }

        /** As DelayQueueConfiguration makes it: callbacks are signed with its time. */
        @Bean
        java.time.Clock clock() {
            return java.time.Clock.systemUTC();
        }
    }

    private final ApplicationContextRunner runner =
            new ApplicationContextRunner().withUserConfiguration(Properties.class, DispatcherConfiguration.class);

    @Test
    void http_is_always_there_and_the_brokers_only_when_configured() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(HttpCallbackDispatcher.class);
            assertThat(context).doesNotHaveBean(RocketMqDispatcher.class);
            assertThat(context).doesNotHaveBean(ActiveMqDispatcher.class);
        });
        runner.withPropertyValues("delay.rocketmq.namesrv=127.0.0.1:1", "delay.activemq.url=tcp://127.0.0.1:1")
                .run(context -> {
                    assertThat(context).hasSingleBean(RocketMqDispatcher.class);
                    assertThat(context).hasSingleBean(ActiveMqDispatcher.class);
                    assertThat(context.getBean(RocketMqDispatcher.class)
                                    .settings()
                                    .namesrv())
                            .isEqualTo("127.0.0.1:1");
                });
    }

    @Test
    void a_send_timeout_that_leaves_no_room_in_the_dispatch_timeout_stops_the_start_naming_both() {
        runner.withPropertyValues(
                        "delay.activemq.url=tcp://127.0.0.1:1",
                        "delay.activemq.send-timeout=10s",
                        "delay.dispatch.timeout=10s")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("delay.dispatch.timeout")
                        .hasMessageContaining("PT10S"));
    }

    @Test
    void http_timeouts_are_checked_only_when_a_topic_is_routed_to_http() {
        runner.withPropertyValues("delay.dispatch.timeout=5s")
                .run(context -> assertThat(context).hasNotFailed());
        runner.withPropertyValues("delay.dispatch.timeout=5s", "delay.dispatch.topics.hooks=http")
                .run(context -> assertThat(context).hasFailed());
    }
}
