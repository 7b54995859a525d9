package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.CallbackServer;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.ServiceTest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * {@code delay.http.allowed-hosts} limits the hosts a pushed callback url may name: a push (or a batch) naming
 * another host is refused with a 400 naming {@code url}, before anything is written, whatever its topic's route;
 * a url on an allowed host is called back as ever.
 */
@ServiceTest(
        properties = {
            "delay.dispatch.topics.allow-cb=http",
            // the callback server listens on 127.0.0.1; localhost stands for a host the list does not name
            "delay.http.allowed-hosts=127.0.0.1,*.hooks.example"
        })
class CallbackAllowListTest {
    static final ServiceStores STORES = ServiceStores.redisOnly("allowlist");
    static final CallbackServer CALLBACKS = CallbackServer.started();

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        STORES.register(registry);
    }

    @LocalServerPort
    int port;

    @Test
    void a_push_whose_url_names_a_host_not_allowed_is_refused_naming_url_and_writes_nothing() {
        Api api = new Api(port);
        long before = api.storedTotal();
        String path = "/refused/" + UUID.randomUUID();
        String elsewhere = CALLBACKS.url(path).replace("127.0.0.1", "localhost");

        Api.Response refused =
                api.postJson("/push", Map.of("topic", "allow-cb", "body", "b", "delay", 0, "url", elsewhere));
        Api.Response metadata = api.postJson(
                "/push",
                Map.of("topic", "console-topic", "body", "b", "url", "http://169.254.169.254/latest/meta-data/"));
        Api.Response batch = api.postJson(
                "/push/batch",
                List.of(
                        Map.of("topic", "allow-cb", "body", "ok", "url", CALLBACKS.url(path)),
                        Map.of("topic", "allow-cb", "body", "no", "url", elsewhere)));

        assertThat(refused.status()).as("push: %s", refused).isEqualTo(400);
        assertThat(refused.message()).startsWith("url names host localhost").contains("delay.http.allowed-hosts");
        assertThat(metadata.status())
                .as("a url on a topic not routed to http: %s", metadata)
                .isEqualTo(400);
        assertThat(metadata.message()).startsWith("url names host 169.254.169.254");
        assertThat(batch.status()).as("batch: %s", batch).isEqualTo(400);
        assertThat(batch.message()).startsWith("[1].url names host localhost");
        assertThat(api.storedTotal()).as("jobs stored").isEqualTo(before);
        assertThat(CALLBACKS.calls(path)).as("calls").isEmpty();
    }

    @Test
    void a_url_on_an_allowed_host_is_called_back() {
        Api api = new Api(port);
        String path = "/allowed/" + UUID.randomUUID();

        Api.Response pushed =
                api.postJson("/push", Map.of("topic", "allow-cb", "body", "b", "delay", 0, "url", CALLBACKS.url(path)));

        assertThat(pushed.status()).as("push: %s", pushed).isEqualTo(200);
        await("the callback")
                .atMost(Duration.ofSeconds(30))
                .until(() -> !CALLBACKS.calls(path).isEmpty());
    }
}
