package io.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayqueue.config.SecurityProperties;
import io.delayqueue.controller.TokenFilter;
import io.delayqueue.queue.coordination.Coordinator;
import io.delayqueue.queue.coordination.StandaloneCoordinator;
import io.delayqueue.queue.dispatch.console.ConsoleDispatcher;
import io.delayqueue.queue.dispatch.http.HttpCallbackDispatcher;
import io.delayqueue.queue.engine.DelayQueueEngine;
import io.delayqueue.queue.journal.EmptyJournal;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.journal.mybatis.MyBatisJournal;
import io.delayqueue.queue.store.JobStore;
import io.delayqueue.queue.store.redis.RedisJobStore;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.mybatis.spring.boot.autoconfigure.MybatisAutoConfiguration;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.AutoConfigurationExcludeFilter;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.flyway.FlywayAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ClassPathScanningCandidateComponentProvider;
import org.springframework.context.annotation.Configuration;

/**
 * The service's wiring is auto-configuration: without beans of its own an application gets the service's, and
 * its own bean of a type replaces the service's ({@code @ConditionalOnMissingBean} holds, whatever the order
 * the application's configuration is read in). Each context runs the real thing: an embedded Redis (the
 * default), the journal in an in-memory H2 migrated by Flyway.
 */
class AutoConfigurationTest {
    private static final List<Class<?>> SERVICE = List.of(
            DelayQueueConfiguration.class,
            DispatcherConfiguration.class,
            HaConfiguration.class,
            HttpConfiguration.class,
            MetricsConfiguration.class);

    /** The service's auto-configurations listed before the ones they come after: the runner sorts them. */
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DelayQueueConfiguration.class,
                    DispatcherConfiguration.class,
                    HaConfiguration.class,
                    MetricsConfiguration.class,
                    MybatisAutoConfiguration.class,
                    FlywayAutoConfiguration.class,
                    DataSourceAutoConfiguration.class))
            .withPropertyValues(
                    "delay.redis.prefix=autoconfig-" + UUID.randomUUID(),
                    "spring.datasource.url=jdbc:h2:mem:autoconfig-" + UUID.randomUUID()
                            + ";MODE=MySQL;DATABASE_TO_LOWER=TRUE;CASE_INSENSITIVE_IDENTIFIERS=TRUE;DB_CLOSE_DELAY=-1");

    @Test
    void without_beans_of_its_own_the_application_gets_the_services() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(Clock.class)).isEqualTo(Clock.systemUTC());
            assertThat(context).getBean(JobStore.class).isInstanceOf(RedisJobStore.class);
            assertThat(context).getBean(Journal.class).isInstanceOf(MyBatisJournal.class);
            assertThat(context).getBean(Coordinator.class).isInstanceOf(StandaloneCoordinator.class);
            assertThat(context)
                    .hasSingleBean(ConsoleDispatcher.class)
                    .hasSingleBean(HttpCallbackDispatcher.class)
                    .hasSingleBean(DelayQueueMetrics.class);
            assertThat(context.getBean(DelayQueueEngine.class).isRunning()).isTrue();
        });
    }

    /** An application's own clock and journal, under names other than the service's. */
    @Configuration(proxyBeanMethods = false)
    static class OwnBeans {
        static final Clock CLOCK = Clock.offset(Clock.systemUTC(), Duration.ZERO);

        @Bean
        Clock applicationClock() {
            return CLOCK;
        }

        @Bean
        Journal applicationJournal() {
            return new EmptyJournal() {
                @Override
                public JournalMode mode() {
                    return JournalMode.SYNC;
                }
            };
        }
    }

    @Test
    void an_applications_own_clock_and_journal_replace_the_services() {
        runner.withUserConfiguration(OwnBeans.class).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(Clock.class).hasSingleBean(Journal.class);
            assertThat(context.getBean(Clock.class)).isSameAs(OwnBeans.CLOCK);
            assertThat(context.getBean(Journal.class)).isSameAs(context.getBean("applicationJournal"));
            assertThat(context).doesNotHaveBean(MyBatisJournal.class);
            assertThat(context.getBean(DelayQueueEngine.class).isRunning()).isTrue();
        });
    }

    /**
     * The token check's bean and the listen address read {@code delay.security.token} one way: blank and {@code
     * false} (any case) are no token to both (no check, loopback only), anything else a token to both.
     */
    @ParameterizedTest
    @CsvSource(
            value = {"false,no", "FALSE,no", "' ',no", "'',no", "s3cret,yes"},
            ignoreLeadingAndTrailingWhitespace = false)
    void the_token_check_and_the_listen_address_agree_on_whether_a_token_is_set(String setting, String isToken) {
        runner.withPropertyValues(SecurityProperties.TOKEN + "=" + setting).run(context -> {
            assertThat(context).hasNotFailed();
            boolean checked = context.getBeansOfType(FilterRegistrationBean.class).values().stream()
                    .anyMatch(r -> r.getFilter() instanceof TokenFilter);
            new ListenAddress().postProcessEnvironment(context.getEnvironment(), new SpringApplication());
            boolean loopbackOnly = context.getEnvironment().getPropertySources().contains(ListenAddress.SOURCE);

            assertThat(checked).as("the token check's bean for '%s'", setting).isEqualTo(isToken.equals("yes"));
            assertThat(loopbackOnly)
                    .as("the loopback default for '%s'", setting)
                    .isEqualTo(!checked);
        });
    }

    @Test
    void a_token_of_true_is_refused_at_start_naming_the_setting() {
        runner.withPropertyValues(SecurityProperties.TOKEN + "=True").run(context -> assertThat(context)
                .hasFailed()
                .getFailure()
                .rootCause()
                .hasMessageContaining(SecurityProperties.TOKEN + " is the token itself, not a switch"));
    }

    @Test
    void the_applications_component_scan_leaves_the_wiring_to_the_auto_configuration() {
        // the filter @SpringBootApplication's scan excludes with: @Configuration classes listed in the imports
        AutoConfigurationExcludeFilter listed = new AutoConfigurationExcludeFilter();
        listed.setBeanClassLoader(getClass().getClassLoader());
        ClassPathScanningCandidateComponentProvider scan = new ClassPathScanningCandidateComponentProvider(true);
        scan.addExcludeFilter(listed);
        Set<String> scanned = scan.findCandidateComponents("io.delayqueue").stream()
                .map(BeanDefinition::getBeanClassName)
                .collect(Collectors.toSet());

        assertThat(scanned)
                .contains(RedisHealthIndicator.class.getName(), CoordinationHealthIndicator.class.getName())
                .doesNotContainAnyElementsOf(
                        SERVICE.stream().map(Class::getName).toList());
    }
}
