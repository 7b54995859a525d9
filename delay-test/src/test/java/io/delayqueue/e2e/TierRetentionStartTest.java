package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayqueue.core.DelayQueueApplication;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.ServiceStores;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Issue 19 item 4 on the real Redis and MariaDB: the service refuses to start with tiers on and a {@code
 * delay.retention} too short for a deleted far job's tombstone to outlive the loader's pages, naming the setting
 * and its minimum; without tiers the same retention starts and answers pushes.
 */
class TierRetentionStartTest {

    private static String[] args(ServiceStores stores, String... more) {
        List<String> args = new ArrayList<>(stores.serviceArgs());
        args.add("--server.port=0");
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }

    @Test
    void the_service_refuses_to_start_with_tiers_on_and_a_retention_under_five_minutes() {
        try (ServiceStores stores = ServiceStores.redisAndJournal("tierret")) {
            assertThatThrownBy(() -> new SpringApplicationBuilder(DelayQueueApplication.class)
                            .run(args(stores, "--delay.retention=1m"))
                            .close())
                    .rootCause()
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("delay.retention (PT1M) must be at least PT5M while tiers are on")
                    .hasMessageContaining("delay.tier.horizon=0");

            try (ConfigurableApplicationContext service = new SpringApplicationBuilder(DelayQueueApplication.class)
                    .run(args(stores, "--delay.retention=1m", "--delay.tier.horizon=0"))) {
                int port = Integer.parseInt(service.getEnvironment().getProperty("local.server.port"));
                Api.Response pushed =
                        new Api(port).postJson("/push", Map.of("topic", "e2e.tierret", "body", "b", "delay", 60_000));
                assertThat(pushed.status()).as("push: %s", pushed).isEqualTo(200);
            }
        }
    }
}
