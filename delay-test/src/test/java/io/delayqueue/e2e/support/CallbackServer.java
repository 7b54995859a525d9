package io.delayqueue.e2e.support;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.IntUnaryOperator;
import java.util.function.ToIntFunction;

/**
 * A business system's callback endpoint: the JDK's HTTP server on a free port. Each path answers with
 * the status its script gives for the n-th call (1-based), or its responder for the request, and every call is
 * remembered with its time, headers and body.
 */
public final class CallbackServer implements AutoCloseable {
    private final HttpServer server;
    private final ExecutorService executor = Executors.newFixedThreadPool(4);
    private final Map<String, ToIntFunction<Request>> scripts = new ConcurrentHashMap<>();
    private final Map<String, List<Call>> calls = new ConcurrentHashMap<>();

    /**
     * One call: when it came (epoch ms), the job id header, the answer given, its headers (names in any case) and
     * body.
     */
    public record Call(long at, String jobId, int status, Map<String, List<String>> headers, byte[] body) {}

    /** A request as a responder sees it: the n-th call of its path (1-based), its headers (any case) and body. */
    public record Request(int n, Map<String, List<String>> headers, byte[] body) {}

    private CallbackServer() {
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    public static CallbackServer started() {
        return new CallbackServer();
    }

    /** Makes {@code path} answer {@code statusOfCall.applyAsInt(n)} to its n-th call. */
    public void script(String path, IntUnaryOperator statusOfCall) {
        scripts.put(path, request -> statusOfCall.applyAsInt(request.n()));
    }

    /** Makes {@code path} answer each request with the status {@code responder} gives it. */
    public void respond(String path, ToIntFunction<Request> responder) {
        scripts.put(path, responder);
    }

    public String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    /** The calls of {@code path} so far, oldest first. */
    public List<Call> calls(String path) {
        List<Call> list = calls.get(path);
        if (list == null) {
            return List.of();
        }
        synchronized (list) {
            return List.copyOf(list);
        }
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body = exchange.getRequestBody().readAllBytes();
            Map<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
            exchange.getRequestHeaders().forEach((name, values) -> headers.put(name, List.copyOf(values)));
            String path = exchange.getRequestURI().getPath();
            List<Call> list = calls.computeIfAbsent(path, p -> new ArrayList<>());
            int status;
            synchronized (list) {
                status = scripts.getOrDefault(path, r -> 404).applyAsInt(new Request(list.size() + 1, headers, body));
                list.add(new Call(
                        System.currentTimeMillis(),
                        exchange.getRequestHeaders().getFirst("X-Delay-Job-Id"),
                        status,
                        headers,
                        body));
            }
            exchange.sendResponseHeaders(status, -1);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
