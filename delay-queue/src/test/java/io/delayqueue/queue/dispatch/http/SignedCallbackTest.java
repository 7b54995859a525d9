package io.delayqueue.queue.dispatch.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.testing.ManualClock;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Callbacks signed as Standard Webhooks are: the signature checked against the specification's own example and
 * against an HMAC computed here with the JDK's {@link Mac}, over the bytes a local HTTP server received.
 */
class SignedCallbackTest {
    /** 32 bytes 0x01..0x20. */
    static final String SECRET_A = secretOf(1);
    /** 32 bytes 0x41..0x60. */
    static final String SECRET_B = secretOf(0x41);

    static final String SECRET_C = secretOf(0x81);

    private HttpServer server;
    private final List<Received> received = new CopyOnWriteArrayList<>();

    private record Received(String id, String timestamp, String signature, String jobId, byte[] body) {}

    static String secretOf(int first) {
        byte[] key = new byte[32];
        for (int i = 0; i < key.length; i++) {
            key[i] = (byte) (first + i);
        }
        return "whsec_" + Base64.getEncoder().encodeToString(key);
    }

    /** {@code base64(HMAC-SHA256(key, "<id>.<timestamp>.<body>"))}, computed without the code under test. */
    static String hmacByHand(String whsec, String id, long timestamp, byte[] body) throws GeneralSecurityException {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(Base64.getDecoder().decode(whsec.substring("whsec_".length())), "HmacSHA256"));
        mac.update((id + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8));
        return Base64.getEncoder().encodeToString(mac.doFinal(body));
    }

    @BeforeEach
    void setUp() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(Executors.newFixedThreadPool(2));
        server.createContext("/hook", exchange -> {
            var h = exchange.getRequestHeaders();
            received.add(new Received(
                    h.getFirst("webhook-id"),
                    h.getFirst("webhook-timestamp"),
                    h.getFirst("webhook-signature"),
                    h.getFirst("X-Delay-Job-Id"),
                    exchange.getRequestBody().readAllBytes()));
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void tearDown() {
        server.stop(0);
    }

    private Job job(String id, String topic, int attempts) {
        return new Job(
                id,
                topic,
                null,
                null,
                "close order 42 — ünïcode",
                1_700_000_000_000L,
                30_000,
                5,
                "http://127.0.0.1:" + server.getAddress().getPort() + "/hook",
                0,
                1_699_999_000_000L,
                JobStatus.RESERVED,
                attempts);
    }

    @Test
    void the_specifications_own_example_is_signed_as_it_publishes() {
        CallbackSecret secret = CallbackSecret.parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "example");

        String header = CallbackSigner.signature(
                List.of(secret),
                "msg_p5jXN8AQM9LWM0D4loKWxJek",
                1614265330,
                "{\"test\": 2432232314}".getBytes(StandardCharsets.UTF_8));

        assertThat(header).isEqualTo("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }

    @Test
    void each_send_is_signed_with_the_job_id_its_own_timestamp_and_the_hmac_of_the_bytes_sent()
            throws GeneralSecurityException {
        ManualClock clock = new ManualClock(1_800_000_000_250L);
        CallbackSigning signing = CallbackSigning.parse(List.of(SECRET_A), Map.of());
        try (HttpCallbackDispatcher dispatcher = new HttpCallbackDispatcher(
                new HttpCallbackSettings(
                        Duration.ofSeconds(2), Duration.ofSeconds(5), 4, new CallbackHosts(CallbackHosts.ANY), signing),
                Duration.ofSeconds(5),
                clock)) {
            dispatcher
                    .dispatch(job("7-order", "orders", 0))
                    .toCompletableFuture()
                    .join();
            clock.advance(Duration.ofSeconds(15));
            dispatcher
                    .dispatch(job("7-order", "orders", 1))
                    .toCompletableFuture()
                    .join();
        }

        assertThat(received).hasSize(2);
        Received first = received.get(0);
        Received second = received.get(1);
        assertThat(first.id()).isEqualTo("7-order").isEqualTo(first.jobId());
        assertThat(second.id()).as("the same id on a re-delivery").isEqualTo("7-order");
        assertThat(first.timestamp()).isEqualTo("1800000000");
        assertThat(second.timestamp()).as("each send its own time").isEqualTo("1800000015");
        assertThat(first.signature()).isEqualTo("v1," + hmacByHand(SECRET_A, "7-order", 1800000000L, first.body()));
        assertThat(second.signature()).isEqualTo("v1," + hmacByHand(SECRET_A, "7-order", 1800000015L, second.body()));
    }

    @Test
    void with_two_secrets_each_signs_in_order_so_a_receiver_with_either_accepts() throws GeneralSecurityException {
        byte[] body = "{\"id\":\"1-a\"}".getBytes(StandardCharsets.UTF_8);
        CallbackSigning signing = CallbackSigning.parse(List.of(SECRET_A, SECRET_B), Map.of());

        CallbackSigner.Signature s = new CallbackSigner(signing, new ManualClock(1_000_999)).sign("any", "1-a", body);

        assertThat(s.timestamp()).isEqualTo(1000);
        assertThat(s.signature())
                .isEqualTo("v1," + hmacByHand(SECRET_A, "1-a", 1000, body) + " v1,"
                        + hmacByHand(SECRET_B, "1-a", 1000, body));
    }

    @Test
    void a_topics_own_secrets_replace_the_default_and_without_secrets_nothing_is_signed()
            throws GeneralSecurityException {
        byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
        ManualClock clock = new ManualClock(5_000);
        CallbackSigner both = new CallbackSigner(
                CallbackSigning.parse(List.of(SECRET_A), Map.of("order.paid", List.of(SECRET_C))), clock);
        CallbackSigner ownOnly =
                new CallbackSigner(CallbackSigning.parse(List.of(), Map.of("order.paid", List.of(SECRET_C))), clock);

        assertThat(both.sign("order.paid", "1", body).signature())
                .isEqualTo("v1," + hmacByHand(SECRET_C, "1", 5, body));
        assertThat(both.sign("mail", "1", body).signature()).isEqualTo("v1," + hmacByHand(SECRET_A, "1", 5, body));
        assertThat(ownOnly.sign("mail", "1", body)).isNull();
        assertThat(new CallbackSigner(CallbackSigning.NONE, clock).sign("mail", "1", body))
                .isNull();
    }

    @Test
    void an_unsigned_topic_sends_no_webhook_headers() {
        try (HttpCallbackDispatcher dispatcher = new HttpCallbackDispatcher(new HttpCallbackSettings(
                Duration.ofSeconds(2),
                Duration.ofSeconds(5),
                4,
                new CallbackHosts(CallbackHosts.ANY),
                CallbackSigning.parse(List.of(), Map.of("orders", List.of(SECRET_A)))))) {
            dispatcher.dispatch(job("8-mail", "mail", 0)).toCompletableFuture().join();
        }

        assertThat(received).singleElement().satisfies(r -> {
            assertThat(r.jobId()).isEqualTo("8-mail");
            assertThat(r.id()).isNull();
            assertThat(r.timestamp()).isNull();
            assertThat(r.signature()).isNull();
        });
    }

    @Test
    void a_bad_secret_is_refused_naming_its_property_and_never_showing_its_value() {
        String tooShort = "whsec_" + Base64.getEncoder().encodeToString(new byte[16]);
        String tooLong = "whsec_" + Base64.getEncoder().encodeToString(new byte[65]);
        String notBase64 = "whsec_not*base64!";
        String noPrefix = Base64.getEncoder().encodeToString(new byte[32]);

        assertThatThrownBy(() -> CallbackSigning.parse(List.of(SECRET_A, noPrefix), Map.of()))
                .hasMessageStartingWith("delay.http.signing.secrets[1] is not a signing secret")
                .hasMessageNotContaining(noPrefix);
        assertThatThrownBy(() -> CallbackSigning.parse(List.of(notBase64), Map.of()))
                .hasMessageStartingWith("delay.http.signing.secrets[0] is not a signing secret")
                .hasMessageContaining("Base64")
                .hasMessageNotContaining("not*base64");
        assertThatThrownBy(() -> CallbackSigning.parse(List.of(), Map.of("order", List.of(tooShort))))
                .hasMessageStartingWith("delay.http.signing.topics.order[0] is not a signing secret")
                .hasMessageContaining("16 bytes")
                .hasMessageNotContaining(tooShort);
        assertThatThrownBy(() -> CallbackSigning.parse(List.of(tooLong), Map.of()))
                .hasMessageContaining("65 bytes");
        assertThatThrownBy(() -> CallbackSigning.parse(List.of(), Map.of("order", List.of())))
                .hasMessageStartingWith("delay.http.signing.topics.order names no secret");
    }

    @Test
    void settings_never_show_a_secret() {
        HttpCallbackSettings settings = new HttpCallbackSettings(
                Duration.ofSeconds(2),
                Duration.ofSeconds(5),
                4,
                new CallbackHosts(CallbackHosts.ANY),
                CallbackSigning.parse(List.of(SECRET_A), Map.of("order", List.of(SECRET_B))));

        assertThat(settings.toString())
                .contains("whsec_***")
                .doesNotContain(SECRET_A.substring(6, 20))
                .doesNotContain(SECRET_B.substring(6, 20));
        assertThat(CallbackSecret.parse(SECRET_A, "p")).isEqualTo(CallbackSecret.parse(" " + SECRET_A, "p"));
        assertThat(CallbackSecret.parse(SECRET_A, "p")).isNotEqualTo(CallbackSecret.parse(SECRET_B, "p"));
    }
}
