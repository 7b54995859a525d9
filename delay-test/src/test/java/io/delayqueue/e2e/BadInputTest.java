package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.RecordingDispatcherConfig;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.ServiceTest;
import io.delayqueue.queue.testing.RecordingDispatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * Bad requests over HTTP get a 4xx envelope whose code equals the status and whose message starts with the
 * field at fault, never a 500, and write nothing: the {@code /stats} counts, the Redis keys and the
 * dispatcher stay as they were.
 */
@ServiceTest(
        properties = {
            "delay.dispatch.default=" + RecordingDispatcher.NAME,
            "delay.limits.max-delay=1h",
            "delay.limits.max-body-size=1KB"
        })
@Import(RecordingDispatcherConfig.class)
class BadInputTest {
    static final ServiceStores STORES = ServiceStores.redisAndJournal("bad");
    private static final long HOUR_MS = 3_600_000L;
    /** What {@code POST /push} reads at most with a 1 KB body limit: 6 bytes of JSON per body byte + 16 KiB. */
    private static final int PUSH_READ_LIMIT = 1024 * 6 + 16 * 1024;

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        STORES.register(registry);
    }

    @LocalServerPort
    int port;

    @Autowired
    RecordingDispatcher recorder;

    static Stream<Arguments> badRequests() {
        String job = "{\"topic\":\"bad\",\"body\":\"x\"";
        List<String> batch1001 = new ArrayList<>();
        for (int i = 0; i < 1001; i++) {
            batch1001.add("{\"topic\":\"bad\",\"body\":\"job " + i + "\",\"delay\":60000}");
        }
        return Stream.of(
                arguments(
                        "malformed JSON is refused naming the body",
                        "POST",
                        "/push",
                        "{\"topic\":\"bad\",\"body\":",
                        400,
                        "body "),
                arguments(
                        "a string for the delay is refused naming delay",
                        "POST",
                        "/push",
                        job + ",\"delay\":\"soon\"}",
                        400,
                        "delay "),
                arguments(
                        "a number for the topic is refused naming topic",
                        "POST",
                        "/push",
                        "{\"topic\":42,\"body\":\"x\"}",
                        400,
                        "topic "),
                arguments(
                        "a fractional delay is refused naming delay",
                        "POST",
                        "/push",
                        job + ",\"delay\":1.5}",
                        400,
                        "delay "),
                arguments(
                        "an unknown field is refused naming that field",
                        "POST",
                        "/push",
                        job + ",\"colour\":\"red\"}",
                        400,
                        "colour "),
                arguments(
                        "a missing topic is refused naming topic", "POST", "/push", "{\"body\":\"x\"}", 400, "topic "),
                arguments(
                        "an empty topic is refused naming topic",
                        "POST",
                        "/push",
                        "{\"topic\":\"\",\"body\":\"x\"}",
                        400,
                        "topic "),
                arguments(
                        "a missing body is refused naming body", "POST", "/push", "{\"topic\":\"bad\"}", 400, "body "),
                arguments(
                        "an empty body is refused naming body",
                        "POST",
                        "/push",
                        "{\"topic\":\"bad\",\"body\":\"\"}",
                        400,
                        "body "),
                arguments(
                        "a topic with a space is refused naming topic",
                        "POST",
                        "/push",
                        "{\"topic\":\"has space\",\"body\":\"x\"}",
                        400,
                        "topic "),
                arguments(
                        "a negative delay is refused naming delay",
                        "POST",
                        "/push",
                        job + ",\"delay\":-1}",
                        400,
                        "delay "),
                arguments(
                        "a delay over the 1 h maximum is refused naming delay",
                        "POST",
                        "/push",
                        job + ",\"delay\":" + (HOUR_MS + 1) + "}",
                        400,
                        "delay "),
                arguments(
                        "an executeAt 2 h ahead is refused naming executeAt",
                        "POST",
                        "/push",
                        job + ",\"executeAt\":" + (System.currentTimeMillis() + 2 * HOUR_MS) + "}",
                        400,
                        "executeAt "),
                arguments(
                        "both delay and executeAt are refused naming delay",
                        "POST",
                        "/push",
                        job + ",\"delay\":1,\"executeAt\":" + System.currentTimeMillis() + "}",
                        400,
                        "delay "),
                arguments(
                        "a job body over 1 KB is refused naming body",
                        "POST",
                        "/push",
                        "{\"topic\":\"bad\",\"body\":\"" + "a".repeat(1025) + "\"}",
                        400,
                        "body is 1025 bytes"),
                arguments(
                        "a job body over 1 KB in UTF-8 bytes, though 513 characters, is refused naming body",
                        "POST",
                        "/push",
                        "{\"topic\":\"bad\",\"body\":\"" + "\u00e9".repeat(513) + "\"}",
                        400,
                        "body is 1026 bytes"),
                arguments(
                        "a request over the read limit is refused with 413 naming the body",
                        "POST",
                        "/push",
                        "{\"topic\":\"bad\",\"body\":\"" + "a".repeat(PUSH_READ_LIMIT) + "\"}",
                        413,
                        "body "),
                arguments("an empty request is refused naming the body", "POST", "/push", "", 400, "body "),
                arguments(
                        "an array sent to /push is refused naming the body",
                        "POST",
                        "/push",
                        "[" + job + "}]",
                        400,
                        "body "),
                arguments(
                        "a batch of 1001 jobs is refused naming jobs",
                        "POST",
                        "/push/batch",
                        "[" + String.join(",", batch1001) + "]",
                        400,
                        "jobs "),
                arguments("an empty batch is refused naming jobs", "POST", "/push/batch", "[]", 400, "jobs "),
                arguments(
                        "a batch whose second job has no body is refused whole, naming [1].body",
                        "POST",
                        "/push/batch",
                        "[" + job + "},{\"topic\":\"bad\"}]",
                        400,
                        "[1].body "),
                arguments(
                        "a batch with a wrong type inside is refused naming [0].delay",
                        "POST",
                        "/push/batch",
                        "[" + job + ",\"delay\":\"x\"}]",
                        400,
                        "[0].delay "),
                arguments(
                        "a batch that is not an array is refused naming the body",
                        "POST",
                        "/push/batch",
                        job + "}",
                        400,
                        "body "),
                arguments(
                        "an unknown job id is 404 on GET /jobs/{id}",
                        "GET",
                        "/jobs/no-such-job",
                        null,
                        404,
                        "job no-such-job "),
                arguments(
                        "an unknown job id is 404 on DELETE /jobs/{id}",
                        "DELETE",
                        "/jobs/no-such-job",
                        null,
                        404,
                        "job no-such-job "),
                arguments(
                        "an unknown job id is 404 on GET /delete",
                        "GET",
                        "/delete?jobId=no-such-job",
                        null,
                        404,
                        "job no-such-job "),
                arguments(
                        "an unknown job id is 404 on GET /finish",
                        "GET",
                        "/finish?jobId=no-such-job",
                        null,
                        404,
                        "job no-such-job "),
                arguments(
                        "an unknown job id is 404 on POST /jobs/{id}/finish",
                        "POST",
                        "/jobs/no-such-job/finish",
                        null,
                        404,
                        "job no-such-job "),
                arguments("a finish without a job id is refused naming jobId", "GET", "/finish", null, 400, "jobId "),
                arguments("PUT /push is 405 naming the method", "PUT", "/push", job + "}", 405, "method PUT "),
                arguments("GET /push is 405 naming the method", "GET", "/push", null, 405, "method GET "),
                arguments(
                        "a pull timeout that is not a number is refused naming timeout",
                        "GET",
                        "/get/bad?timeout=soon",
                        null,
                        400,
                        "timeout "),
                arguments(
                        "a pull of a topic that is not a pull topic is refused naming topic",
                        "GET",
                        "/get/bad?timeout=0",
                        null,
                        400,
                        "topic "),
                arguments(
                        "a pull of a topic with a space is refused naming topic",
                        "GET",
                        "/get/has%20space",
                        null,
                        400,
                        "topic "),
                arguments(
                        "a delay beyond the range of a long is refused naming delay",
                        "POST",
                        "/push",
                        job + ",\"delay\":99999999999999999999}",
                        400,
                        "delay "),
                arguments(
                        "an object for the body is refused naming body",
                        "POST",
                        "/push",
                        "{\"topic\":\"bad\",\"body\":{\"a\":1}}",
                        400,
                        "body "),
                arguments("a zero ttr is refused naming ttr", "POST", "/push", job + ",\"ttr\":0}", 400, "ttr "),
                arguments(
                        "a client id with a space is refused naming id",
                        "POST",
                        "/push",
                        job + ",\"id\":\"has space\"}",
                        400,
                        "id "),
                arguments(
                        "an ftp callback url is refused naming url",
                        "POST",
                        "/push",
                        job + ",\"url\":\"ftp://x/y\"}",
                        400,
                        "url "),
                arguments(
                        "a form-encoded request is refused naming the body",
                        "POST",
                        "/push",
                        "topic=bad&body=x",
                        400,
                        "body "),
                arguments("a null inside a batch is refused naming [0]", "POST", "/push/batch", "[null]", 400, "[0] "),
                arguments("an unknown endpoint is 404", "GET", "/no-such-endpoint", null, 404, "no such endpoint"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badRequests")
    void a_bad_request_is_refused_with_its_status_and_field_and_writes_nothing(
            String sentence, String method, String path, String body, int status, String messageStart) {
        Api api = new Api(port);
        JsonNode statsBefore = api.get("/stats").data().path("byStatus");
        long totalBefore = api.storedTotal();
        List<String> keysBefore = STORES.redis().allKeys();

        Api.Response r = api.send(method, path, body);

        assertThat(r.status()).as("status of %s %s: %s", method, path, r).isEqualTo(status);
        assertThat(r.json()).as("JSON envelope of %s", r).isNotNull();
        assertThat(r.code()).as("envelope code").isEqualTo(status);
        assertThat(r.json().path("success").isBoolean()).isTrue();
        assertThat(r.success()).isFalse();
        if (status == 400) {
            // data names the field the message starts with, and a batch element's index
            String field = messageStart.split(" ")[0];
            assertThat(r.data().path("field").asText())
                    .as("data.field of %s", r)
                    .isEqualTo(field);
            if (field.startsWith("[")) {
                assertThat(r.data().path("index").asInt(-1))
                        .as("data.index of %s", r)
                        .isEqualTo(Integer.parseInt(field.substring(1, field.indexOf(']'))));
            } else {
                assertThat(r.data().has("index")).as("data.index of %s", r).isFalse();
            }
        } else if (status == 404 && messageStart.startsWith("job ")) {
            assertThat(r.data().asText())
                    .as("data of %s: the job's id", r)
                    .isEqualTo(messageStart.split(" ")[1]);
        } else {
            assertThat(r.data().isNull()).as("data of %s", r).isTrue();
        }
        assertThat(r.message()).as("message").startsWith(messageStart);
        if (status == 405) {
            assertThat(r.headers().firstValue("Allow")).as("Allow header").isPresent();
        }

        assertThat(api.get("/stats").data().path("byStatus"))
                .as("/stats byStatus")
                .isEqualTo(statsBefore);
        assertThat(api.storedTotal()).as("/stats totals").isEqualTo(totalBefore);
        assertThat(STORES.redis().allKeys()).as("Redis keys").containsExactlyInAnyOrderElementsOf(keysBefore);
        assertThat(recorder.count()).as("deliveries").isZero();
    }

    @Test
    void a_refused_batch_names_the_job_at_fault_by_index_and_id_and_writes_nothing() {
        Api api = new Api(port);
        long totalBefore = api.storedTotal();
        String job = "{\"topic\":\"bad\",\"body\":\"x\",\"delay\":60000";

        Api.Response invalid = api.post(
                "/push/batch",
                "[" + job + ",\"id\":\"batch-a\"}," + job + "}," + job + ",\"id\":\"batch-c\",\"ttr\":0}]");
        Api.Response wrongType = api.post(
                "/push/batch", "[" + job + ",\"id\":\"batch-a\"}," + job + ",\"id\":\"batch-b\",\"ttr\":\"x\"}]");
        Api.Response noId = api.post("/push/batch", "[" + job + "}," + job + ",\"maxAttempts\":0}]");
        Api.Response single = api.post("/push", job + ",\"id\":\"single-a\",\"delay\":-1}");

        assertThat(invalid.status()).as("%s", invalid).isEqualTo(400);
        assertThat(invalid.message()).startsWith("[2].ttr ");
        assertThat(invalid.data())
                .as("data of %s", invalid)
                .isEqualTo(Api.JSON.valueToTree(Map.of("field", "[2].ttr", "index", 2, "id", "batch-c")));
        assertThat(wrongType.data())
                .as("data of %s: a field of the wrong type", wrongType)
                .isEqualTo(Api.JSON.valueToTree(Map.of("field", "[1].ttr", "index", 1, "id", "batch-b")));
        assertThat(noId.data())
                .as("data of %s: a job without an id is named by its index", noId)
                .isEqualTo(Api.JSON.valueToTree(Map.of("field", "[1].maxAttempts", "index", 1)));
        assertThat(single.data())
                .as("data of %s: a single push names its field and id", single)
                .isEqualTo(Api.JSON.valueToTree(Map.of("field", "delay", "id", "single-a")));
        assertThat(api.get("/jobs/batch-a").status())
                .as("the batch's valid job is not written")
                .isEqualTo(404);
        assertThat(api.storedTotal()).as("/stats totals").isEqualTo(totalBefore);
    }

    @Test
    void a_valid_push_is_counted_so_the_nothing_written_checks_can_see_awrite() {
        Api api = new Api(port);
        long totalBefore = api.storedTotal();
        long delayBefore = api.countOf("DELAY");

        Api.Response r = api.postJson("/push", Map.of("topic", "bad", "body", "a".repeat(1024), "delay", HOUR_MS));

        assertThat(r.status()).as("push: %s", r).isEqualTo(200);
        assertThat(r.code()).isEqualTo(200);
        assertThat(r.success()).isTrue();
        assertThat(api.countOf("DELAY")).isEqualTo(delayBefore + 1);
        assertThat(api.storedTotal()).isGreaterThan(totalBefore);
        assertThat(STORES.redis().allKeys()).isNotEmpty();
        String id = r.data().asText();
        // cancel it again, so the class leaves no pending job behind
        assertThat(api.delete("/jobs/" + id).status()).isEqualTo(200);
        assertThat(api.countOf("DELAY")).isEqualTo(delayBefore);
    }
}
