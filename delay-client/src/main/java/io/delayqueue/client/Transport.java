package io.delayqueue.client;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.NullNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The HTTP calls of a {@link DelayQueueClient}: one {@link HttpClient} (HTTP/1.1, which the service speaks), the
 * token on every call, the envelope {@code {success, code, data, message}} read back, and the {@link RetryPolicy}
 * applied to calls that are safe to repeat. Thread-safe.
 */
final class Transport {
    static final ObjectMapper JSON = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
            .setSerializationInclusion(JsonInclude.Include.NON_NULL);

    private final HttpClient http;
    private final String base;
    private final String authorization;
    private final Duration requestTimeout;

    Transport(HttpClient http, String base, String token, Duration requestTimeout) {
        this.http = http;
        this.base = base;
        this.authorization = token == null || token.isBlank() ? null : "Bearer " + token;
        this.requestTimeout = requestTimeout;
    }

    /**
     * An answer of the service: its HTTP status and envelope ({@code data} and {@code message} may be absent from a
     * reply that was not the service's, a proxy's say).
     */
    record Reply(int status, JsonNode envelope, String raw) {
        JsonNode data() {
            JsonNode data = envelope == null ? null : envelope.get("data");
            return data == null ? NullNode.getInstance() : data;
        }

        String message() {
            JsonNode message = envelope == null ? null : envelope.get("message");
            if (message != null && !message.isNull()) {
                return message.asText();
            }
            return raw.length() > 300 ? raw.substring(0, 300) + "..." : raw;
        }
    }

    /**
     * How a call, with its retries, ended: the last answer, or when the last call had none, why.
     *
     * @param reply the last answer; null when the last call had none
     * @param failure why the last call had no answer; null when it had one
     * @param calls the calls made
     */
    record Exchange(Reply reply, Exception failure, int calls) {
        boolean answered() {
            return reply != null;
        }

        int status() {
            return reply == null ? 0 : reply.status();
        }

        /** The answer's message, or what kept the call from being answered. */
        String message() {
            return reply != null ? reply.message() : describe();
        }

        /** The answer's status and message, or what kept the call from being answered. */
        String describe() {
            if (reply != null) {
                return reply.status() + " " + reply.message();
            }
            return "no answer after " + calls + (calls == 1 ? " call: " : " calls: ") + failure;
        }
    }

    /**
     * Sends {@code method path} with {@code body} (JSON; null for none), repeated as {@code policy} allows while
     * the answer is retryable or missing.
     *
     * @param extraWait added to each call's timeout (a long poll's wait)
     */
    Exchange call(String method, String path, byte[] body, RetryPolicy policy, Duration extraWait) {
        long start = System.nanoTime();
        long deadline = start + policy.deadline().toNanos() + extraWait.toNanos();
        Reply reply = null;
        Exception failure = null;
        int calls = 0;
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0 && calls > 0) {
                break;
            }
            long timeout = Math.min(requestTimeout.toNanos() + extraWait.toNanos(), Math.max(left, 1_000_000));
            calls++;
            try {
                reply = once(method, path, body, Duration.ofNanos(timeout));
                failure = null;
                if (!RetryPolicy.isRetryable(reply.status())) {
                    break;
                }
            } catch (IOException e) {
                reply = null;
                failure = e;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                reply = null;
                failure = e;
                break;
            }
            if (calls >= policy.maxAttempts()) {
                break;
            }
            long wait = policy.backoffNanos(calls);
            if (System.nanoTime() + wait >= deadline) {
                break;
            }
            LockSupport.parkNanos(wait);
            if (Thread.currentThread().isInterrupted()) {
                failure = reply == null ? new InterruptedException("interrupted between retries") : null;
                break;
            }
        }
        return new Exchange(reply, failure, calls);
    }

    /** One call, no retry. */
    Reply once(String method, String path, byte[] body, Duration timeout) throws IOException, InterruptedException {
        HttpRequest.Builder request =
                HttpRequest.newBuilder(URI.create(base + path)).timeout(timeout).header("Accept", "application/json");
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        if (body != null) {
            request.header("Content-Type", "application/json");
            request.method(method, HttpRequest.BodyPublishers.ofByteArray(body));
        } else {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        }
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        JsonNode envelope = null;
        try {
            JsonNode parsed = JSON.readTree(response.body());
            envelope = parsed != null && parsed.isObject() ? parsed : null;
        } catch (IOException notJson) {
            // a proxy's page, say: the status alone speaks
        }
        return new Reply(response.statusCode(), envelope, response.body() == null ? "" : response.body());
    }

    static byte[] toJson(Object value) {
        try {
            return JSON.writeValueAsBytes(value);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot write as JSON: " + value, e);
        }
    }

    static long millis(Duration d) {
        return TimeUnit.NANOSECONDS.toMillis(d.toNanos());
    }
}
