package io.delayqueue.e2e.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.example.orders.OrdersApplication;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayqueue.client.DelayQueueClient;
import io.delayqueue.e2e.support.FreePorts;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.ServiceTest;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The orders example (examples/orders), a Spring Boot service on the starter, against the real service: an unpaid
 * order is closed by the service's signed callback, a paid one kept and its receipt confirmed from the pull topic;
 * every job ends FINISHED at the service, and a forged callback changes nothing.
 */
@ServiceTest(
        properties = {
            "delay.dispatch.topics.order-close=http",
            "delay.dispatch.topics.order-receipt=pull",
            "delay.http.signing.secrets=" + OrdersExampleTest.SECRET
        })
class OrdersExampleTest {
    // this test's own, made with: echo "whsec_$(openssl rand -base64 32)"
    static final String SECRET = "whsec_Xk3l0tq9mZ2vQ1b8R7yN4cW6eP5aT0uJ1hG2fD3sK4E=";
    private static final Duration WAIT = Duration.ofSeconds(30);
    static final ServiceStores STORES = ServiceStores.redisAndJournal("orders");
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        STORES.register(registry);
    }

    @LocalServerPort
    int port;

    private ConfigurableApplicationContext orders;
    private String ordersUrl;

    private void startOrders() {
        int ordersPort = FreePorts.free();
        ordersUrl = "http://127.0.0.1:" + ordersPort;
        orders = new SpringApplicationBuilder(OrdersApplication.class)
                .properties(OrdersApplication.CONFIG_NAME, "spring.autoconfigure.exclude=" + serviceWiring())
                .run(
                        "--server.port=" + ordersPort,
                        "--delay.client.url=http://127.0.0.1:" + port,
                        "--delay.client.callback.secrets=" + SECRET,
                        "--delay.client.listener.poll-timeout=1s",
                        "--orders.close-unpaid-after=1s",
                        "--orders.confirm-receipt-after=1s",
                        "--orders.callback-url=" + ordersUrl + "/delay/callback");
    }

    /**
     * The service's own auto-configurations ({@code io.delayqueue.core}), which share this class path: the example
     * runs without them, as in its own JVM.
     */
    private static String serviceWiring() {
        try {
            List<String> wiring = new ArrayList<>();
            Enumeration<URL> lists = OrdersExampleTest.class
                    .getClassLoader()
                    .getResources("META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports");
            for (URL list : Collections.list(lists)) {
                try (InputStream in = list.openStream()) {
                    new String(in.readAllBytes(), StandardCharsets.UTF_8)
                            .lines()
                            .map(String::trim)
                            .filter(line -> line.startsWith("io.delayqueue.core."))
                            .forEach(wiring::add);
                }
            }
            assertThat(wiring).as("the service's auto-configurations").isNotEmpty();
            return String.join(",", wiring);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @AfterEach
    void stopOrders() {
        if (orders != null) {
            orders.close();
        }
    }

    @Test
    void an_unpaid_order_is_closed_by_the_callback_and_a_paid_one_kept_and_its_receipt_confirmed_by_pull()
            throws Exception {
        startOrders();
        String unpaid = call("POST", "/orders").path("id").asText();
        String paid = call("POST", "/orders").path("id").asText();
        assertThat(call("POST", "/orders/" + paid + "/pay").path("status").asText())
                .isEqualTo("PAID");

        await("the unpaid order closed").atMost(WAIT).until(() -> "CLOSED".equals(statusOf(unpaid)));
        await("the paid order's receipt confirmed").atMost(WAIT).until(() -> "RECEIVED".equals(statusOf(paid)));

        DelayQueueClient service =
                DelayQueueClient.builder("http://127.0.0.1:" + port).build();
        for (String job : new String[] {"close-" + unpaid, "close-" + paid, "receipt-" + paid}) {
            await(job + " finished at the service").atMost(WAIT).until(() -> "FINISHED"
                    .equals(service.get(job).orElseThrow().status()));
        }
        assertThat(call("GET", "/actuator/health")
                        .path("components")
                        .path("delayQueue")
                        .path("status")
                        .asText())
                .isEqualTo("UP");
    }

    @Test
    void a_forged_callback_is_refused_and_changes_nothing() throws Exception {
        startOrders();
        String order = call("POST", "/orders").path("id").asText();
        String id = "close-" + order;
        String body = "{\"id\":\"" + id + "\",\"topic\":\"order-close\",\"body\":\"" + order + "\",\"attempts\":0}";
        HttpResponse<String> forged = HTTP.send(
                HttpRequest.newBuilder(URI.create(ordersUrl + "/delay/callback"))
                        .header("Content-Type", "application/json")
                        .header("webhook-id", id)
                        .header("webhook-timestamp", Long.toString(System.currentTimeMillis() / 1000))
                        .header("webhook-signature", "v1,bm90IGEgc2lnbmF0dXJlIG9mIHRoZSBzZXJ2aWNlJ3M=")
                        .header("X-Delay-Topic", "order-close")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(forged.statusCode()).as(forged.body()).isEqualTo(401);
        assertThat(statusOf(order)).isEqualTo("PLACED");
    }

    private String statusOf(String order) throws Exception {
        return call("GET", "/orders/" + order).path("status").asText();
    }

    private JsonNode call(String method, String path) throws Exception {
        HttpResponse<String> answer = HTTP.send(
                HttpRequest.newBuilder(URI.create(ordersUrl + path))
                        .method(method, HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode())
                .as("%s %s: %s", method, path, answer.body())
                .isLessThan(300);
        return JSON.readTree(answer.body());
    }
}
