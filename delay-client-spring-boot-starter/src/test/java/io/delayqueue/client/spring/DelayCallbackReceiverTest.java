package io.delayqueue.client.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayqueue.client.Job;
import io.delayqueue.client.callback.VerifiedCallback;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The starter's callback receiver in a running Spring MVC application, called over HTTP as the service calls it. */
@SpringBootTest(
        classes = DelayCallbackReceiverTest.App.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "delay.client.url=http://127.0.0.1:9",
            "delay.client.callback.secrets=" + DelayCallbackReceiverTest.SECRET,
            "delay.client.callback.topics.audit.secrets=" + DelayCallbackReceiverTest.AUDIT_SECRET,
            "management.endpoints.web.exposure.include=health",
            "management.endpoint.health.show-details=always"
        })
class DelayCallbackReceiverTest {
    static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    static final String AUDIT_SECRET = "whsec_c2VjcmV0IG9mIHRoZSBhdWRpdCB0b3BpYyAxMjM0NQ==";

    @LocalServerPort
    int port;

    @Autowired
    Receivers receivers;

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
        @Bean
        Receivers receivers() {
            return new Receivers();
        }
    }

    static class Receivers {
        final List<Job> orders = new CopyOnWriteArrayList<>();
        final List<VerifiedCallback> deliveries = new CopyOnWriteArrayList<>();
        final List<String> audits = new CopyOnWriteArrayList<>();

        @DelayCallback(topic = "order")
        void close(Job job, VerifiedCallback delivery) {
            orders.add(job);
            deliveries.add(delivery);
        }

        @DelayCallback(topic = "boom")
        void fail(String body) {
            throw new IllegalStateException("the receiver is not ready: " + body);
        }

        @DelayCallback(topic = "audit")
        void audit(byte[] body) {
            audits.add(new String(body, java.nio.charset.StandardCharsets.UTF_8));
        }
    }

    private String url() {
        return "http://127.0.0.1:" + port + "/delay/callback";
    }

    @BeforeEach
    void clear() {
        receivers.orders.clear();
        receivers.deliveries.clear();
        receivers.audits.clear();
    }

    @Test
    void a_signed_callback_reaches_its_topics_method_and_is_answered_204() throws Exception {
        String body = Signing.jobJson("order-1", "order", 0, "close 42");
        HttpResponse<String> answer = Signing.send(url(), SECRET, "order-1", "order", 0, body, Signing.now());

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(204);
        assertThat(receivers.orders).singleElement().satisfies(job -> {
            assertThat(job.id()).isEqualTo("order-1");
            assertThat(job.body()).isEqualTo("close 42");
        });
        assertThat(receivers.deliveries).singleElement().satisfies(d -> {
            assertThat(d.topic()).isEqualTo("order");
            assertThat(d.attempt()).isEqualTo(1);
        });
    }

    @Test
    void a_forged_a_changed_or_a_replayed_callback_is_answered_401_and_never_reaches_the_method() throws Exception {
        String body = Signing.jobJson("order-2", "order", 0, "close 43");
        long at = Signing.now();
        HttpResponse<String> forged = Signing.send(url(), Signing.newSecret(), "order-2", "order", 0, body, at);
        assertThat(forged.statusCode()).isEqualTo(401);
        assertThat(forged.body()).contains("no signature");

        HttpResponse<String> first = Signing.send(url(), SECRET, "order-2", "order", 0, body, at);
        assertThat(first.statusCode()).isEqualTo(204);
        HttpResponse<String> replayed = Signing.send(url(), SECRET, "order-2", "order", 0, body, at);
        assertThat(replayed.statusCode()).as(replayed.body()).isEqualTo(401);

        HttpResponse<String> old = Signing.send(
                url(), SECRET, "order-3", "order", 0, Signing.jobJson("order-3", "order", 0, "x"), at - 600);
        assertThat(old.statusCode()).isEqualTo(401);
        assertThat(old.body()).contains("old");

        HttpResponse<String> unsigned = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(url()))
                                .header("X-Delay-Topic", "order")
                                .POST(HttpRequest.BodyPublishers.ofString(body))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(unsigned.statusCode()).isEqualTo(401);
        assertThat(receivers.orders).as("only the genuine delivery").hasSize(1);
    }

    @Test
    void a_topic_with_its_own_secret_takes_only_that_secret() throws Exception {
        String body = Signing.jobJson("audit-1", "audit", 2, "entry");
        assertThat(Signing.send(url(), SECRET, "audit-1", "audit", 2, body, Signing.now())
                        .statusCode())
                .as("signed with the default secret")
                .isEqualTo(401);
        assertThat(Signing.send(url(), AUDIT_SECRET, "audit-1", "audit", 2, body, Signing.now())
                        .statusCode())
                .isEqualTo(204);
        assertThat(receivers.audits).containsExactly(body);
    }

    @Test
    void a_method_that_throws_is_answered_500_so_the_service_delivers_again_and_an_unknown_topic_404()
            throws Exception {
        HttpResponse<String> failed = Signing.send(
                url(), SECRET, "boom-1", "boom", 0, Signing.jobJson("boom-1", "boom", 0, "x"), Signing.now());
        assertThat(failed.statusCode()).isEqualTo(500);
        assertThat(failed.body()).contains("IllegalStateException").doesNotContain("not ready");

        HttpResponse<String> unknown = Signing.send(
                url(), SECRET, "other-1", "other", 0, Signing.jobJson("other-1", "other", 0, "x"), Signing.now());
        assertThat(unknown.statusCode()).isEqualTo(404);
    }

    @Test
    void the_health_says_the_service_cannot_be_reached() throws Exception {
        HttpResponse<String> health = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(health.body()).contains("\"delayQueue\":{\"status\":\"DOWN\"");
    }
}
