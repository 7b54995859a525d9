package io.delayqueue.e2e.support;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** The service's HTTP API over a real socket (java.net.http), answers parsed as the JSON envelope. */
public final class Api {
    public static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient client;
    private final String base;
    /** Sent with every request: name, value, name, value... */
    private final java.util.List<String> headers;

    public Api(int port) {
        this(
                "http://127.0.0.1:" + port,
                HttpClient.newBuilder()
                        .version(HttpClient.Version.HTTP_1_1)
                        .connectTimeout(Duration.ofSeconds(5))
                        .build(),
                java.util.List.of());
    }

    private Api(String base, HttpClient client, java.util.List<String> headers) {
        this.base = base;
        this.client = client;
        this.headers = headers;
    }

    /** This client, sending one more header with every request (e.g. {@code Authorization}). */
    public Api withHeader(String name, String value) {
        java.util.List<String> more = new java.util.ArrayList<>(headers);
        more.add(name);
        more.add(value);
        return new Api(base, client, java.util.List.copyOf(more));
    }

    /** One answer: status, raw body, and the envelope when the body is JSON. */
    public record Response(int status, String raw, JsonNode json, HttpHeaders headers) {
        public boolean success() {
            return json != null && json.path("success").asBoolean(false);
        }

        /** The envelope's {@code code}, or -1 when there is none. */
        public int code() {
            return json != null && json.has("code") ? json.get("code").asInt() : -1;
        }

        public String message() {
            return json == null || json.path("message").isNull()
                    ? null
                    : json.path("message").asText();
        }

        public JsonNode data() {
            return json == null ? null : json.path("data");
        }

        @Override
        public String toString() {
            return status + " " + raw;
        }
    }

    public Response get(String path) {
        return send("GET", path, null);
    }

    public Response post(String path, String body) {
        return send("POST", path, body);
    }

    public Response postJson(String path, Object body) {
        return post(path, toJson(body));
    }

    public Response delete(String path) {
        return send("DELETE", path, null);
    }

    public Response send(String method, String path, String body) {
        try {
            return toResponse(client.send(request(method, path, body), HttpResponse.BodyHandlers.ofString()));
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + path + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during " + method + " " + path, e);
        }
    }

    public CompletableFuture<Response> sendAsync(String method, String path, String body) {
        return client.sendAsync(request(method, path, body), HttpResponse.BodyHandlers.ofString())
                .thenApply(Api::toResponse);
    }

    private HttpRequest request(String method, String path, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(60));
        for (int i = 0; i < headers.size(); i += 2) {
            b.header(headers.get(i), headers.get(i + 1));
        }
        if (body != null) {
            b.header("Content-Type", "application/json");
            b.method(method, HttpRequest.BodyPublishers.ofString(body));
        } else {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        }
        return b.build();
    }

    private static Response toResponse(HttpResponse<String> r) {
        JsonNode json = null;
        try {
            json = r.body() == null || r.body().isEmpty() ? null : JSON.readTree(r.body());
        } catch (JsonProcessingException notJson) {
            // left null: the test looking at it will say so
        }
        return new Response(r.statusCode(), r.body(), json, r.headers());
    }

    public static String toJson(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The sum of {@code /stats} counts per status plus the bucket sizes: changes whenever anything is written. */
    public long storedTotal() {
        Response r = get("/stats");
        if (r.status() != 200) {
            throw new AssertionError("GET /stats answered " + r);
        }
        long total = 0;
        for (JsonNode n : r.data().path("byStatus")) {
            total += n.asLong();
        }
        for (JsonNode shard : r.data().path("shards")) {
            total += shard.path("bucketSize").asLong();
        }
        return total;
    }

    /** {@code /stats} count of one status. */
    public long countOf(String status) {
        Response r = get("/stats");
        if (r.status() != 200) {
            throw new AssertionError("GET /stats answered " + r);
        }
        return r.data().path("byStatus").path(status).asLong();
    }
}
