package io.delayqueue.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayqueue.queue.coordination.HaMode;
import io.delayqueue.queue.coordination.curator.ZooKeeperSettings;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/** {@code delay.ha.*}, {@code delay.zk.*} and the Sentinel/Cluster keys under {@code delay.redis}. */
class HaPropertiesTest {

    private static DelayProperties bind(Map<String, String> properties) {
        return new Binder(new MapConfigurationPropertySource(properties))
                .bindOrCreate("delay", Bindable.of(DelayProperties.class));
    }

    @Test
    void nothing_set_means_standalone_and_the_zookeeper_defaults_of_the_curator_adapter() {
        DelayProperties p = bind(Map.of("delay.zk.connect", "zk:2181"));

        assertThat(p.getHa().getMode()).isEqualTo(HaMode.STANDALONE).isEqualTo(HaMode.DEFAULT);
        assertThat(p.getZk().toSettings()).isEqualTo(ZooKeeperSettings.of("zk:2181"));
    }

    @Test
    void every_zookeeper_setting_reaches_the_curator_settings() {
        DelayProperties p = bind(Map.of(
                "delay.ha.mode", "master-slave",
                "delay.zk.connect", "a:2181,b:2181",
                "delay.zk.namespace", "orders/dq",
                "delay.zk.session-timeout", "4s",
                "delay.zk.connection-timeout", "1500ms",
                "delay.zk.retry.base-sleep", "50ms",
                "delay.zk.retry.max-retries", "3",
                "delay.zk.retry.max-sleep", "1s"));

        assertThat(p.getHa().getMode()).isEqualTo(HaMode.MASTER_SLAVE);
        assertThat(p.getZk().toSettings())
                .isEqualTo(new ZooKeeperSettings(
                        "a:2181,b:2181",
                        "orders/dq",
                        Duration.ofSeconds(4),
                        Duration.ofMillis(1500),
                        Duration.ofMillis(50),
                        3,
                        Duration.ofSeconds(1)));
    }

    @Test
    void the_mode_and_the_ensemble_bind_from_environment_variables() {
        var env = new SystemEnvironmentPropertySource(
                StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                Map.of("DELAY_HA_MODE", "cluster", "DELAY_ZK_CONNECT", "zk1:2181"));
        DelayProperties p = new Binder(ConfigurationPropertySources.from(env))
                .bindOrCreate("delay", Bindable.of(DelayProperties.class));

        assertThat(p.getHa().getMode()).isEqualTo(HaMode.CLUSTER);
        assertThat(p.getZk().getConnect()).isEqualTo("zk1:2181");
    }

    @Test
    void a_zookeeper_mode_without_an_ensemble_is_rejected_naming_the_property() {
        DelayProperties p = bind(Map.of("delay.ha.mode", "cluster"));

        assertThatThrownBy(() -> p.getZk().toSettings())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("delay.zk.connect");
    }

    @Test
    void sentinel_and_cluster_nodes_bind_from_comma_separated_lists() {
        DelayProperties p = bind(Map.of(
                "delay.redis.sentinel.master", "mymaster",
                "delay.redis.sentinel.nodes", "10.0.0.1:26379,10.0.0.2:26379",
                "delay.redis.cluster.nodes", "10.0.0.5:7000, 10.0.0.6:7000"));

        assertThat(p.getRedis().getSentinel().isConfigured()).isTrue();
        assertThat(p.getRedis().getSentinel().getNodes()).containsExactly("10.0.0.1:26379", "10.0.0.2:26379");
        assertThat(p.getRedis().getCluster().isConfigured()).isTrue();
        assertThat(p.getRedis().getCluster().getNodes()).containsExactly("10.0.0.5:7000", "10.0.0.6:7000");
        assertThat(bind(Map.of()).getRedis().getCluster().isConfigured()).isFalse();
    }

    @Test
    void an_unset_instance_id_is_generated_unique_and_free_of_slashes() {
        HaProperties ha = new HaProperties();

        String one = ha.instanceIdOrGenerated();
        String two = ha.instanceIdOrGenerated();

        assertThat(one).isNotEqualTo(two).doesNotContain("/");
        ha.setInstanceId("node-a");
        assertThat(ha.instanceIdOrGenerated()).isEqualTo("node-a");
    }
}
