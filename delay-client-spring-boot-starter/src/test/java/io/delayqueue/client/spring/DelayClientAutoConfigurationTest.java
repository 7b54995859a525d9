package io.delayqueue.client.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayqueue.client.DelayQueueClient;
import io.delayqueue.client.RetryPolicy;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.web.servlet.WebMvcAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class DelayClientAutoConfigurationTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DelayClientAutoConfiguration.class))
            .withPropertyValues("delay.client.url=http://queue:8080");
    private final WebApplicationContextRunner webRunner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DelayClientAutoConfiguration.class,
                    DelayCallbackAutoConfiguration.class,
                    WebMvcAutoConfiguration.class))
            .withPropertyValues("delay.client.url=http://queue:8080");

    @Test
    void without_a_url_the_starter_does_nothing() {
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DelayClientAutoConfiguration.class,
                        DelayCallbackAutoConfiguration.class,
                        WebMvcAutoConfiguration.class))
                .withUserConfiguration(Receiver.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(DelayQueueClient.class);
                    assertThat(context).doesNotHaveBean(DelayCallbackReceiver.class);
                    assertThat(context).doesNotHaveBean(DelayListeners.class);
                });
    }

    @Test
    void the_client_is_built_from_the_properties() {
        runner.withPropertyValues(
                        "delay.client.retry.max-attempts=3",
                        "delay.client.retry.initial-backoff=50ms",
                        "delay.client.retry.max-backoff=1s",
                        "delay.client.retry.deadline=7s")
                .run(context -> {
                    assertThat(context).hasSingleBean(DelayQueueClient.class);
                    assertThat(context.getBean(DelayQueueClient.class).retryPolicy())
                            .isEqualTo(new RetryPolicy(
                                    3, Duration.ofMillis(50), Duration.ofSeconds(1), Duration.ofSeconds(7)));
                });
    }

    @Test
    void an_application_s_own_client_is_kept() {
        runner.withUserConfiguration(OwnClient.class).run(context -> assertThat(context.getBean(DelayQueueClient.class))
                .isSameAs(context.getBean(OwnClient.class).client));
    }

    @Test
    void a_listener_method_with_other_parameters_refuses_the_start_naming_it() {
        runner.withUserConfiguration(BadListener.class).run(context -> assertThat(context)
                .getFailure()
                .extracting(DelayClientAutoConfigurationTest::rootOf)
                .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.THROWABLE)
                .hasMessageContaining("Handler.handle")
                .hasMessageContaining("must take one parameter"));
    }

    @Test
    void a_callback_receiver_with_no_secret_to_check_against_refuses_the_start() {
        webRunner.withUserConfiguration(Receiver.class).run(context -> assertThat(context)
                .getFailure()
                .extracting(DelayClientAutoConfigurationTest::rootOf)
                .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.THROWABLE)
                .hasMessageContaining("delay.client.callback.secrets")
                .hasMessageContaining("'order'"));
    }

    @Test
    void a_secret_not_in_its_form_refuses_the_start_naming_the_property() {
        webRunner
                .withUserConfiguration(Receiver.class)
                .withPropertyValues("delay.client.callback.secrets=hunter2")
                .run(context -> assertThat(context)
                        .getFailure()
                        .extracting(DelayClientAutoConfigurationTest::rootOf)
                        .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.THROWABLE)
                        .hasMessageContaining("delay.client.callback.secrets")
                        .hasMessageNotContaining("hunter2"));
    }

    /** The cause the others wrap (the context's failure itself when it wraps none). */
    private static Throwable rootOf(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root;
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnClient {
        final DelayQueueClient client =
                DelayQueueClient.builder("http://own:8080").build();

        @Bean
        DelayQueueClient client() {
            return client;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class BadListener {
        @Bean
        Handler handler() {
            return new Handler();
        }
    }

    static class Handler {
        @DelayListener(topic = "mail")
        void handle(String body, int extra) {}
    }

    @Configuration(proxyBeanMethods = false)
    static class Receiver {
        @Bean
        Orders orders() {
            return new Orders();
        }
    }

    static class Orders {
        @DelayCallback(topic = "order")
        void close(String body) {}
    }
}
