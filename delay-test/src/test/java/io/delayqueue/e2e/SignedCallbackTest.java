package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.delayqueue.client.callback.CallbackVerificationException;
import io.delayqueue.client.callback.CallbackVerificationException.Reason;
import io.delayqueue.client.callback.CallbackVerifier;
import io.delayqueue.client.callback.VerifiedCallback;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.CallbackServer;
import io.delayqueue.e2e.support.CallbackServer.Call;
import io.delayqueue.e2e.support.CallbackServer.Request;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.ServiceTest;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.ToIntFunction;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Signed HTTP callbacks from the real service, checked by the client's {@link CallbackVerifier} in a receiver: the
 * service signs each send with the secrets for all topics (two, as while rotating) or a topic's own; the receiver
 * accepts them, and refuses a forged one (changed body, another secret) and a replayed one (the same request sent
 * again, or verified past the tolerance), while the service's own re-delivery of a job is accepted.
 */
@ServiceTest(
        properties = {
            "delay.dispatch.topics.signed=http",
            "delay.dispatch.topics.signed-own=http",
            "delay.retry.topics.signed.backoff=50ms",
            "delay.http.signing.secrets=" + SignedCallbackTest.A + "," + SignedCallbackTest.B,
            "delay.http.signing.topics.signed-own=" + SignedCallbackTest.C
        })
class SignedCallbackTest {
    // secrets of this test only, made with: echo "whsec_$(openssl rand -base64 32)"
    static final String A = "whsec_ipJhc0GkQtzptGuQ6psWKsyjhBWw9OKnZsq4WvLLLDM=";
    static final String B = "whsec_8VqaAY0C5Az1gdc1zC0D4bDkpFi4XGlPCMS+1olSguE=";
    static final String C = "whsec_cjTUBJPU25hI6NJLk6R+INT00euqwFtBu0MiVt5C2R0=";
    /** Known to no one but a forger. */
    static final String FORGER = "whsec_hAv1J/1OMYlZy3ytB2UwWI8wbeXBIPOnOMzECIujKBI=";

    static final ServiceStores STORES = ServiceStores.redisOnly("signed");
    static final CallbackServer CALLBACKS = CallbackServer.started();
    static final HttpClient HTTP = HttpClient.newHttpClient();

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        STORES.register(registry);
    }

    @LocalServerPort
    int port;

    private final List<VerifiedCallback> accepted = new CopyOnWriteArrayList<>();
    private final List<Reason> refused = new CopyOnWriteArrayList<>();

    /** A receiver: 2xx only for a callback the verifier accepts (then {@code status}), 401 otherwise. */
    private ToIntFunction<Request> receiver(CallbackVerifier verifier, ToIntFunction<Integer> statusOfAccepted) {
        return request -> {
            try {
                accepted.add(verifier.verify(request.headers(), request.body()));
                return statusOfAccepted.applyAsInt(accepted.size());
            } catch (CallbackVerificationException e) {
                refused.add(e.reason());
                return 401;
            }
        };
    }

    private String push(Api api, String topic, String path) {
        Api.Response r = api.postJson(
                "/push", Map.of("topic", topic, "body", "close order 42", "delay", 0, "url", CALLBACKS.url(path)));
        assertThat(r.status()).as("push: %s", r).isEqualTo(200);
        return r.data().asText();
    }

    private void awaitFinished(Api api, String id) {
        await("job " + id + " is FINISHED")
                .atMost(Duration.ofSeconds(30))
                .until(() ->
                        api.get("/jobs/" + id).data().path("status").asText().equals("FINISHED"));
    }

    /** Sends {@code headers} and {@code body} to {@code path} as a forger or replayer would; the answer's status. */
    private static int send(String path, Map<String, List<String>> headers, byte[] body)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(CALLBACKS.url(path)))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        headers.forEach((name, values) -> {
            if (name.toLowerCase().startsWith("webhook-")
                    || name.toLowerCase().startsWith("x-delay-")
                    || name.equalsIgnoreCase("content-type")) {
                values.forEach(v -> request.header(name, v));
            }
        });
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }

    private static String hmac(String whsec, String id, String timestamp, byte[] body) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(Base64.getDecoder().decode(whsec.substring(6)), "HmacSHA256"));
        mac.update((id + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8));
        return Base64.getEncoder().encodeToString(mac.doFinal(body));
    }

    @Test
    void the_service_signs_its_callbacks_and_a_receiver_refuses_a_forged_or_replayed_one() throws Exception {
        Api api = new Api(port);
        String path = "/signed/" + UUID.randomUUID();
        CALLBACKS.respond(
                path, receiver(CallbackVerifier.builder(A).refuseReplays(1000).build(), n -> 204));

        String id = push(api, "signed", path);

        awaitFinished(api, id);
        Call delivered = CALLBACKS.calls(path).get(0);
        assertThat(delivered.status())
                .as("the receiver accepted the service's callback")
                .isEqualTo(204);
        assertThat(accepted).singleElement().satisfies(c -> {
            assertThat(c.id()).isEqualTo(id);
            assertThat(c.topic()).isEqualTo("signed");
            assertThat(c.attempt()).isEqualTo(1);
        });
        assertThat(delivered.headers().get("webhook-id")).containsExactly(id);
        assertThat(delivered.headers().get("webhook-signature").get(0))
                .as("one signature per secret, both secrets being in use")
                .matches("v1,\\S+ v1,\\S+");

        // the same request, sent again by whoever saw it
        assertThat(send(path, delivered.headers(), delivered.body())).isEqualTo(401);
        // its body changed
        byte[] changed = new String(delivered.body(), StandardCharsets.UTF_8)
                .replace("close order 42", "close order 43")
                .getBytes(StandardCharsets.UTF_8);
        assertThat(send(path, delivered.headers(), changed)).isEqualTo(401);
        // signed anew, with a secret the service does not hold
        Map<String, List<String>> forged = new java.util.TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        forged.putAll(delivered.headers());
        String now = Long.toString(System.currentTimeMillis() / 1000);
        forged.put("webhook-timestamp", List.of(now));
        forged.put("webhook-signature", List.of("v1," + hmac(FORGER, id, now, changed)));
        assertThat(send(path, forged, changed)).isEqualTo(401);
        assertThat(refused).containsExactly(Reason.REPLAYED, Reason.BAD_SIGNATURE, Reason.BAD_SIGNATURE);
        assertThat(accepted).hasSize(1);

        // sent again past the tolerance, to a receiver that remembers nothing: too old
        CallbackVerifier sixMinutesOn = CallbackVerifier.builder(A)
                .clock(Clock.offset(Clock.systemUTC(), Duration.ofMinutes(6)))
                .build();
        assertThatThrownBy(() -> sixMinutesOn.verify(delivered.headers(), delivered.body()))
                .isInstanceOfSatisfying(CallbackVerificationException.class, e -> assertThat(e.reason())
                        .isEqualTo(Reason.TIMESTAMP_TOO_OLD));
        // a receiver that has moved on to the second secret accepts the same delivery
        assertThat(CallbackVerifier.of(B)
                        .verify(delivered.headers(), delivered.body())
                        .id())
                .isEqualTo(id);
    }

    @Test
    void a_redelivery_keeps_the_job_id_and_is_signed_anew_so_a_receiver_that_refuses_replays_accepts_it() {
        Api api = new Api(port);
        String path = "/redelivered/" + UUID.randomUUID();
        CALLBACKS.respond(
                path,
                receiver(CallbackVerifier.builder(A, B).refuseReplays(1000).build(), n -> n == 1 ? 500 : 200));

        String id = push(api, "signed", path);

        awaitFinished(api, id);
        assertThat(refused).isEmpty();
        assertThat(CALLBACKS.calls(path)).extracting(Call::status).containsExactly(500, 200);
        assertThat(accepted).extracting(VerifiedCallback::id).containsExactly(id, id);
        assertThat(accepted).extracting(VerifiedCallback::attempt).containsExactly(1, 2);
        List<Call> calls = CALLBACKS.calls(path);
        assertThat(calls.get(1).headers().get("webhook-signature"))
                .isNotEqualTo(calls.get(0).headers().get("webhook-signature"));
    }

    @Test
    void a_topics_own_secret_signs_its_callbacks_in_place_of_the_secrets_for_all() throws Exception {
        Api api = new Api(port);
        String path = "/own/" + UUID.randomUUID();
        CALLBACKS.respond(path, receiver(CallbackVerifier.of(C), n -> 204));

        String id = push(api, "signed-own", path);

        awaitFinished(api, id);
        assertThat(accepted).extracting(VerifiedCallback::topic).containsExactly("signed-own");
        Call delivered = CALLBACKS.calls(path).get(0);
        assertThat(delivered.headers().get("webhook-signature").get(0)).matches("v1,\\S+");
        assertThatThrownBy(() -> CallbackVerifier.of(A, B).verify(delivered.headers(), delivered.body()))
                .isInstanceOfSatisfying(CallbackVerificationException.class, e -> assertThat(e.reason())
                        .isEqualTo(Reason.BAD_SIGNATURE));
    }
}
