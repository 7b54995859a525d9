package io.delayqueue.client.spring;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** Callbacks signed by hand, as the service signs them, and sent to a receiver. */
final class Signing {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private Signing() {}

    static String newSecret() {
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        return "whsec_" + Base64.getEncoder().encodeToString(key);
    }

    static String jobJson(String id, String topic, int attempts, String body) {
        return "{\"id\":\"" + id + "\",\"topic\":\"" + topic + "\",\"body\":\"" + body
                + "\",\"executeAt\":1,\"ttr\":30000,\"maxAttempts\":3,\"attempts\":" + attempts + "}";
    }

    static String signature(String secret, String id, long timestamp, String body) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(Base64.getDecoder().decode(secret.substring("whsec_".length())), "HmacSHA256"));
        byte[] sig = mac.doFinal((id + "." + timestamp + "." + body).getBytes(StandardCharsets.UTF_8));
        return "v1," + Base64.getEncoder().encodeToString(sig);
    }

    /** Posts {@code body} to {@code url} as the service's callback of job {@code id}, signed with {@code secret}. */
    static HttpResponse<String> send(
            String url, String secret, String id, String topic, int attempts, String body, long timestamp)
            throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url))
                .header("Content-Type", "application/json")
                .header("webhook-id", id)
                .header("webhook-timestamp", Long.toString(timestamp))
                .header("webhook-signature", signature(secret, id, timestamp, body))
                .header("X-Delay-Job-Id", id)
                .header("X-Delay-Topic", topic)
                .header("X-Delay-Attempt", Integer.toString(attempts + 1))
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }

    static long now() {
        return System.currentTimeMillis() / 1000;
    }
}
