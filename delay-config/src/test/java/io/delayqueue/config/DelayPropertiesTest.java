package io.delayqueue.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayqueue.queue.dispatch.activemq.ActiveMqSettings;
import io.delayqueue.queue.dispatch.http.CallbackHosts;
import io.delayqueue.queue.dispatch.http.CallbackSigning;
import io.delayqueue.queue.dispatch.http.HttpCallbackSettings;
import io.delayqueue.queue.dispatch.rocketmq.RocketMqSettings;
import io.delayqueue.queue.engine.EngineConfig;
import io.delayqueue.queue.engine.handover.DeadLetterSettings;
import io.delayqueue.queue.engine.handover.DispatchSettings;
import io.delayqueue.queue.engine.handover.PullSettings;
import io.delayqueue.queue.engine.handover.RetrySettings;
import io.delayqueue.queue.engine.handover.ScannerSettings;
import io.delayqueue.queue.engine.push.LimitSettings;
import io.delayqueue.queue.engine.tier.TierSettings;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.journal.JournalSettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.util.unit.DataSize;

class DelayPropertiesTest {

    private static DelayProperties bind(Map<String, String> properties) {
        Binder binder = new Binder(new MapConfigurationPropertySource(properties));
        return binder.bindOrCreate("delay", Bindable.of(DelayProperties.class));
    }

    /** Binds as Spring Boot binds the process environment (the source name selects the env-var mapping). */
    private static DelayProperties bindEnvironment(Map<String, Object> variables) {
        var source = new SystemEnvironmentPropertySource(
                StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, variables);
        Binder binder = new Binder(ConfigurationPropertySources.from(source));
        return binder.bindOrCreate("delay", Bindable.of(DelayProperties.class));
    }

    private static DelayProperties with(Consumer<DelayProperties> change) {
        DelayProperties p = new DelayProperties();
        change.accept(p);
        return p;
    }

    @Test
    void properties_with_no_settings_give_the_engine_defaults() {
        assertThat(new DelayProperties().toEngineConfig()).isEqualTo(EngineConfig.DEFAULTS);
    }

    @Test
    void binding_nothing_gives_the_engine_defaults() {
        assertThat(bind(Map.of()).toEngineConfig()).isEqualTo(EngineConfig.DEFAULTS);
    }

    @Test
    void every_setting_reaches_the_engine_config() {
        DelayProperties p = bind(Map.ofEntries(
                Map.entry("delay.shards", "16"),
                Map.entry("delay.retention", "10m"),
                Map.entry("delay.redis.prefix", "orders"),
                Map.entry("delay.scanner.batch-size", "200"),
                Map.entry("delay.scanner.max-sleep", "250ms"),
                Map.entry("delay.scanner.lead", "5ms"),
                Map.entry("delay.scanner.replay-window", "5m"),
                Map.entry("delay.dispatch.default", "pull"),
                Map.entry("delay.dispatch.topics.order", "console"),
                Map.entry("delay.dispatch.timeout", "5s"),
                Map.entry("delay.dispatch.max-in-flight", "400"),
                Map.entry("delay.dispatch.max-in-flight-per-topic", "30"),
                Map.entry("delay.dispatch.shutdown-wait", "3s"),
                Map.entry("delay.retry.topics.order.backoff", "10ms,20ms"),
                Map.entry("delay.retry.topics[order.paid].max-attempts", "3"),
                Map.entry("delay.pull.default-ttr", "45s"),
                Map.entry("delay.pull.max-timeout", "20s"),
                Map.entry("delay.pull.recheck", "100ms"),
                Map.entry("delay.retry.max-attempts", "4"),
                Map.entry("delay.retry.backoff", "1s,5s,1m"),
                Map.entry("delay.limits.max-body-size", "1KB"),
                Map.entry("delay.limits.max-delay", "7d"),
                Map.entry("delay.limits.max-batch-size", "50"),
                Map.entry("delay.journal.mode", "async"),
                Map.entry("delay.journal.lag", "300ms"),
                Map.entry("delay.journal.max-rows-per-commit", "500"),
                Map.entry("delay.journal.commit-timeout", "4s"),
                Map.entry("delay.journal.queue-capacity", "2000"),
                Map.entry("delay.journal.queue-capacity-bytes", "32MB"),
                Map.entry("delay.journal.create-writers", "3"),
                Map.entry("delay.journal.reconcile-interval", "7s"),
                Map.entry("delay.journal.reconcile-grace", "40s"),
                Map.entry("delay.journal.page-size", "200"),
                Map.entry("delay.journal.retention", "30d"),
                Map.entry("delay.journal.purge-batch-size", "100"),
                Map.entry("delay.journal.purge-interval", "5m"),
                Map.entry("delay.journal.purge-pause", "10ms"),
                Map.entry("delay.tier.horizon", "2h"),
                Map.entry("delay.dead.retention", "30d")));

        EngineConfig c = p.toEngineConfig();

        assertThat(c)
                .isEqualTo(new EngineConfig(
                        16,
                        "orders",
                        Duration.ofMinutes(10),
                        new ScannerSettings(200, Duration.ofMillis(250), Duration.ofMillis(5), Duration.ofMinutes(5)),
                        new PullSettings(Duration.ofSeconds(45), Duration.ofSeconds(20), Duration.ofMillis(100)),
                        new LimitSettings(1024, Duration.ofDays(7), 50),
                        new DispatchSettings(
                                "pull",
                                Map.of("order", "console"),
                                Duration.ofSeconds(5),
                                400,
                                30,
                                Duration.ofSeconds(3)),
                        new RetrySettings(
                                4,
                                List.of(Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofMinutes(1)),
                                Map.of(
                                        "order",
                                        new RetrySettings.TopicRetry(
                                                List.of(Duration.ofMillis(10), Duration.ofMillis(20)), null),
                                        "order.paid",
                                        new RetrySettings.TopicRetry(null, 3))),
                        new JournalSettings(
                                JournalMode.ASYNC,
                                Duration.ofMillis(300),
                                500,
                                Duration.ofSeconds(4),
                                2000,
                                3,
                                Duration.ofSeconds(7),
                                Duration.ofSeconds(40),
                                200,
                                Duration.ofDays(30),
                                100,
                                Duration.ofMinutes(5),
                                Duration.ofMillis(10),
                                32L * 1024 * 1024),
                        new TierSettings(Duration.ofHours(2)),
                        new DeadLetterSettings(Duration.ofDays(30))));
    }

    @Test
    void a_journal_retention_shorter_than_the_redis_retention_is_refused_at_start_naming_both() {
        DelayProperties p = bind(Map.of("delay.retention", "2h", "delay.journal.retention", "1h"));

        assertThatThrownBy(p::toEngineConfig)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("delay.journal.retention (PT1H) must be 0 (keep forever) or at least")
                .hasMessageContaining("delay.retention (PT2H)");
        assertThat(bind(Map.of("delay.retention", "2h", "delay.journal.retention", "0"))
                        .toEngineConfig()
                        .journal()
                        .retention())
                .isZero();
        assertThatThrownBy(() ->
                        bind(Map.of("delay.journal.purge-batch-size", "0")).toEngineConfig())
                .hasMessageContaining("delay.journal.purge-batch-size");
    }

    @Test
    void a_retention_too_short_for_the_tombstones_of_far_jobs_is_refused_at_start_while_tiers_are_on() {
        assertThatThrownBy(() -> bind(Map.of("delay.retention", "4m")).toEngineConfig())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("delay.retention (PT4M) must be at least PT5M while tiers are on")
                .hasMessageContaining("delay.tier.horizon=0");
        assertThat(bind(Map.of("delay.retention", "5m")).toEngineConfig().retention())
                .isEqualTo(Duration.ofMinutes(5));
        assertThat(bind(Map.of("delay.retention", "3s", "delay.tier.horizon", "0"))
                        .toEngineConfig()
                        .retention())
                .as("tiers off")
                .isEqualTo(Duration.ofSeconds(3));
        assertThat(bind(Map.of("delay.retention", "3s", "delay.journal.mode", "async"))
                        .toEngineConfig()
                        .retention())
                .as("tiers need the sync journal, so async keeps every job in Redis")
                .isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void settings_bind_from_environment_variables() {
        DelayProperties p = bindEnvironment(Map.of(
                "DELAY_SHARDS", "4",
                "DELAY_REDIS_URI", "redis://10.0.0.1:6380/2",
                "DELAY_REDIS_PREFIX", "envq",
                "DELAY_DISPATCH_DEFAULT", "pull",
                "DELAY_SECURITY_TOKEN", "s3cret",
                "DELAY_DISPATCH_TOPICS_ORDER", "console",
                "DELAY_RETRY_BACKOFF", "2s,30s"));

        assertThat(p.getShards()).isEqualTo(4);
        assertThat(p.getRedis().getUri()).isEqualTo("redis://10.0.0.1:6380/2");
        assertThat(p.getSecurity().getToken()).isEqualTo("s3cret");
        EngineConfig c = p.toEngineConfig();
        assertThat(c.shards()).isEqualTo(4);
        assertThat(c.redisPrefix()).isEqualTo("envq");
        assertThat(c.dispatch().defaultDispatcher()).isEqualTo("pull");
        assertThat(c.dispatch().topics()).isEqualTo(Map.of("order", "console"));
        assertThat(c.retry().backoff()).containsExactly(Duration.ofSeconds(2), Duration.ofSeconds(30));
    }

    @Test
    void redis_connection_settings_have_sensible_defaults() {
        RedisProperties redis = new DelayProperties().getRedis();

        assertThat(redis.getUri()).as("unset: embedded Redis").isNull();
        assertThat(redis.getMaxConnections()).isPositive();
        assertThat(redis.getTimeout()).isPositive();
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, 1025})
    void shard_count_out_of_range_is_rejected_naming_shards(int shards) {
        DelayProperties p = with(x -> x.setShards(shards));

        assertThatThrownBy(p::toEngineConfig)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("shards");
    }

    @Test
    void bound_shard_count_of_zero_is_rejected_naming_shards() {
        DelayProperties p = bind(Map.of("delay.shards", "0"));

        assertThatThrownBy(p::toEngineConfig)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("shards");
    }

    @Test
    void other_bad_values_are_rejected_naming_the_setting() {
        assertThatThrownBy(() -> with(p -> p.getScanner().setBatchSize(0)).toEngineConfig())
                .hasMessageContaining("delay.scanner.batch-size");
        assertThatThrownBy(() ->
                        with(p -> p.getScanner().setMaxSleep(Duration.ZERO)).toEngineConfig())
                .hasMessageContaining("delay.scanner.max-sleep");
        assertThatThrownBy(() -> with(p -> p.getDispatch().setTimeout(Duration.ofSeconds(-1)))
                        .toEngineConfig())
                .hasMessageContaining("delay.dispatch.timeout");
        assertThatThrownBy(() -> with(p -> p.getDispatch().setMaxInFlight(10)).toEngineConfig())
                .hasMessageContaining(
                        "delay.dispatch.max-in-flight (10) must be at least delay.scanner.batch-size (500)");
        assertThatThrownBy(() -> with(p -> p.getRetry().setBackoff(List.of())).toEngineConfig())
                .hasMessageContaining("delay.retry.backoff");
        assertThatThrownBy(() -> with(p -> p.getRetry().setMaxAttempts(0)).toEngineConfig())
                .hasMessageContaining("delay.retry.max-attempts");
        assertThatThrownBy(() -> with(p -> p.getLimits().setMaxBodySize(DataSize.ofBytes(0)))
                        .toEngineConfig())
                .hasMessageContaining("delay.limits.max-body-size");
        assertThatThrownBy(() -> with(p -> p.getRedis().setPrefix(" ")).toEngineConfig())
                .hasMessageContaining("delay.redis.prefix");
        assertThatThrownBy(() -> with(p -> p.getDispatch().setDefault("")).toEngineConfig())
                .hasMessageContaining("delay.dispatch.default");
        assertThatThrownBy(
                        () -> with(p -> p.setRetention(Duration.ofSeconds(-1))).toEngineConfig())
                .hasMessageContaining("delay.retention");
    }

    @Test
    void dispatcher_settings_bind_and_their_defaults_are_the_dispatchers_own() {
        DelayProperties defaults = bind(Map.of("delay.rocketmq.namesrv", "ns:9876", "delay.activemq.url", "tcp://b:1"));
        assertThat(defaults.getRocketmq().toSettings()).isEqualTo(RocketMqSettings.defaults("ns:9876"));
        assertThat(defaults.getActivemq().toSettings()).isEqualTo(ActiveMqSettings.defaults("tcp://b:1"));
        assertThat(defaults.getHttp().toSettings()).isEqualTo(HttpCallbackSettings.defaults());

        DelayProperties p = bind(Map.ofEntries(
                Map.entry("delay.rocketmq.namesrv", "a:1;b:2"),
                Map.entry("delay.rocketmq.producer-group", "pg"),
                Map.entry("delay.rocketmq.send-timeout", "2s"),
                Map.entry("delay.rocketmq.retries", "0"),
                Map.entry("delay.rocketmq.threads", "3"),
                Map.entry("delay.rocketmq.max-pending", "30"),
                Map.entry("delay.activemq.url", "tcp://h:61616"),
                Map.entry("delay.activemq.user", "u"),
                Map.entry("delay.activemq.password", "p"),
                Map.entry("delay.activemq.destination-type", "topic"),
                Map.entry("delay.activemq.destinations.order.paid", "queue"),
                Map.entry("delay.activemq.send-timeout", "1s"),
                Map.entry("delay.activemq.threads", "2"),
                Map.entry("delay.activemq.max-pending", "20"),
                Map.entry("delay.http.connect-timeout", "500ms"),
                Map.entry("delay.http.read-timeout", "4s"),
                Map.entry("delay.http.allowed-hosts", "Hooks.Example.com, *.corp.example")));

        assertThat(p.getRocketmq().toSettings())
                .isEqualTo(new RocketMqSettings("a:1;b:2", "pg", Duration.ofSeconds(2), 0, 3, 30));
        assertThat(p.getActivemq().toSettings())
                .isEqualTo(new ActiveMqSettings(
                        "tcp://h:61616",
                        "u",
                        "p",
                        ActiveMqSettings.DestinationType.TOPIC,
                        Map.of("order.paid", ActiveMqSettings.DestinationType.QUEUE),
                        Duration.ofSeconds(1),
                        2,
                        20));
        assertThat(p.getHttp().toSettings())
                .isEqualTo(new HttpCallbackSettings(
                        Duration.ofMillis(500),
                        Duration.ofSeconds(4),
                        HttpCallbackSettings.DEFAULT_MAX_CONNECTIONS_PER_HOST,
                        new CallbackHosts(List.of("hooks.example.com", "*.corp.example"))));
        assertThat(defaults.getHttp().toSettings().allowedHosts().any())
                .as("by default, any host")
                .isTrue();
    }

    /** {@code whsec_} and the Base64 of 32 bytes from {@code first} on. */
    private static String secret(int first) {
        byte[] key = new byte[32];
        for (int i = 0; i < key.length; i++) {
            key[i] = (byte) (first + i);
        }
        return "whsec_" + java.util.Base64.getEncoder().encodeToString(key);
    }

    @Test
    void callback_signing_secrets_bind_for_every_topic_and_per_topic_from_properties_and_the_environment() {
        String a = secret(1);
        String b = secret(0x41);
        String c = secret(0x81);
        CallbackSigning expected = CallbackSigning.parse(List.of(a, b), Map.of("order.paid", List.of(c)));

        DelayProperties p =
                bind(Map.of("delay.http.signing.secrets", a + "," + b, "delay.http.signing.topics[order.paid]", c));
        DelayProperties env =
                bindEnvironment(Map.of("DELAY_HTTP_SIGNING_SECRETS", a + "," + b, "DELAY_HTTP_SIGNING_TOPICS_MAIL", c));

        assertThat(p.getHttp().toSettings().signing()).isEqualTo(expected);
        assertThat(p.getHttp().toSettings().signing().secretsOf("order.paid")).hasSize(1);
        assertThat(env.getHttp().toSettings().signing())
                .isEqualTo(CallbackSigning.parse(List.of(a, b), Map.of("mail", List.of(c))));
        assertThat(new DelayProperties().getHttp().toSettings().signing()).isEqualTo(CallbackSigning.NONE);
        assertThat(p.getHttp().getSigning().toString() + p.getHttp().toSettings())
                .as("no secret shown")
                .doesNotContain(a.substring(6, 20))
                .doesNotContain(c.substring(6, 20));
        assertThatThrownBy(() -> bind(Map.of("delay.http.signing.secrets", a + ",whsec_c2hvcnQ="))
                        .getHttp()
                        .toSettings())
                .hasMessageStartingWith("delay.http.signing.secrets[1] is not a signing secret")
                .hasMessageNotContaining("c2hvcnQ");
        assertThatThrownBy(() -> bind(Map.of("delay.http.signing.topics.order", "secret"))
                        .getHttp()
                        .toSettings())
                .hasMessageStartingWith("delay.http.signing.topics.order[0] is not a signing secret");
    }

    @Test
    void bad_dispatcher_settings_are_rejected_naming_the_setting() {
        assertThatThrownBy(() -> new DelayProperties().getRocketmq().toSettings())
                .hasMessageContaining("delay.rocketmq.namesrv");
        assertThatThrownBy(
                        () -> bind(Map.of("delay.activemq.url", "tcp://h:1", "delay.activemq.destination-type", "pipe"))
                                .getActivemq()
                                .toSettings())
                .hasMessageContaining("delay.activemq.destination-type");
        assertThatThrownBy(() ->
                        bind(Map.of("delay.retry.topics.t.max-attempts", "0")).toEngineConfig())
                .hasMessageContaining("delay.retry.topics.t.max-attempts");
        assertThatThrownBy(() ->
                        with(p -> p.getDispatch().setMaxInFlightPerTopic(0)).toEngineConfig())
                .hasMessageContaining("delay.dispatch.max-in-flight-per-topic");
    }

    @Test
    void huge_body_size_is_capped_instead_of_overflowing() {
        DelayProperties p = with(x -> x.getLimits().setMaxBodySize(DataSize.ofGigabytes(8)));

        assertThat(p.toEngineConfig().limits().maxBodyBytes()).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void a_blank_or_false_token_is_no_token_and_true_is_refused_naming_the_setting() {
        for (String none : new String[] {null, "", "  ", "false", "FALSE", " False "}) {
            assertThat(SecurityProperties.configuredToken(none))
                    .as("'%s'", none)
                    .isNull();
        }
        assertThat(SecurityProperties.configuredToken("s3cret")).isEqualTo("s3cret");
        assertThatThrownBy(() -> SecurityProperties.configuredToken("TRUE"))
                .hasMessageContaining("delay.security.token is the token itself");
    }

    @Test
    void the_hosts_answered_are_the_loopback_names_the_address_and_the_list_or_any_with_a_token_and_no_list() {
        SecurityProperties security = bind(Map.of()).getSecurity();
        assertThat(security.answeredHosts(null)).containsExactly("localhost", "127.0.0.1", "[::1]");
        assertThat(security.answeredHosts("0.0.0.0")).containsExactly("localhost", "127.0.0.1", "[::1]");
        assertThat(security.answeredHosts("Queue.Internal")).endsWith("queue.internal");

        SecurityProperties listed = bind(Map.of("delay.security.allowed-hosts", "Queue.Internal,q.example"))
                .getSecurity();
        assertThat(listed.answeredHosts(null))
                .containsExactly("localhost", "127.0.0.1", "[::1]", "queue.internal", "q.example");

        assertThat(bind(Map.of("delay.security.token", "s3cret")).getSecurity().answeredHosts(null))
                .containsExactly("*");
        assertThat(bind(Map.of("delay.security.token", "false")).getSecurity().answeredHosts(null))
                .as("false is no token")
                .doesNotContain("*");
        assertThat(bind(Map.of("delay.security.token", "s3cret", "delay.security.allowed-hosts", "q.example"))
                        .getSecurity()
                        .answeredHosts(null))
                .containsExactly("localhost", "127.0.0.1", "[::1]", "q.example");
    }
}
