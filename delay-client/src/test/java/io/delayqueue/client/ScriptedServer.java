package io.delayqueue.client;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Function;

/**
 * A local HTTP server (the JDK's) that answers each call with the next scripted answer and records the calls: the
 * service's answers, made to order, for the client's unit tests.
 */
final class ScriptedServer implements AutoCloseable {
    /** A call as the server received it. */
    record Call(String method, String path, Map<String, List<String>> headers, String body, long atNanos) {
        String header(String name) {
            return headers.entrySet().stream()
                    .filter(e -> e.getKey().equalsIgnoreCase(name))
                    .map(e -> e.getValue().get(0))
                    .findFirst()
                    .orElse(null);
        }
    }

    /** An answer: status, body, and how long to wait before sending it. */
    record Answer(int status, String body, long delayMs) {}

    private final HttpServer server;
    private final BlockingQueue<Function<Call, Answer>> script = new LinkedBlockingQueue<>();
    private final List<Call> calls = Collections.synchronizedList(new ArrayList<>());
    private volatile Function<Call, Answer> otherwise = c -> envelope(500, "null", "nothing scripted");

    ScriptedServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/", exchange -> {
            String uri = exchange.getRequestURI().toString();
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            Call call = new Call(
                    exchange.getRequestMethod(),
                    uri,
                    Map.copyOf(exchange.getRequestHeaders()),
                    body,
                    System.nanoTime());
            calls.add(call);
            Function<Call, Answer> next = script.poll();
            Answer answer = (next != null ? next : otherwise).apply(call);
            if (answer.delayMs() > 0) {
                try {
                    Thread.sleep(answer.delayMs());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            byte[] bytes = answer.body().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            try {
                exchange.sendResponseHeaders(answer.status(), bytes.length == 0 ? -1 : bytes.length);
                if (bytes.length > 0) {
                    exchange.getResponseBody().write(bytes);
                }
            } catch (IOException clientGone) {
                // the client timed out first
            }
            exchange.close();
        });
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Answers the next call with {@code status} and the envelope of {@code dataJson} and {@code message}. */
    ScriptedServer then(int status, String dataJson, String message) {
        script.add(c -> envelope(status, dataJson, message));
        return this;
    }

    ScriptedServer then(Function<Call, Answer> answer) {
        script.add(answer);
        return this;
    }

    /** Answers every call past the script with {@code answer}. */
    ScriptedServer otherwise(Function<Call, Answer> answer) {
        otherwise = answer;
        return this;
    }

    List<Call> calls() {
        synchronized (calls) {
            return List.copyOf(calls);
        }
    }

    static Answer envelope(int status, String dataJson, String message) {
        return envelope(status, dataJson, message, 0);
    }

    static Answer envelope(int status, String dataJson, String message, long delayMs) {
        String body = "{\"success\":" + (status / 100 == 2) + ",\"code\":" + status + ",\"data\":" + dataJson
                + ",\"message\":" + (message == null ? "null" : "\"" + message.replace("\"", "\\\"") + "\"") + "}";
        return new Answer(status, body, delayMs);
    }

    @Override
    public void close() {
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }
}
