package io.delayqueue.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The receiver of the {@code http} dispatcher's callbacks: the JDK's HTTP server on a free loopback port, answering
 * 200 at once (keep-alive), recording each job's hand-over (received now, due at its {@code executeAt}) into the
 * {@link HandOvers} of the run under way. Redeliveries of a job (a lost answer, say) are counted apart.
 */
final class CallbackReceiver implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpServer server;
    private final ExecutorService threads;
    private final AtomicLong malformed = new AtomicLong();
    private final AtomicLong redelivered = new AtomicLong();
    private volatile HandOvers current = HandOvers.counting();

    CallbackReceiver() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
        threads = Executors.newFixedThreadPool(8, r -> {
            Thread t = new Thread(r, "bench-callback-receiver");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(threads);
        server.createContext("/cb", this::receive);
        server.start();
    }

    /** The URL jobs carry. */
    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/cb";
    }

    /** Records the next hand-overs into {@code handOvers}. */
    void recordInto(HandOvers handOvers) {
        this.current = handOvers;
    }

    long malformed() {
        return malformed.get();
    }

    long redelivered() {
        return redelivered.get();
    }

    private void receive(HttpExchange exchange) throws IOException {
        try (exchange;
                InputStream in = exchange.getRequestBody()) {
            byte[] body = in.readAllBytes();
            HandOvers into = current;
            try {
                JsonNode job = JSON.readTree(body);
                String attempt = exchange.getRequestHeaders().getFirst("X-Delay-Attempt");
                if (attempt != null && !attempt.equals("1")) {
                    redelivered.incrementAndGet(); // handed over before; its answer did not count
                } else {
                    into.record(job.get("executeAt").asLong());
                }
            } catch (RuntimeException | IOException e) {
                malformed.incrementAndGet();
            }
            exchange.sendResponseHeaders(200, -1);
        }
    }

    /**
     * Warms this receiver (the benchmark JVM's HTTP server and JSON parsing) with {@code callbacks} posts of callbacks
     * shaped as the service's, from 8 keep-alive connections, counted apart from any run's. A fresh service's first
     * burst must measure the service: in a benchmark JVM that had not received a callback yet, the receiver's code ran
     * interpreted through that burst (a first burst at 0.35 of the settled rate, the service's own CPU at a third of
     * the machine while the machine was busy).
     */
    void warmUp(int callbacks, int bodyBytes) throws Exception {
        HandOvers before = current;
        current = HandOvers.counting();
        try {
            int port = server.getAddress().getPort();
            byte[] json = ("{\"id\":\"warm-up\",\"topic\":\"bench-warm-up\",\"body\":\"" + "x".repeat(bodyBytes)
                            + "\",\"executeAt\":" + System.currentTimeMillis() + ",\"attempt\":1}")
                    .getBytes(StandardCharsets.UTF_8);
            int connections = 8;
            Parallel.run(connections, "bench-receiver-warm-up", () -> {
                try (HttpConnection connection = new HttpConnection("127.0.0.1", port)) {
                    for (int i = 0; i < callbacks / connections; i++) {
                        int status = connection.postJson("/cb", json).status();
                        if (status != 200) {
                            throw new IllegalStateException("the receiver answered " + status);
                        }
                    }
                }
            });
        } finally {
            current = before;
        }
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
