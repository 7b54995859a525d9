package io.delayqueue.queue.dispatch.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.common.JsonCodec;
import io.delayqueue.queue.dispatch.DispatchRejectedException;
import io.delayqueue.queue.testing.ClosedPort;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The HTTP-callback dispatcher against a local HTTP server (the JDK's own), no mocks. */
class HttpCallbackDispatcherTest {
    private HttpServer server;
    private HttpCallbackDispatcher dispatcher;
    private final AtomicInteger status = new AtomicInteger(200);
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final CountDownLatch release = new CountDownLatch(1);
    /** Calls of {@code /hang} that arrived. */
    private final AtomicInteger hung = new AtomicInteger();

    private record Received(
            String method, String contentType, String jobId, String topic, String attempt, String body) {}

    @BeforeEach
    void setUp() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/callback", this::answer);
        server.createContext("/hang", exchange -> {
            hung.incrementAndGet();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        server.start();
        dispatcher =
                new HttpCallbackDispatcher(new HttpCallbackSettings(Duration.ofSeconds(5), Duration.ofSeconds(10)));
    }

    @AfterEach
    void tearDown() {
        release.countDown();
        dispatcher.close();
        server.stop(0);
    }

    private void answer(HttpExchange exchange) throws IOException {
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        received.add(new Received(
                exchange.getRequestMethod(),
                exchange.getRequestHeaders().getFirst("Content-Type"),
                exchange.getRequestHeaders().getFirst("X-Delay-Job-Id"),
                exchange.getRequestHeaders().getFirst("X-Delay-Topic"),
                exchange.getRequestHeaders().getFirst("X-Delay-Attempt"),
                body));
        if (status.get() / 100 == 3) {
            exchange.getResponseHeaders().add("Location", "/callback");
        }
        exchange.sendResponseHeaders(status.get(), -1);
        exchange.close();
    }

    private String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    private static Job job(String url) {
        return new Job(
                "3-abc",
                "orders",
                "paid",
                "order-42",
                "close order 42",
                1_700_000_000_000L,
                30_000,
                5,
                url,
                0,
                1_699_999_000_000L,
                JobStatus.RESERVED,
                2);
    }

    private static Throwable failureOf(java.util.concurrent.CompletionStage<Void> stage) {
        try {
            stage.toCompletableFuture().join();
        } catch (CompletionException e) {
            return e.getCause();
        }
        throw new AssertionError("the send was confirmed");
    }

    @Test
    void job_is_posted_as_json_with_its_id_topic_and_attempt_in_headers_and_a_2xx_confirms_it() {
        status.set(204);

        dispatcher.dispatch(job(url("/callback"))).toCompletableFuture().join();

        assertThat(received).hasSize(1);
        Received r = received.get(0);
        assertThat(r.method()).isEqualTo("POST");
        assertThat(r.contentType()).isEqualTo("application/json");
        assertThat(r.jobId()).isEqualTo("3-abc");
        assertThat(r.topic()).isEqualTo("orders");
        assertThat(r.attempt()).isEqualTo("3");
        Job posted = JsonCodec.readJob(r.body());
        assertThat(posted.id()).isEqualTo("3-abc");
        assertThat(posted.body()).isEqualTo("close order 42");
        assertThat(posted.bizKey()).isEqualTo("order-42");
        assertThat(posted.subtopic()).isEqualTo("paid");
    }

    @Test
    void a_job_whose_host_is_not_allowed_is_never_called_and_its_send_fails_naming_the_setting() {
        HttpCallbackDispatcher limited = new HttpCallbackDispatcher(new HttpCallbackSettings(
                Duration.ofSeconds(5), Duration.ofSeconds(10), 4, new CallbackHosts(List.of("hooks.example.com"))));
        try {
            Throwable failure = failureOf(limited.dispatch(job(url("/callback"))));

            assertThat(failure)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("127.0.0.1")
                    .hasMessageContaining("delay.http.allowed-hosts");
            assertThat(received).as("calls the server got").isEmpty();
            assertThat(limited.urlRefusal(java.net.URI.create(url("/callback"))))
                    .isNotNull();
            assertThat(limited.urlRefusal(java.net.URI.create("https://hooks.example.com/x")))
                    .isNull();
        } finally {
            limited.close();
        }
    }

    @Test
    void an_answer_outside_2xx_is_a_failed_send_naming_the_status() {
        for (int code : List.of(500, 404, 302)) {
            status.set(code);

            Throwable failure = failureOf(dispatcher.dispatch(job(url("/callback"))));

            assertThat(failure).isInstanceOf(HttpCallbackDispatcher.CallbackRefusedException.class);
            assertThat(((HttpCallbackDispatcher.CallbackRefusedException) failure).status())
                    .isEqualTo(code);
            assertThat(failure).hasMessageContaining(Integer.toString(code));
        }
        assertThat(received).as("a redirect is not followed").hasSize(3);
    }

    @Test
    void a_refused_connection_is_a_failed_send() throws IOException {
        int closedPort = ClosedPort.get();

        Throwable failure = failureOf(dispatcher.dispatch(job("http://127.0.0.1:" + closedPort + "/callback")));

        assertThat(failure).isInstanceOf(java.net.ConnectException.class);
    }

    @Test
    void a_callback_that_does_not_answer_within_the_read_timeout_is_a_failed_send() {
        HttpCallbackDispatcher impatient =
                new HttpCallbackDispatcher(new HttpCallbackSettings(Duration.ofSeconds(5), Duration.ofMillis(200)));
        try {
            Throwable failure = failureOf(impatient.dispatch(job(url("/hang"))));

            assertThat(failure).isInstanceOf(SocketTimeoutException.class).hasMessageContaining("did not answer");
        } finally {
            impatient.close();
        }
    }

    @Test
    void a_callbacks_route_is_its_scheme_and_host_in_lower_case_and_its_port_the_default_when_not_given() {
        for (String url : List.of("http://hooks/", "http://HOOKS/a", "HTTP://hooks:80/b?c=d", "http://user@Hooks:80")) {
            assertThat(HttpCallbackDispatcher.route(URI.create(url))).as(url).isEqualTo("http://hooks:80");
        }
        assertThat(HttpCallbackDispatcher.route(URI.create("https://Hooks/"))).isEqualTo("https://hooks:443");
        assertThat(HttpCallbackDispatcher.route(URI.create("https://hooks:8443/")))
                .isEqualTo("https://hooks:8443");
        assertThat(HttpCallbackDispatcher.route(URI.create("http://hooks:443/")))
                .isEqualTo("http://hooks:443");
        assertThat(HttpCallbackDispatcher.route(URI.create("http://[::1]:8080/")))
                .isEqualTo("http://[::1]:8080");
    }

    /**
     * Three spellings of one host share its two connections: the pool counts them as one route, and so does the
     * per-host limit. The callbacks beyond them wait in the limit, which turns them away unsent once their wait
     * is over; none waits in the pool to be sent after the reservation it was sent for has expired.
     */
    @Test
    void spellings_of_one_host_share_its_limit_and_callbacks_beyond_it_are_never_sent_past_their_wait() {
        Duration maxWait = Duration.ofMillis(300);
        HttpCallbackDispatcher twoPerHost = new HttpCallbackDispatcher(
                new HttpCallbackSettings(Duration.ofSeconds(5), Duration.ofSeconds(10), 2), maxWait);
        try {
            int port = server.getAddress().getPort();
            List<java.util.concurrent.CompletableFuture<Void>> sends = new ArrayList<>();
            for (String spelling : List.of("http://localhost:", "http://LOCALHOST:", "HTTP://LocalHost:")) {
                for (int i = 0; i < 2; i++) {
                    sends.add(
                            twoPerHost.dispatch(job(spelling + port + "/hang")).toCompletableFuture());
                }
            }
            long submitted = System.nanoTime(); // after the last one's submission: each has waited longer
            // the two the host's connections carry are held by the server until every other one waited its wait
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> hung.get() == 2 && System.nanoTime() - submitted > maxWait.toNanos());
            release.countDown();

            await().atMost(Duration.ofSeconds(30)).until(() -> sends.stream().allMatch(f -> f.isDone()));
            List<Throwable> failures = sends.stream()
                    .filter(f -> f.isCompletedExceptionally())
                    .map(f -> failureOf(f))
                    .toList();
            assertThat(hung).as("callbacks the server received").hasValue(2);
            assertThat(failures).hasSize(4).allSatisfy(f -> assertThat(f)
                    .isInstanceOf(DispatchRejectedException.class)
                    .hasMessageContaining("not sent"));
        } finally {
            twoPerHost.close();
        }
    }

    @Test
    void a_job_without_a_url_fails_without_a_request() {
        assertThatThrownBy(() ->
                        dispatcher.dispatch(job(null)).toCompletableFuture().join())
                .hasCauseInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no url");
        assertThat(received).isEmpty();
    }
}
