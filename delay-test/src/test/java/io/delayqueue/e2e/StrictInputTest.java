package io.delayqueue.e2e;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.RecordingDispatcherConfig;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.ServiceTest;
import io.delayqueue.queue.testing.RecordingDispatcher;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Input is stored exactly or refused (issue 10, item 5). Hostile encodings, duplicate keys and bodies that are
 * not declared JSON get a 4xx in the envelope naming the problem, and nothing is written: the journal's tables,
 * the Redis keys, the {@code /stats} counts and the deliveries stay as they were. Every error the server
 * produces, Tomcat's and Spring's own included, is the envelope with {@code code} equal to the status. Valid
 * non-ASCII text comes back byte for byte: from {@code GET /jobs/{id}}, from the journal and as delivered.
 */
@ServiceTest(
        properties = {
            "delay.dispatch.default=" + RecordingDispatcher.NAME,
            "delay.dispatch.topics." + StrictInputTest.PULL + "=pull",
            "delay.limits.max-body-size=1KB"
        })
@Import(RecordingDispatcherConfig.class)
class StrictInputTest {
    static final ServiceStores STORES = ServiceStores.redisAndJournal("strict");
    static final String PULL = "strictpull";
    private static final String JSON = "application/json";
    /** Chinese, emoji as surrogate pairs (one with a skin-tone modifier), a combining acute, a CJK Ext. B char. */
    private static final String TEXT = "订单 42 已关闭 😀 👍🏽 e\u0301 Å 𠀀";

    @DynamicPropertySource
    static void services(DynamicPropertyRegistry registry) {
        STORES.register(registry);
    }

    @LocalServerPort
    int port;

    @Autowired
    RecordingDispatcher recorder;

    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    // ---- hostile input: refused, nothing written ----

    /** {@code {"topic":"strict","body":"a<bytes>"}} with {@code hex} spliced into the body string. */
    private static byte[] jobWith(String before, String hex, String after) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(before.getBytes(UTF_8));
        out.writeBytes(HexFormat.of().parseHex(hex));
        out.writeBytes(after.getBytes(UTF_8));
        return out.toByteArray();
    }

    private static byte[] utf8(String text) {
        return text.getBytes(UTF_8);
    }

    private static Arguments refused(
            String sentence, String method, String path, byte[] body, String contentType, int status, String start) {
        return arguments(sentence, method, path, body, contentType, status, start);
    }

    static Stream<Arguments> hostileRequests() {
        String job = "{\"topic\":\"strict\",\"delay\":600000,";
        String ok = "{\"topic\":\"strict\",\"body\":\"x\",\"delay\":600000}";
        return Stream.of(
                refused(
                        "an overlong slash (C0 AF) in the body is refused, not read as /",
                        "POST",
                        "/push",
                        jobWith(job + "\"body\":\"a", "C0AF", "\"}"),
                        JSON,
                        400,
                        "body of the request is not valid UTF-8: bytes C0"),
                refused(
                        "a three-byte overlong form in bizKey is refused",
                        "POST",
                        "/push",
                        jobWith(job + "\"body\":\"x\",\"bizKey\":\"", "E080AF", "\"}"),
                        JSON,
                        400,
                        "body of the request is not valid UTF-8"),
                refused(
                        "an encoded surrogate (ED A0 80) in the topic is refused",
                        "POST",
                        "/push",
                        jobWith("{\"body\":\"x\",\"topic\":\"s", "EDA080", "\"}"),
                        JSON,
                        400,
                        "body of the request is not valid UTF-8: bytes ED A0 80"),
                refused(
                        "an emoji as CESU-8 surrogates in the body is refused",
                        "POST",
                        "/push",
                        jobWith(job + "\"body\":\"", "EDA0BDEDB880", "\"}"),
                        JSON,
                        400,
                        "body of the request is not valid UTF-8"),
                refused(
                        "a code point past U+10FFFF in subtopic is refused",
                        "POST",
                        "/push",
                        jobWith(job + "\"body\":\"x\",\"subtopic\":\"", "F4908080", "\"}"),
                        JSON,
                        400,
                        "body of the request is not valid UTF-8"),
                refused(
                        "a truncated sequence in the url is refused",
                        "POST",
                        "/push",
                        jobWith(job + "\"body\":\"x\",\"url\":\"http://h/", "E4B8", "\"}"),
                        JSON,
                        400,
                        "body of the request is not valid UTF-8: bytes E4 B8"),
                refused(
                        "a truncated sequence at the end of the request is refused",
                        "POST",
                        "/push",
                        jobWith(ok, "F09F98", ""),
                        JSON,
                        400,
                        "body of the request is not valid UTF-8"),
                refused(
                        "a stray continuation byte in the id is refused",
                        "POST",
                        "/push",
                        jobWith(job + "\"body\":\"x\",\"id\":\"a", "80", "\"}"),
                        JSON,
                        400,
                        "body of the request is not valid UTF-8: bytes 80"),
                refused(
                        "malformed UTF-8 in a key is refused",
                        "POST",
                        "/push",
                        jobWith(job + "\"body\":\"x\",\"", "C0AF", "\":1}"),
                        JSON,
                        400,
                        "body of the request is not valid UTF-8"),
                refused(
                        "malformed UTF-8 in a batch element is refused whole",
                        "POST",
                        "/push/batch",
                        jobWith("[" + ok + "," + job + "\"body\":\"", "C0AF", "\"}]"),
                        JSON,
                        400,
                        "body of the request is not valid UTF-8"),
                refused(
                        "malformed UTF-8 in a requeue is refused",
                        "POST",
                        "/dead/strict/requeue",
                        jobWith("{\"ids\":[\"", "EDA080", "\"]}"),
                        JSON,
                        400,
                        "body of the request is not valid UTF-8"),
                refused(
                        "a lone surrogate escape in the id is refused naming id",
                        "POST",
                        "/push",
                        utf8(job + "\"body\":\"x\",\"id\":\"\\uD800\"}"),
                        JSON,
                        400,
                        "id holds a lone surrogate \\uD800"),
                refused(
                        "a lone surrogate escape in the topic is refused naming topic",
                        "POST",
                        "/push",
                        utf8("{\"body\":\"x\",\"topic\":\"\\uD800\"}"),
                        JSON,
                        400,
                        "topic holds a lone surrogate"),
                refused(
                        "a lone surrogate escape in the body is refused naming body",
                        "POST",
                        "/push",
                        utf8(job + "\"body\":\"close \\uD83D order\"}"),
                        JSON,
                        400,
                        "body holds a lone surrogate \\uD83D at character 6"),
                refused(
                        "a lone low surrogate escape in the url is refused naming url",
                        "POST",
                        "/push",
                        utf8(job + "\"body\":\"x\",\"url\":\"http://h/\\uDC00\"}"),
                        JSON,
                        400,
                        "url holds a lone surrogate \\uDC00"),
                refused(
                        "a lone surrogate escape in bizKey is refused naming bizKey",
                        "POST",
                        "/push",
                        utf8(job + "\"body\":\"x\",\"bizKey\":\"k\\uDBFF\"}"),
                        JSON,
                        400,
                        "bizKey holds a lone surrogate"),
                refused(
                        "a lone surrogate escape in subtopic is refused naming subtopic",
                        "POST",
                        "/push",
                        utf8(job + "\"body\":\"x\",\"subtopic\":\"\\uDFFF\"}"),
                        JSON,
                        400,
                        "subtopic holds a lone surrogate"),
                refused(
                        "a surrogate pair in the wrong order is refused",
                        "POST",
                        "/push",
                        utf8(job + "\"body\":\"\\uDE00\\uD83D\"}"),
                        JSON,
                        400,
                        "body holds a lone surrogate"),
                refused(
                        "a lone surrogate in a batch element is refused naming [1].bizKey",
                        "POST",
                        "/push/batch",
                        utf8("[" + ok + "," + job + "\"body\":\"x\",\"bizKey\":\"\\uD800\"}]"),
                        JSON,
                        400,
                        "[1].bizKey holds a lone surrogate"),
                refused(
                        "a lone surrogate in a requeue id is refused naming ids[0]",
                        "POST",
                        "/dead/strict/requeue",
                        utf8("{\"ids\":[\"\\uD800\"]}"),
                        JSON,
                        400,
                        "ids[0] holds a lone surrogate"),
                refused(
                        "a topic given twice is refused naming topic",
                        "POST",
                        "/push",
                        utf8("{\"topic\":\"strict\",\"body\":\"x\",\"delay\":600000,\"topic\":\"other\"}"),
                        JSON,
                        400,
                        "topic is given twice"),
                refused(
                        "a body given twice with the same value is refused naming body",
                        "POST",
                        "/push",
                        utf8(job + "\"body\":\"x\",\"body\":\"x\"}"),
                        JSON,
                        400,
                        "body is given twice"),
                refused(
                        "a key given twice in a batch element is refused naming [1].delay",
                        "POST",
                        "/push/batch",
                        utf8("[" + ok + ",{\"topic\":\"strict\",\"body\":\"x\",\"delay\":1,\"delay\":600000}]"),
                        JSON,
                        400,
                        "[1].delay is given twice"),
                refused(
                        "ids given twice in a requeue are refused naming ids",
                        "POST",
                        "/dead/strict/requeue",
                        utf8("{\"ids\":[\"a\"],\"ids\":[\"b\"]}"),
                        JSON,
                        400,
                        "ids is given twice"),
                refused(
                        "a text/plain push is refused with 415",
                        "POST",
                        "/push",
                        utf8(ok),
                        "text/plain",
                        415,
                        "Content-Type text/plain is not accepted"),
                refused(
                        "a form-encoded push is refused with 415",
                        "POST",
                        "/push",
                        utf8("topic=strict&body=x"),
                        "application/x-www-form-urlencoded",
                        415,
                        "Content-Type application/x-www-form-urlencoded is not accepted"),
                refused(
                        "a push with a body and no Content-Type is refused with 415",
                        "POST",
                        "/push",
                        utf8(ok),
                        null,
                        415,
                        "Content-Type is missing"),
                refused(
                        "a multipart push is refused with 415",
                        "POST",
                        "/push",
                        utf8("--b\r\nContent-Disposition: form-data; name=\"topic\"\r\n\r\nstrict\r\n--b--\r\n"),
                        "multipart/form-data; boundary=b",
                        415,
                        "Content-Type multipart/form-data is not accepted"),
                refused(
                        "JSON declared in another charset is refused with 415",
                        "POST",
                        "/push",
                        utf8(ok),
                        "application/json; charset=ISO-8859-1",
                        415,
                        "Content-Type charset ISO-8859-1 is not accepted"),
                refused(
                        "a text/plain batch is refused with 415",
                        "POST",
                        "/push/batch",
                        utf8("[" + ok + "]"),
                        "text/plain;charset=UTF-8",
                        415,
                        "Content-Type text/plain is not accepted"),
                refused(
                        "a text/plain requeue is refused with 415",
                        "POST",
                        "/dead/strict/requeue",
                        utf8("{\"ids\":[\"a\"]}"),
                        "text/plain",
                        415,
                        "Content-Type text/plain"),
                refused(
                        "invalid percent-encoded UTF-8 in jobId is refused on /delete",
                        "GET",
                        "/delete?jobId=%C0%AF",
                        null,
                        null,
                        400,
                        "jobId (percent-decoded) is not valid UTF-8: bytes C0"),
                refused(
                        "an encoded surrogate in jobId is refused on /finish",
                        "GET",
                        "/finish?jobId=%ED%A0%80",
                        null,
                        null,
                        400,
                        "jobId (percent-decoded) is not valid UTF-8: bytes ED A0 80"),
                refused(
                        "a truncated sequence in jobId is refused on /reStoreJob",
                        "GET",
                        "/reStoreJob?jobId=ab%E4%B8",
                        null,
                        null,
                        400,
                        "jobId (percent-decoded) is not valid UTF-8"),
                refused(
                        "jobId given twice is refused",
                        "GET",
                        "/delete?jobId=a&jobId=b",
                        null,
                        null,
                        400,
                        "jobId is given twice"),
                refused(
                        "a jobId no job can have is refused naming jobId",
                        "GET",
                        "/reStoreJob?jobId=%E4%B8%AD",
                        null,
                        null,
                        400,
                        "jobId must match"),
                refused(
                        "an overlong form in a path id is refused",
                        "GET",
                        "/jobs/%C0%AF",
                        null,
                        null,
                        400,
                        "bad request: path (percent-decoded) is not valid UTF-8: bytes C0"),
                refused(
                        "an encoded surrogate in a path id is refused",
                        "DELETE",
                        "/jobs/%ED%A0%80",
                        null,
                        null,
                        400,
                        "bad request: path (percent-decoded) is not valid UTF-8"),
                refused(
                        "a path id no job can have is refused naming id",
                        "POST",
                        "/jobs/%E4%B8%AD/finish",
                        null,
                        null,
                        400,
                        "id must match"),
                refused("an unknown path is 404", "GET", "/no/such/path", null, null, 404, "no such endpoint"),
                refused("a post to an unknown path is 404", "POST", "/nope", utf8(ok), JSON, 404, "no such endpoint"),
                refused("DELETE /push is 405", "DELETE", "/push", null, null, 405, "method DELETE is not allowed"),
                refused("/error asked for directly is 404", "GET", "/error", null, null, 404, "no such endpoint"),
                refused(
                        "a body over the read limit is 413",
                        "POST",
                        "/push",
                        utf8("{\"topic\":\"strict\",\"body\":\"" + "a".repeat(1024 * 1024) + "\"}"),
                        JSON,
                        413,
                        "body of the request is over"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("hostileRequests")
    void a_hostile_request_is_refused_in_the_envelope_naming_the_problem_and_writes_nothing(
            String sentence, String method, String path, byte[] body, String contentType, int status, String start) {
        Written before = written();

        Answer a = send(method, path, body, contentType, "application/json");

        a.assertError(status, start);
        assertThat(written()).as("what is stored after: %s", sentence).isEqualTo(before);
    }

    @Test
    void an_error_asked_for_as_html_is_still_the_json_envelope() {
        Answer a = send("GET", "/no/such/path", null, null, "text/html");

        a.assertError(404, "no such endpoint");
        assertThat(a.contentType()).startsWith("application/json");
    }

    @Test
    void a_validation_error_asked_for_as_html_is_still_the_json_envelope() {
        Answer a = send("POST", "/push", utf8("{\"topic\":\"strict\"}"), JSON, "text/html");

        a.assertError(400, "body is required");
    }

    @Test
    void a_cross_origin_preflight_is_refused_in_the_envelope() {
        Answer a = raw(("OPTIONS /push HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://elsewhere.example\r\n"
                        + "Access-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: content-type\r\n"
                        + "Connection: close\r\n\r\n")
                .getBytes(ISO_8859_1));

        a.assertError(403, "cross-origin request refused");
    }

    // ---- Tomcat's own errors over a raw socket ----

    static Stream<Arguments> rawRequests() {
        String push =
                "POST /push HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: close\r\n";
        return Stream.of(
                arguments(
                        "a chunk size that is not hex is 400",
                        push + "Transfer-Encoding: chunked\r\n\r\nZZ\r\n{\"topic\":\"strict\"}\r\n0\r\n\r\n",
                        400,
                        "bad request: Invalid chunk header"),
                arguments(
                        "a chunk longer than its size is 400",
                        push
                                + "Transfer-Encoding: chunked\r\n\r\n5\r\n{\"topic\":\"strict\",\"body\":\"x\"}\r\n0\r\n\r\n",
                        400,
                        "bad request: "),
                arguments(
                        "a chunked body cut off before its last chunk is 400",
                        push + "Transfer-Encoding: chunked\r\n\r\n40\r\n{\"topic\":\"strict\"",
                        400,
                        "bad request"),
                arguments(
                        "a control character in the request target is 400",
                        "GET /stats?x=\u0001 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
                        400,
                        "bad request: Invalid character found in the request target"),
                arguments(
                        "an encoded slash in a path is 400",
                        "GET /jobs/a%2Fb HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
                        400,
                        "bad request: Invalid URI"),
                arguments(
                        "an unsupported transfer coding is 501",
                        push + "Transfer-Encoding: gzip\r\n\r\n",
                        501,
                        "not implemented"),
                arguments(
                        "broken percent-encoding in jobId is 400 naming jobId",
                        "GET /delete?jobId=ab%zz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
                        400,
                        "jobId is not percent-encoded correctly: %zz"),
                arguments(
                        "TRACE is 405",
                        "TRACE /push HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
                        405,
                        "method not allowed"),
                arguments(
                        "a declared length over the limit is 413 before the body is sent",
                        push + "Content-Length: 100000000\r\n\r\n{\"topic\":",
                        413,
                        "body of the request is over"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rawRequests")
    void a_request_tomcat_refuses_is_answered_in_the_envelope_and_writes_nothing(
            String sentence, String request, int status, String start) {
        Written before = written();

        Answer a = raw(request.getBytes(ISO_8859_1));

        a.assertError(status, start);
        assertThat(a.contentType()).startsWith("application/json");
        assertThat(written()).as("what is stored after: %s", sentence).isEqualTo(before);
    }

    // ---- valid non-ASCII text: stored and returned byte for byte ----

    @Test
    void non_ascii_text_is_stored_and_returned_byte_for_byte() {
        String url = "http://127.0.0.1/回调?名=" + TEXT.replace(' ', '_');
        String json = Api.toJson(java.util.Map.of(
                "topic", PULL, "body", TEXT, "bizKey", TEXT, "subtopic", TEXT, "url", url, "delay", 0));

        Answer pushed = send("POST", "/push", utf8(json), JSON, JSON);
        assertThat(pushed.status()).as("push: %s", pushed).isEqualTo(200);
        String id = pushed.json().path("data").asText();

        // as delivered to a consumer
        Answer pulled = send("GET", "/get/" + PULL + "?timeout=10000", null, null, JSON);
        assertThat(pulled.status()).as("pull: %s", pulled).isEqualTo(200);
        JsonNode delivered = pulled.json().path("data");
        assertThat(delivered.path("id").asText()).isEqualTo(id);
        assertSameText(delivered, TEXT, url);
        assertThat(pulled.bytes()).as("raw bytes of the pull").containsSequence(utf8(TEXT));

        // as looked up
        Answer got = send("GET", "/jobs/" + id, null, null, JSON);
        assertThat(got.status()).as("GET /jobs: %s", got).isEqualTo(200);
        assertSameText(got.json().path("data").path("job"), TEXT, url);
        assertThat(got.bytes()).as("raw bytes of GET /jobs").containsSequence(utf8(TEXT));

        // as journaled (utf8mb4 columns)
        String hex = HexFormat.of().withUpperCase().formatHex(utf8(TEXT));
        assertThat(STORES.journal()
                        .queryStrings(
                                "SELECT CONCAT_WS(',', HEX(body), HEX(biz_key), HEX(subtopic)) FROM delay_queue_job"
                                        + " WHERE id = '" + id + "'"))
                .containsExactly(hex + "," + hex + "," + hex);
        assertThat(STORES.journal().queryStrings("SELECT HEX(url) FROM delay_queue_job WHERE id = '" + id + "'"))
                .containsExactly(HexFormat.of().withUpperCase().formatHex(utf8(url)));
        assertThat(send("POST", "/jobs/" + id + "/finish", null, null, JSON).status())
                .isEqualTo(200);
    }

    @Test
    void escaped_surrogate_pairs_are_stored_as_the_characters_they_encode() {
        String json = "{\"topic\":\"strict\",\"delay\":600000,\"body\":\"\\uD83D\\uDE00 \\u8BA2\\u5355\","
                + "\"bizKey\":\"\\uD840\\uDC00\"}";

        Answer pushed = send("POST", "/push", utf8(json), JSON, JSON);
        assertThat(pushed.status()).as("push: %s", pushed).isEqualTo(200);
        String id = pushed.json().path("data").asText();

        Answer got = send("GET", "/jobs/" + id, null, null, JSON);
        assertThat(got.json().path("data").path("job").path("body").asText()).isEqualTo("😀 订单");
        assertThat(got.json().path("data").path("job").path("bizKey").asText()).isEqualTo("𠀀");
        assertThat(STORES.journal().queryStrings("SELECT HEX(body) FROM delay_queue_job WHERE id = '" + id + "'"))
                .containsExactly("F09F988020E8AEA2E58D95");
        assertThat(send("DELETE", "/jobs/" + id, null, null, JSON).status()).isEqualTo(200);
    }

    @Test
    void a_batch_of_non_ascii_jobs_is_stored_exactly() {
        String json = "[{\"topic\":\"strict\",\"delay\":600000,\"body\":\"" + TEXT + "\"},"
                + "{\"topic\":\"strict\",\"delay\":600000,\"body\":\"x\",\"bizKey\":\"" + TEXT + "\"}]";

        Answer pushed = send("POST", "/push/batch", utf8(json), "application/json;charset=utf-8", JSON);
        assertThat(pushed.status()).as("batch: %s", pushed).isEqualTo(200);
        List<String> ids = List.of(
                pushed.json().path("data").get(0).asText(),
                pushed.json().path("data").get(1).asText());

        assertThat(send("GET", "/jobs/" + ids.get(0), null, null, JSON)
                        .json()
                        .path("data")
                        .path("job")
                        .path("body")
                        .asText())
                .isEqualTo(TEXT);
        assertThat(send("GET", "/jobs/" + ids.get(1), null, null, JSON)
                        .json()
                        .path("data")
                        .path("job")
                        .path("bizKey")
                        .asText())
                .isEqualTo(TEXT);
        for (String id : ids) {
            assertThat(send("DELETE", "/jobs/" + id, null, null, JSON).status()).isEqualTo(200);
        }
    }

    @Test
    void a_push_asking_for_html_is_answered_in_json_with_the_truth() {
        long before = STORES.journal().queryLong("SELECT COUNT(*) FROM delay_queue_job");

        Answer a = send(
                "POST", "/push", utf8("{\"topic\":\"strict\",\"body\":\"x\",\"delay\":600000}"), JSON, "text/html");

        assertThat(a.status()).as("push: %s", a).isEqualTo(200);
        assertThat(a.contentType()).startsWith("application/json");
        assertThat(a.json().path("success").asBoolean()).isTrue();
        assertThat(STORES.journal().queryLong("SELECT COUNT(*) FROM delay_queue_job"))
                .isEqualTo(before + 1);
        assertThat(send("DELETE", "/jobs/" + a.json().path("data").asText(), null, null, JSON)
                        .status())
                .isEqualTo(200);
    }

    @Test
    void a_post_without_a_body_needs_no_content_type() {
        Answer a = send("POST", "/dead/strict/requeue", null, null, JSON);

        assertThat(a.status()).as("requeue all: %s", a).isEqualTo(200);
    }

    private static void assertSameText(JsonNode job, String text, String url) {
        assertThat(job.path("body").asText()).isEqualTo(text);
        assertThat(job.path("bizKey").asText()).isEqualTo(text);
        assertThat(job.path("subtopic").asText()).isEqualTo(text);
        assertThat(job.path("url").asText()).isEqualTo(url);
    }

    // ---- what is stored ----

    /** Everything a refused request must leave as it was. */
    record Written(long journalJobs, long journalLog, List<String> redisKeys, long storedTotal, int deliveries) {}

    private Written written() {
        return new Written(
                STORES.journal().queryLong("SELECT COUNT(*) FROM delay_queue_job"),
                STORES.journal().queryLong("SELECT COUNT(*) FROM delay_queue_job_log"),
                STORES.redis().allKeys().stream().sorted().toList(),
                new Api(port).storedTotal(),
                recorder.count());
    }

    // ---- HTTP, as bytes ----

    /** One answer: status, Content-Type, the raw body and the envelope parsed from it (null if not JSON). */
    record Answer(int status, String contentType, byte[] bytes, JsonNode json) {
        void assertError(int expectedStatus, String messageStart) {
            assertThat(status).as("status of %s", this).isEqualTo(expectedStatus);
            assertThat(json).as("JSON envelope of %s", this).isNotNull();
            assertThat(json.path("success").isBoolean())
                    .as("success of %s", this)
                    .isTrue();
            assertThat(json.path("success").asBoolean()).isFalse();
            assertThat(json.path("code").asInt()).as("code of %s", this).isEqualTo(expectedStatus);
            if (expectedStatus == 400 && !messageStart.startsWith("bad request")) {
                // bad input the service read: data names the field the message starts with
                assertThat(json.path("data").path("field").asText())
                        .as("data.field of %s", this)
                        .isEqualTo(messageStart.split(" ")[0]);
            } else if (expectedStatus != 400) {
                assertThat(json.has("data") && json.path("data").isNull())
                        .as("data of %s", this)
                        .isTrue();
            }
            assertThat(json.path("message").asText()).as("message of %s", this).startsWith(messageStart);
        }

        @Override
        public String toString() {
            return status + " " + new String(bytes, UTF_8);
        }
    }

    private static JsonNode parse(byte[] body) {
        try {
            return body.length == 0 ? null : Api.JSON.readTree(body);
        } catch (IOException notJson) {
            return null;
        }
    }

    private Answer send(String method, String path, byte[] body, String contentType, String accept) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30))
                .header("Accept", accept)
                .method(
                        method,
                        body == null
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofByteArray(body));
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        try {
            HttpResponse<byte[]> r = client.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
            return new Answer(
                    r.statusCode(), r.headers().firstValue("Content-Type").orElse(""), r.body(), parse(r.body()));
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + path, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Sends {@code request} as is over a fresh connection and reads the answer until the server closes it. */
    private Answer raw(byte[] request) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(request);
            out.flush();
            socket.shutdownOutput();
            InputStream in = socket.getInputStream();
            byte[] response = in.readAllBytes();
            return parseResponse(response);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Answer parseResponse(byte[] response) {
        String text = new String(response, ISO_8859_1);
        int headEnd = text.indexOf("\r\n\r\n");
        assertThat(headEnd).as("an HTTP response: %s", text).isPositive();
        String[] head = text.substring(0, headEnd).split("\r\n");
        int status = Integer.parseInt(head[0].split(" ")[1]);
        String contentType = "";
        boolean chunked = false;
        for (String h : head) {
            String lower = h.toLowerCase(Locale.ROOT);
            if (lower.startsWith("content-type:")) {
                contentType = h.substring(13).trim();
            } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                chunked = true;
            }
        }
        String body = text.substring(headEnd + 4);
        if (chunked) {
            StringBuilder joined = new StringBuilder();
            int at = 0;
            while (true) {
                int lineEnd = body.indexOf("\r\n", at);
                int size = Integer.parseInt(body.substring(at, lineEnd).trim(), 16);
                if (size == 0) {
                    break;
                }
                joined.append(body, lineEnd + 2, lineEnd + 2 + size);
                at = lineEnd + 2 + size + 2;
            }
            body = joined.toString();
        }
        byte[] bytes = body.getBytes(ISO_8859_1);
        return new Answer(status, contentType, bytes, parse(bytes));
    }
}
