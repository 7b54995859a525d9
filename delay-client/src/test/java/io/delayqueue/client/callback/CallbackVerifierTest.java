package io.delayqueue.client.callback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayqueue.client.callback.CallbackVerificationException.Reason;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/** The verifier against callbacks signed here by hand with the JDK's {@link Mac}, on a fixed clock. */
class CallbackVerifierTest {
    static final String A = secretOf(1);
    static final String B = secretOf(0x41);
    static final String C = secretOf(0x81);
    static final long NOW = 1_800_000_000L;
    static final Clock CLOCK = Clock.fixed(Instant.ofEpochSecond(NOW), ZoneOffset.UTC);

    static String secretOf(int first) {
        byte[] key = new byte[32];
        for (int i = 0; i < key.length; i++) {
            key[i] = (byte) (first + i);
        }
        return "whsec_" + Base64.getEncoder().encodeToString(key);
    }

    static String hmac(String whsec, String id, long timestamp, String body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(Base64.getDecoder().decode(whsec.substring(6)), "HmacSHA256"));
            return Base64.getEncoder()
                    .encodeToString(mac.doFinal((id + "." + timestamp + "." + body).getBytes(StandardCharsets.UTF_8)));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    static String job(String id, String topic, int attempts) {
        return "{\"id\":\"" + id + "\",\"topic\":\"" + topic + "\",\"bizKey\":\"order-42\",\"body\":\"close"
                + " {order} 42 — ü\",\"executeAt\":1800000000000,\"ttr\":30000,\"maxAttempts\":10,\"url\":"
                + "\"http://hooks/x\",\"priority\":0,\"createTime\":1799999990000,\"status\":\"RESERVED\","
                + "\"attempts\":" + attempts + "}";
    }

    /** The headers the service sends, signed with each secret in turn. */
    static Map<String, List<String>> headers(String id, long timestamp, String body, String... secrets) {
        StringBuilder signature = new StringBuilder();
        for (String s : secrets) {
            signature.append(signature.length() == 0 ? "" : " ").append("v1,").append(hmac(s, id, timestamp, body));
        }
        Map<String, List<String>> headers = new LinkedHashMap<>();
        headers.put("webhook-id", List.of(id));
        headers.put("webhook-timestamp", List.of(Long.toString(timestamp)));
        headers.put("webhook-signature", List.of(signature.toString()));
        headers.put("X-Delay-Job-Id", List.of(id));
        headers.put("X-Delay-Topic", List.of(body.contains("\"topic\":\"mail\"") ? "mail" : "orders"));
        headers.put("X-Delay-Attempt", List.of(body.contains("\"attempts\":1") ? "2" : "1"));
        return headers;
    }

    static CallbackVerifier verifier(String... secrets) {
        return CallbackVerifier.builder(secrets).clock(CLOCK).build();
    }

    static void refused(ThrowingCallable call, Reason reason, String message) {
        assertThatThrownBy(call)
                .isInstanceOfSatisfying(CallbackVerificationException.class, e -> assertThat(e.reason())
                        .isEqualTo(reason))
                .hasMessageContaining(message);
    }

    @Test
    void a_callback_signed_by_hand_is_accepted_with_its_id_timestamp_topic_and_attempt() throws Exception {
        String body = job("7-order", "orders", 0);

        VerifiedCallback callback = verifier(A).verify(headers("7-order", NOW - 3, body, A), body);

        assertThat(callback).isEqualTo(new VerifiedCallback("7-order", Instant.ofEpochSecond(NOW - 3), "orders", 1));
        assertThat(callback.jobId()).isEqualTo("7-order");
    }

    @Test
    void the_specifications_own_example_passes_the_signature_check() {
        // secret, id, timestamp, body and signature as the Standard Webhooks specification publishes them; its body
        // is no delay-queue job, so the verifier goes on to refuse that, past the signature
        Map<String, List<String>> headers = Map.of(
                "webhook-id", List.of("msg_p5jXN8AQM9LWM0D4loKWxJek"),
                "webhook-timestamp", List.of("1614265330"),
                "webhook-signature", List.of("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="));
        CallbackVerifier verifier = CallbackVerifier.builder("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
                .clock(Clock.fixed(Instant.ofEpochSecond(1614265330), ZoneOffset.UTC))
                .build();

        refused(() -> verifier.verify(headers, "{\"test\": 2432232314}"), Reason.MISMATCH, "not a delay-queue job");
        refused(() -> verifier.verify(headers, "{\"test\": 2432232315}"), Reason.BAD_SIGNATURE, "no signature");
    }

    @Test
    void headers_are_found_in_any_case_through_a_map_or_a_look_up_and_the_body_as_bytes_or_text() throws Exception {
        String body = job("7-order", "orders", 0);
        Map<String, List<String>> sent = headers("7-order", NOW, body, A);
        Map<String, List<String>> capitalised = new LinkedHashMap<>();
        sent.forEach((name, value) -> capitalised.put(name.toUpperCase(), value));
        Map<String, List<String>> insensitive = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        insensitive.putAll(sent);
        CallbackVerifier verifier = verifier(A);

        assertThat(verifier.verify(capitalised, body.getBytes(StandardCharsets.UTF_8))
                        .id())
                .isEqualTo("7-order");
        assertThat(verifier.verify(
                                name -> insensitive.containsKey(name)
                                        ? insensitive.get(name).get(0)
                                        : null,
                                body)
                        .topic())
                .isEqualTo("orders");
    }

    @Test
    void with_two_secrets_signing_a_receiver_of_either_accepts_and_one_of_another_refuses() throws Exception {
        String body = job("7-order", "orders", 0);
        Map<String, List<String>> rotating = headers("7-order", NOW, body, A, B);
        Map<String, List<String>> newOnly = headers("7-order", NOW, body, B);

        assertThat(verifier(A).verify(rotating, body).id()).isEqualTo("7-order");
        assertThat(verifier(B).verify(rotating, body).id()).isEqualTo("7-order");
        assertThat(verifier(A, B).verify(newOnly, body).id()).isEqualTo("7-order");
        refused(() -> verifier(C).verify(rotating, body), Reason.BAD_SIGNATURE, "1 secret(s)");
        refused(() -> verifier(A).verify(newOnly, body), Reason.BAD_SIGNATURE, "signed with another secret");
    }

    @Test
    void a_changed_body_id_or_timestamp_breaks_the_signature() {
        String body = job("7-order", "orders", 0);
        Map<String, List<String>> sent = headers("7-order", NOW, body, A);
        CallbackVerifier verifier = verifier(A);
        Map<String, List<String>> otherId = new LinkedHashMap<>(sent);
        otherId.put("webhook-id", List.of("8-order"));
        otherId.put("X-Delay-Job-Id", List.of("8-order"));
        Map<String, List<String>> otherTime = new LinkedHashMap<>(sent);
        otherTime.put("webhook-timestamp", List.of(Long.toString(NOW - 1)));

        refused(() -> verifier.verify(sent, body.replace("42", "43")), Reason.BAD_SIGNATURE, "webhook-signature");
        refused(() -> verifier.verify(otherId, body), Reason.BAD_SIGNATURE, "webhook-signature");
        refused(() -> verifier.verify(otherTime, body), Reason.BAD_SIGNATURE, "webhook-signature");
    }

    @Test
    void an_unsigned_or_malformed_callback_is_refused_naming_the_header() {
        String body = job("7-order", "orders", 0);
        Map<String, List<String>> sent = headers("7-order", NOW, body, A);
        CallbackVerifier verifier = verifier(A);
        for (String name : List.of("webhook-id", "webhook-timestamp", "webhook-signature")) {
            Map<String, List<String>> without = new LinkedHashMap<>(sent);
            without.remove(name);
            refused(() -> verifier.verify(without, body), Reason.MISSING_HEADER, name + " is missing");
        }
        Map<String, List<String>> badTime = new LinkedHashMap<>(sent);
        badTime.put("webhook-timestamp", List.of("yesterday"));
        refused(() -> verifier.verify(badTime, body), Reason.MALFORMED_HEADER, "webhook-timestamp is not a number");
        Map<String, List<String>> noV1 = new LinkedHashMap<>(sent);
        noV1.put("webhook-signature", List.of("v1a,abc v2,def"));
        refused(() -> verifier.verify(noV1, body), Reason.MALFORMED_HEADER, "no v1,<base64> signature");
    }

    @Test
    void a_timestamp_past_the_tolerance_either_way_is_refused_and_the_tolerance_can_be_set() throws Exception {
        String body = job("7-order", "orders", 0);
        CallbackVerifier verifier = verifier(A);

        assertThat(verifier.verify(headers("7-order", NOW - 300, body, A), body).id())
                .isEqualTo("7-order");
        assertThat(verifier.verify(headers("7-order", NOW + 300, body, A), body).id())
                .isEqualTo("7-order");
        refused(
                () -> verifier.verify(headers("7-order", NOW - 301, body, A), body),
                Reason.TIMESTAMP_TOO_OLD,
                "301 s old, more than the 300 s tolerated");
        refused(
                () -> verifier.verify(headers("7-order", NOW + 301, body, A), body),
                Reason.TIMESTAMP_TOO_NEW,
                "301 s ahead");
        CallbackVerifier strict = CallbackVerifier.builder(A)
                .clock(CLOCK)
                .tolerance(Duration.ofSeconds(30))
                .build();
        refused(() -> strict.verify(headers("7-order", NOW - 31, body, A), body), Reason.TIMESTAMP_TOO_OLD, "30 s");
    }

    @Test
    void unsigned_delay_headers_must_agree_with_the_signed_body() throws Exception {
        String body = job("7-order", "orders", 1);
        CallbackVerifier verifier = verifier(A);
        Map<String, List<String>> sent = headers("7-order", NOW, body, A);
        assertThat(verifier.verify(sent, body).attempt()).isEqualTo(2);

        Map<String, List<String>> otherTopic = new LinkedHashMap<>(sent);
        otherTopic.put("X-Delay-Topic", List.of("mail"));
        Map<String, List<String>> otherAttempt = new LinkedHashMap<>(sent);
        otherAttempt.put("X-Delay-Attempt", List.of("1"));
        Map<String, List<String>> otherJob = new LinkedHashMap<>(sent);
        otherJob.put("X-Delay-Job-Id", List.of("9-x"));
        String otherBody = job("8-order", "orders", 1);
        Map<String, List<String>> bodyOfAnotherJob = headers("7-order", NOW, otherBody, A);

        refused(() -> verifier.verify(otherTopic, body), Reason.MISMATCH, "X-Delay-Topic 'mail'");
        refused(() -> verifier.verify(otherAttempt, body), Reason.MISMATCH, "X-Delay-Attempt '1'");
        refused(() -> verifier.verify(otherJob, body), Reason.MISMATCH, "X-Delay-Job-Id '9-x'");
        refused(() -> verifier.verify(bodyOfAnotherJob, otherBody), Reason.MISMATCH, "job '8-order'");
    }

    @Test
    void with_a_replay_memory_an_exact_resend_is_refused_and_a_redelivery_accepted() throws Exception {
        CallbackVerifier verifier =
                CallbackVerifier.builder(A, B).clock(CLOCK).refuseReplays(100).build();
        String first = job("7-order", "orders", 0);
        Map<String, List<String>> firstSend = headers("7-order", NOW - 10, first, A, B);
        assertThat(verifier.verify(firstSend, first).attempt()).isEqualTo(1);

        refused(() -> verifier.verify(firstSend, first), Reason.REPLAYED, "accepted before");
        // the same delivery with one signature of the rotated pair dropped is no new delivery
        Map<String, List<String>> stripped = new LinkedHashMap<>(firstSend);
        stripped.put(
                "webhook-signature",
                List.of(firstSend.get("webhook-signature").get(0).split(" ")[1]));
        refused(() -> verifier.verify(stripped, first), Reason.REPLAYED, "accepted before");

        // the service's re-delivery: the same id, a new timestamp (and the next attempt in its body)
        String again = job("7-order", "orders", 1);
        assertThat(verifier.verify(headers("7-order", NOW, again, A, B), again).attempt())
                .isEqualTo(2);
        // a re-delivery within the same second differs by its body's attempts
        assertThat(verifier.verify(headers("7-order", NOW - 10, again, A, B), again)
                        .id())
                .isEqualTo("7-order");

        CallbackVerifier forgetful = verifier(A, B);
        assertThat(forgetful.verify(firstSend, first).id()).isEqualTo("7-order");
        assertThat(forgetful.verify(firstSend, first).id())
                .as("without a replay memory, a re-send within the tolerance passes")
                .isEqualTo("7-order");
    }

    @Test
    void a_refused_forgery_is_not_remembered() throws Exception {
        CallbackVerifier verifier =
                CallbackVerifier.builder(A).clock(CLOCK).refuseReplays(100).build();
        String body = job("7-order", "orders", 0);

        refused(() -> verifier.verify(headers("7-order", NOW, body, C), body), Reason.BAD_SIGNATURE, "no signature");

        assertThat(verifier.verify(headers("7-order", NOW, body, A), body).id()).isEqualTo("7-order");
    }

    @Test
    void a_full_replay_memory_forgets_the_oldest_and_refuses_whatever_was_signed_no_later() throws Exception {
        CallbackVerifier verifier =
                CallbackVerifier.builder(A).clock(CLOCK).refuseReplays(2).build();
        String body = job("7-order", "orders", 0);
        Map<String, List<String>> at100 = headers("7-order", NOW - 100, body, A);
        verifier.verify(at100, body);
        verifier.verify(headers("7-order", NOW - 50, body, A), body);
        verifier.verify(headers("7-order", NOW - 20, body, A), body);

        refused(() -> verifier.verify(at100, body), Reason.TIMESTAMP_TOO_OLD, "had to forget");
        String other = job("8-order", "orders", 0);
        refused(
                () -> verifier.verify(headers("8-order", NOW - 100, other, A), other),
                Reason.TIMESTAMP_TOO_OLD,
                "had to forget");
        assertThat(verifier.verify(headers("8-order", NOW - 99, other, A), other)
                        .id())
                .isEqualTo("8-order");
    }

    @Test
    void deliveries_past_the_tolerance_leave_the_replay_memory() throws Exception {
        ReplayGuard guard = new ReplayGuard(1000, 300);
        guard.admit(new byte[] {1}, 1000, 1000);
        guard.admit(new byte[] {2}, 1001, 1001);
        assertThat(guard.size()).isEqualTo(2);

        guard.admit(new byte[] {3}, 1301, 1301);

        assertThat(guard.size()).as("the first is past the tolerance").isEqualTo(2);
        refused(() -> guard.admit(new byte[] {1}, 1000, 1000), Reason.TIMESTAMP_TOO_OLD, "had to forget");
        refused(() -> guard.admit(new byte[] {2}, 1001, 1301), Reason.REPLAYED, "accepted before");
    }

    @Test
    void a_bad_secret_is_refused_by_position_never_by_value() {
        String tooShort = "whsec_" + Base64.getEncoder().encodeToString(new byte[16]);
        String raw = Base64.getEncoder().encodeToString(new byte[32]);

        assertThatThrownBy(() -> CallbackVerifier.of(A, raw))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("secret 2 of 2 is not a signing secret")
                .hasMessageNotContaining(raw);
        assertThatThrownBy(() -> CallbackVerifier.of(tooShort))
                .hasMessageContaining("16 bytes")
                .hasMessageNotContaining(tooShort);
        assertThatThrownBy(() -> CallbackVerifier.of("whsec_%%%"))
                .hasMessageContaining("not standard Base64")
                .hasMessageNotContaining("%%%");
        assertThatThrownBy(CallbackVerifier::of).hasMessageContaining("at least one");
    }
}
