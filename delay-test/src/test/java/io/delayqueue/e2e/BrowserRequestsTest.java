package io.delayqueue.e2e;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.RecordingDispatcherConfig;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.ServiceTest;
import io.delayqueue.queue.testing.RecordingDispatcher;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * What a web page can make a visitor's browser do to the service (issue 26, item 1), against the real service
 * without a token, as a browser sends its requests: a page that reaches it under its own name (DNS rebinding) gets
 * 421 and no job, another site's page cannot change the queue through any call (the mykit-delay {@code GET} forms
 * included), while the service's own pages, a user typing a url, links to its reads and clients that are not
 * browsers (no {@code Sec-Fetch-Site}, no {@code Origin}) go on working.
 */
@ServiceTest(
        properties = {
            "delay.dispatch.default=" + RecordingDispatcher.NAME,
            "delay.dispatch.topics." + BrowserRequestsTest.PULL + "=pull"
        })
@Import(RecordingDispatcherConfig.class)
class BrowserRequestsTest {
    static final ServiceStores STORES = ServiceStores.redisAndJournal("browser");
    static final String PULL = "browser.pull";
    private static final String BODY = "close order 42 of customer 7";
    private static final Duration WAIT = Duration.ofSeconds(30);

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        STORES.register(registry);
    }

    @LocalServerPort
    int port;

    /** A job due in an hour; its id. */
    private String pushFar(Api api) {
        Api.Response r = api.postJson("/push", Map.of("topic", "browser", "body", BODY, "delay", 3_600_000));
        assertThat(r.status()).as("push: %s", r).isEqualTo(200);
        return r.data().asText();
    }

    private String statusOf(String id) {
        Api.Response r = new Api(port).get("/jobs/" + id);
        assertThat(r.status()).as("GET /jobs/%s: %s", id, r).isEqualTo(200);
        return r.data().path("status").asText();
    }

    @Test
    void a_page_reaching_the_service_under_its_own_name_gets_421_and_no_job() {
        String id = pushFar(new Api(port));
        long before = new Api(port).storedTotal();

        Raw browse = raw("GET", "/console/jobs?status=DELAY", "evil.example:" + port, null);
        assertThat(browse.status()).as("%s", browse).isEqualTo(421);
        assertThat(browse.body())
                .contains("\"code\":421", "Host evil.example:" + port, "delay.security.allowed-hosts")
                .doesNotContain(BODY, id);
        assertThat(raw("GET", "/jobs/" + id, "evil.example:" + port, null).body())
                .doesNotContain(BODY);
        assertThat(raw("GET", "/stats", "127.0.0.1.nip.io:" + port, null).status())
                .isEqualTo(421);

        Raw push = raw("POST", "/push", "evil.example:" + port, "{\"topic\":\"browser\",\"body\":\"x\"}");
        assertThat(push.status()).as("before the push's own filter: %s", push).isEqualTo(421);
        Raw clear = raw("GET", "/clearAll?confirm=true", "evil.example:" + port, null);
        assertThat(clear.status()).as("%s", clear).isEqualTo(421);
        assertThat(new Api(port).storedTotal())
                .as("nothing written, nothing cleared")
                .isEqualTo(before);
        assertThat(statusOf(id)).isEqualTo("DELAY");

        for (String host : List.of("localhost:" + port, "LOCALHOST:" + port, "[::1]:" + port, "127.0.0.1:" + port)) {
            Raw answered = raw("GET", "/console/jobs?status=DELAY", host, null);
            assertThat(answered.status()).as("Host %s: %s", host, answered).isEqualTo(200);
            assertThat(answered.body()).as("Host %s", host).contains(BODY);
        }
    }

    @Test
    void another_sites_page_cannot_change_the_queue_through_any_call() {
        Api api = new Api(port);
        String id = pushFar(api);
        Api crossSite = api.withHeader("Sec-Fetch-Site", "cross-site");

        for (String call : List.of(
                "/clearAll?confirm=true",
                "/delete?jobId=" + id,
                "/delete?id=" + id,
                "/finish?jobId=" + id,
                "/get/" + PULL,
                "/reStore?expire=true",
                "/reStoreJob?jobId=" + id,
                "/reStore/" + id)) {
            Api.Response r = crossSite.get(call);
            assertThat(r.status()).as("GET %s: %s", call, r).isEqualTo(403);
            assertThat(r.message()).contains("another site", "Sec-Fetch-Site: cross-site");
        }
        assertThat(crossSite
                        .withHeader("Sec-Fetch-Site", "same-site")
                        .get("/clearAll?confirm=true")
                        .status())
                .as("same-site is another origin: another port of this machine, say")
                .isEqualTo(403);
        assertThat(statusOf(id)).as("neither cleared nor deleted").isEqualTo("DELAY");
    }

    @Test
    void another_origins_post_and_delete_are_refused_and_write_nothing() {
        Api api = new Api(port);
        String id = pushFar(api);
        long before = api.storedTotal();
        Api evil = api.withHeader("Origin", "http://evil.example");

        Api.Response push = evil.postJson("/push", Map.of("topic", "browser", "body", "x"));
        assertThat(push.status()).as("%s", push).isEqualTo(403);
        assertThat(push.message()).contains("POST /push came from Origin http://evil.example");
        assertThat(evil.postJson("/push/batch", List.of(Map.of("topic", "browser", "body", "x")))
                        .status())
                .isEqualTo(403);
        assertThat(evil.delete("/jobs/" + id).status()).isEqualTo(403);
        assertThat(evil.post("/jobs/" + id + "/finish", null).status()).isEqualTo(403);
        assertThat(evil.post("/dead/browser/requeue", null).status()).isEqualTo(403);
        assertThat(api.withHeader("Origin", "null").delete("/jobs/" + id).status())
                .as("an opaque origin (a sandboxed frame, a redirect)")
                .isEqualTo(403);

        assertThat(api.storedTotal()).as("nothing written").isEqualTo(before);
        assertThat(statusOf(id)).isEqualTo("DELAY");
    }

    @Test
    void the_services_own_pages_a_typed_url_links_to_reads_and_clients_that_are_not_browsers_go_on_working() {
        Api api = new Api(port);
        String own = "http://127.0.0.1:" + port;
        Api console = api.withHeader("Sec-Fetch-Site", "same-origin").withHeader("Origin", own);
        String pushed = pushFar(console);
        assertThat(console.delete("/jobs/" + pushed).status())
                .as("the console's delete")
                .isEqualTo(200);

        Api olderBrowser = api.withHeader("Origin", own);
        String id = pushFar(olderBrowser);
        assertThat(olderBrowser.delete("/jobs/" + id).status())
                .as("a browser without Sec-Fetch-Site, same origin")
                .isEqualTo(200);

        String typed = pushFar(api);
        Api.Response restore = api.withHeader("Sec-Fetch-Site", "none").get("/reStoreJob?jobId=" + typed);
        assertThat(restore.status()).as("a url the user typed: %s", restore).isEqualTo(200);

        Api linked = api.withHeader("Sec-Fetch-Site", "cross-site");
        for (String read : List.of("/", "/stats", "/jobs/" + typed, "/console/metrics")) {
            assertThat(linked.get(read).status())
                    .as("a link from another site to %s", read)
                    .isEqualTo(200);
        }

        // curl and the Java client: neither header
        Api.Response ready = api.postJson("/push", Map.of("topic", PULL, "body", "pull me"));
        assertThat(ready.status()).isEqualTo(200);
        await().atMost(WAIT)
                .until(
                        () -> api.get("/get/" + PULL + "?timeout=1000")
                                .data()
                                .path("id")
                                .asText(""),
                        ready.data().asText()::equals);
        assertThat(api.get("/finish?jobId=" + ready.data().asText()).status()).isEqualTo(200);
        assertThat(api.get("/delete?jobId=" + typed).status()).isEqualTo(200);
    }

    /** A raw answer: status and body. */
    private record Raw(int status, String body) {}

    /** One request over a fresh socket, with the {@code Host} header given (java.net.http refuses to set it). */
    private Raw raw(String method, String target, String host, String json) {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(30_000);
            byte[] body = json == null ? new byte[0] : json.getBytes(UTF_8);
            String head = method + " " + target + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n"
                    + (json == null ? "" : "Content-Type: application/json\r\n")
                    + "Content-Length: " + body.length + "\r\n\r\n";
            OutputStream out = socket.getOutputStream();
            out.write(head.getBytes(UTF_8));
            out.write(body);
            out.flush();
            InputStream in = socket.getInputStream();
            String answer = new String(in.readAllBytes(), UTF_8);
            int status = Integer.parseInt(answer.substring(9, 12));
            int start = answer.indexOf("\r\n\r\n");
            return new Raw(status, start < 0 ? "" : answer.substring(start + 4));
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + target + " with Host " + host, e);
        }
    }
}
