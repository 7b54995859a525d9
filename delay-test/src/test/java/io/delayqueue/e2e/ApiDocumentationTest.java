package io.delayqueue.e2e;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.ServiceTest;
import io.delayqueue.e2e.support.Spectral;
import io.swagger.v3.oas.annotations.Hidden;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Parameter;
import java.net.Socket;
import java.net.URLEncoder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/**
 * {@code /v3/api-docs} describes the API completely, walked generically so that an operation added later is held
 * to the same: every operation the controllers map, with a summary and a description; every parameter with its
 * meaning, whether it is required, its limits and an example; every body field likewise; every answer in the JSON
 * envelope. The answers documented are checked against what the running service answers: each operation is
 * called with its documented examples, without the token, with a body not JSON, with a repeated parameter and
 * with a body declared over any limit, and every status seen must be documented (401 and 413 exactly where they
 * are seen). The description passes Spectral's recommended OpenAPI rules without an error.
 */
@ServiceTest(
        properties = {
            "delay.security.token=" + ApiDocumentationTest.TOKEN,
            // the topic of the examples is a pull topic, so that GET /get/{topic} answers its example with 200
            "delay.dispatch.topics[order.close]=pull"
        })
class ApiDocumentationTest {
    static final String TOKEN = "docs-secret";
    static final ServiceStores STORES = ServiceStores.redisAndJournal("apidocs");
    /** The answers an operation of this API may give (issue 20). */
    private static final Set<String> STATUSES =
            Set.of("200", "202", "400", "401", "404", "409", "413", "415", "503", "504");

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        STORES.register(registry);
    }

    @LocalServerPort
    int port;

    @Autowired
    @Qualifier("requestMappingHandlerMapping")
    RequestMappingHandlerMapping mappings;

    /** One endpoint as a controller of the service maps it. */
    private record Endpoint(String path, String method, List<String> parameters) {}

    /** One operation of the description. */
    private record Op(String path, String method, JsonNode node) {
        @Override
        public String toString() {
            return method.toUpperCase(Locale.ROOT) + " " + path;
        }
    }

    @Test
    void every_endpoint_the_controllers_map_is_described_with_its_parameters() {
        List<Endpoint> endpoints = controllerEndpoints();
        assertThat(endpoints)
                .as("the controllers' endpoints (the test must see them to check anything)")
                .extracting(Endpoint::path)
                .contains("/push", "/push/batch", "/jobs/{id}", "/get/{topic}", "/delete", "/reStore/{id}");
        JsonNode docs = docs();
        assertThat(docs.path("info").path("version").asText())
                .as("info.version")
                .isNotBlank()
                .isNotEqualTo("unknown")
                .doesNotContain("${");
        docs.path("paths").fieldNames().forEachRemaining(path -> assertThat(path)
                .as("the container's error dispatch is no operation")
                .doesNotStartWith("/error"));
        for (Endpoint e : endpoints) {
            JsonNode op = docs.path("paths").path(e.path()).path(e.method());
            assertThat(op.isObject())
                    .as("%s %s is described", e.method(), e.path())
                    .isTrue();
            List<String> described = new ArrayList<>();
            op.path("parameters").forEach(p -> described.add(p.path("name").asText()));
            assertThat(described)
                    .as("%s %s parameters", e.method(), e.path())
                    .containsExactlyInAnyOrderElementsOf(e.parameters());
        }
        assertThat(operations(docs)).as("operations described").hasSize(endpoints.size());
    }

    @Test
    void every_operation_parameter_body_field_and_answer_is_documented() {
        JsonNode docs = docs();
        SoftAssertions soft = new SoftAssertions();
        for (Op op : operations(docs)) {
            soft.assertThat(op.node().path("summary").asText())
                    .as("%s summary", op)
                    .isNotBlank();
            soft.assertThat(op.node().path("description").asText())
                    .as("%s description", op)
                    .isNotBlank();
            for (JsonNode p : op.node().path("parameters")) {
                String name = op + " parameter " + p.path("name").asText();
                soft.assertThat(p.path("description").asText())
                        .as("%s description", name)
                        .isNotBlank();
                soft.assertThat(p.path("required").isBoolean())
                        .as("%s says whether it is required", name)
                        .isTrue();
                if (p.path("in").asText().equals("path")) {
                    soft.assertThat(p.path("required").asBoolean())
                            .as("%s required", name)
                            .isTrue();
                }
                JsonNode schema = p.path("schema");
                soft.assertThat(p.has("example") || schema.has("example"))
                        .as("%s example", name)
                        .isTrue();
                checkLimits(soft, name, schema);
            }
            JsonNode body = op.node().path("requestBody");
            if (!body.isMissingNode()) {
                soft.assertThat(body.path("description").asText())
                        .as("%s body description", op)
                        .isNotBlank();
                soft.assertThat(body.path("required").isBoolean())
                        .as("%s body required", op)
                        .isTrue();
                JsonNode media = body.path("content").path("application/json");
                soft.assertThat(media.has("example")).as("%s body example", op).isTrue();
                checkBodySchema(soft, docs, op + " body", media.path("schema"));
            }
            JsonNode responses = op.node().path("responses");
            Set<String> codes = new TreeSet<>();
            responses.fieldNames().forEachRemaining(codes::add);
            soft.assertThat(STATUSES).as("%s answers %s", op, codes).containsAll(codes);
            soft.assertThat(codes).as("%s answers", op).contains("200", "400", "415");
            for (String code : codes) {
                JsonNode r = responses.path(code);
                soft.assertThat(r.path("description").asText())
                        .as("%s %s description", op, code)
                        .isNotBlank();
                JsonNode schema =
                        resolve(docs, r.path("content").path("application/json").path("schema"));
                soft.assertThat(names(schema.path("properties")))
                        .as("%s %s is the JSON envelope", op, code)
                        .contains("success", "code", "data", "message");
                if (code.equals("400")) {
                    soft.assertThat(names(
                                    resolve(docs, schema.path("properties").path("data"))
                                            .path("properties")))
                            .as("%s 400's data names the field, a batch element's index and its job's id", op)
                            .contains("field", "index", "id");
                }
            }
            soft.assertThat(op.node().path("security").toString())
                    .as("%s names the token exactly when it documents 401", op)
                    .isEqualTo(codes.contains("401") ? "[{\"token\":[]}]" : "");
        }
        soft.assertAll();
    }

    @Test
    void every_answer_the_service_gives_is_documented() {
        JsonNode docs = docs();
        Api withToken = new Api(port).withHeader("Authorization", "Bearer " + TOKEN);
        SoftAssertions soft = new SoftAssertions();
        for (Op op : operations(docs)) {
            Set<String> codes = new TreeSet<>();
            op.node().path("responses").fieldNames().forEachRemaining(codes::add);
            String method = op.method().toUpperCase(Locale.ROOT);
            String body = op.node()
                    .path("requestBody")
                    .path("content")
                    .path("application/json")
                    .path("example")
                    .toString();
            boolean hasBody = op.node().has("requestBody");
            for (String path : examplePaths(op)) {
                Api.Response r = withToken.send(method, path, hasBody ? body : null);
                soft.assertThat(codes).as("%s %s answered %s", method, path, r).contains(status(r.status()));
                soft.assertThat(r.code()).as("%s %s envelope", method, path).isEqualTo(r.status());
            }
            String path = examplePaths(op).get(0);
            Api.Response anonymous = new Api(port).send(method, path, hasBody ? body : null);
            soft.assertThat(codes.contains("401"))
                    .as("%s documents 401 exactly when it answers 401 without the token: %s", op, anonymous)
                    .isEqualTo(anonymous.status() == 401);
            if (anonymous.status() == 401) {
                soft.assertThat(example(op, "401").path("message").asText())
                        .as("%s 401's example is the answer the service gives", op)
                        .isEqualTo(anonymous.message());
            }
            String repeated = path + (path.contains("?") ? "&" : "?") + "repeated=1&repeated=2";
            Api.Response twice = withToken.send(method, repeated, hasBody ? body : null);
            soft.assertThat(twice.status())
                    .as("%s %s: %s", method, repeated, twice)
                    .isEqualTo(400);
            soft.assertThat(twice.data().path("field").asText())
                    .as("%s %s: data names the field, as documented: %s", method, repeated, twice)
                    .isEqualTo("repeated");
            Answer text = raw(method, path, "text/plain", "hello".getBytes(UTF_8), -1);
            soft.assertThat(text.status())
                    .as("%s %s with a text/plain body: %s", method, path, text)
                    .isEqualTo(415);
            soft.assertThat(text.raw())
                    .as("%s 415's example is the answer the service gives", op)
                    .contains("\"message\":\""
                            + example(op, "415").path("message").asText() + "\"");
            Answer huge = raw(method, path, "application/json", "[".getBytes(UTF_8), 1L << 30);
            soft.assertThat(codes.contains("413"))
                    .as("%s documents 413 exactly when it answers 413 to a body declared over its limit: %s", op, huge)
                    .isEqualTo(huge.status() == 413);
            soft.assertThat(hasBody)
                    .as("%s documents a request body exactly when it reads one (answers 413): %s", op, huge)
                    .isEqualTo(huge.status() == 413);
            soft.assertThat(codes).as("%s %s answered %s", method, path, huge).contains(status(huge.status()));
        }
        soft.assertAll();
    }

    /** The operations' names in generated code (issue 28): a verb and what it acts on, never get or list alone. */
    @Test
    void every_operation_is_named_for_generated_code() {
        Map<String, String> ids = new LinkedHashMap<>();
        operations(docs())
                .forEach(op ->
                        ids.put(op.toString(), op.node().path("operationId").asText()));
        assertThat(ids.values()).as("operationIds").doesNotHaveDuplicates().allSatisfy(id -> assertThat(id)
                .as("a verb and a noun in camelCase")
                .matches("[a-z]+[A-Z][A-Za-z]*"));
        assertThat(ids)
                .containsEntry("POST /push", "pushJob")
                .containsEntry("POST /push/batch", "pushJobs")
                .containsEntry("GET /get/{topic}", "reserveJobs")
                .containsEntry("POST /jobs/{id}/finish", "finishJob")
                .containsEntry("POST /jobs/finish", "finishJobs")
                .containsEntry("GET /jobs/{id}", "getJob")
                .containsEntry("DELETE /jobs/{id}", "deleteJob")
                .containsEntry("GET /dead/{topic}", "listDeadLetters")
                .containsEntry("POST /dead/{topic}/requeue", "requeueDeadLetters")
                .containsEntry("POST /dead/{topic}/delete", "deleteDeadLetters")
                .containsEntry("GET /stats", "getStats");
    }

    /**
     * Every answer is typed (its data too: no bare object where a schema exists) and has an example of its own: the
     * envelope with that status's code, a message of its own among the operation's answers (issue 28: the same 400
     * stood under 401, 413, 415, 503 and 504).
     */
    @Test
    void every_answer_is_typed_and_has_an_example_of_its_own() {
        JsonNode docs = docs();
        SoftAssertions soft = new SoftAssertions();
        for (Op op : operations(docs)) {
            Map<String, String> messages = new LinkedHashMap<>();
            op.node().path("responses").fields().forEachRemaining(answer -> {
                String code = answer.getKey();
                JsonNode media = answer.getValue().path("content").path("application/json");
                JsonNode envelope = resolve(docs, media.path("schema"));
                soft.assertThat(typed(docs, envelope.path("properties").path("data"), 0))
                        .as(
                                "%s %s: data is typed: %s",
                                op, code, envelope.path("properties").path("data"))
                        .isTrue();
                JsonNode example = media.path("example");
                soft.assertThat(example.path("code").asText())
                        .as("%s %s example's code: %s", op, code, example)
                        .isEqualTo(code);
                soft.assertThat(example.path("success").asBoolean())
                        .as("%s %s example's success", op, code)
                        .isEqualTo(code.startsWith("2"));
                soft.assertThat(example.has("data"))
                        .as("%s %s example's data", op, code)
                        .isTrue();
                if (!code.startsWith("2")) {
                    String message = example.path("message").asText();
                    soft.assertThat(messages.values())
                            .as("%s %s example's message is its own: %s", op, code, message)
                            .doesNotContain(message);
                    messages.put(code, message);
                }
            });
        }
        for (String name : List.of(
                "Job",
                "JobLookup",
                "JournalEntry",
                "Page",
                "Requeue",
                "Deletion",
                "RestoreReport",
                "FinishOutcome",
                "EngineStats",
                "ShardStats",
                "TierStats",
                "Snapshot",
                "Journal")) {
            JsonNode schema = docs.path("components").path("schemas").path(name);
            soft.assertThat(schema.path("properties").size())
                    .as("%s fields", name)
                    .isPositive();
            schema.path("properties").fields().forEachRemaining(f -> soft.assertThat(
                            f.getValue().has("description") || f.getValue().has("$ref"))
                    .as("%s.%s is described: %s", name, f.getKey(), f.getValue())
                    .isTrue());
        }
        soft.assertAll();
    }

    /** Placeholders such as {@code <topic>} sit in code spans: Swagger UI's Markdown would drop them as HTML tags. */
    @Test
    void every_placeholder_in_a_description_shows_in_swagger_ui() {
        List<String> texts = new ArrayList<>();
        collectTexts(docs(), texts);
        assertThat(texts).as("descriptions").isNotEmpty();
        assertThat(texts).as("no text has a <placeholder> outside a code span").allSatisfy(text -> {
            String[] parts = text.split("`", -1);
            for (int i = 0; i < parts.length; i += 2) {
                assertThat(parts[i]).doesNotContainPattern("<[^<>]+>");
            }
        });
        assertThat(String.join("\n", texts))
                .as("the pull topic's setting, whole")
                .contains("`delay.dispatch.topics.<topic>=pull`");
    }

    private static void collectTexts(JsonNode node, List<String> texts) {
        node.fields().forEachRemaining(f -> {
            if ((f.getKey().equals("description") || f.getKey().equals("summary"))
                    && f.getValue().isTextual()) {
                texts.add(f.getValue().asText());
            } else if (!f.getKey().equals("example") && !f.getKey().equals("examples")) {
                collectTexts(f.getValue(), texts);
            }
        });
        if (node.isArray()) {
            node.forEach(n -> collectTexts(n, texts));
        }
    }

    /** Whether {@code schema} says what its value is: a type with its parts typed, a reference or a choice. */
    private static boolean typed(JsonNode docs, JsonNode schema, int depth) {
        if (schema.has("$ref") || schema.has("oneOf") || schema.has("anyOf") || schema.has("allOf")) {
            return true;
        }
        return switch (schema.path("type").asText()) {
            case "string", "integer", "number", "boolean" -> true;
            case "array" -> typed(docs, schema.path("items"), depth + 1);
            case "object" -> schema.path("properties").size() > 0
                    || (schema.path("additionalProperties").isObject()
                            && typed(docs, schema.path("additionalProperties"), depth + 1));
            default -> false;
        };
    }

    private static JsonNode example(Op op, String code) {
        return op.node()
                .path("responses")
                .path(code)
                .path("content")
                .path("application/json")
                .path("example");
    }

    @Test
    void the_description_passes_spectral_recommended_rules_without_an_error() throws IOException {
        Path dir = Files.createDirectories(Path.of("target", "api-docs"));
        Path document = dir.resolve("openapi.json");
        Files.writeString(document, new Api(port).get("/v3/api-docs").raw(), UTF_8);
        Path ruleset = dir.resolve("spectral.yaml");
        try (InputStream in = getClass().getResourceAsStream("/spectral.yaml")) {
            Files.write(ruleset, in.readAllBytes());
        }
        Spectral.Result lint = Spectral.lint(document, ruleset);
        assertThat(lint.exitStatus())
                .as("spectral lint %s (errors fail; warnings are listed too):%n%s", document, lint.output())
                .isZero();
    }

    @Test
    void swagger_ui_is_served_without_the_token() {
        Api.Response ui = new Api(port).get("/swagger-ui/index.html");
        assertThat(ui.status()).as("Swagger UI: %s", ui).isEqualTo(200);
        assertThat(ui.raw()).contains("swagger-ui");
    }

    private JsonNode docs() {
        Api.Response docs = new Api(port).get("/v3/api-docs");
        assertThat(docs.status())
                .as("GET /v3/api-docs without the token: %s", docs)
                .isEqualTo(200);
        return docs.json();
    }

    private static List<Op> operations(JsonNode docs) {
        List<Op> ops = new ArrayList<>();
        docs.path("paths")
                .fields()
                .forEachRemaining(path -> path.getValue().fields().forEachRemaining(op -> {
                    if (Set.of("get", "put", "post", "delete", "patch", "head", "options", "trace")
                            .contains(op.getKey())) {
                        ops.add(new Op(path.getKey(), op.getKey(), op.getValue()));
                    }
                }));
        return ops;
    }

    /**
     * The paths (with query) an operation is called with: its path parameters and required query parameters from
     * their examples, then each optional query parameter added alone.
     */
    private static List<String> examplePaths(Op op) {
        String path = op.path();
        Map<String, String> required = new LinkedHashMap<>();
        List<String> optional = new ArrayList<>();
        for (JsonNode p : op.node().path("parameters")) {
            String name = p.path("name").asText();
            String example = p.has("example")
                    ? p.path("example").asText()
                    : p.path("schema").path("example").asText();
            String encoded = URLEncoder.encode(example, UTF_8);
            if (p.path("in").asText().equals("path")) {
                path = path.replace("{" + name + "}", encoded);
            } else if (p.path("required").asBoolean()) {
                required.put(name, encoded);
            } else {
                optional.add(name + "=" + encoded);
            }
        }
        List<String> queries = new ArrayList<>();
        String base = String.join(
                "&",
                required.entrySet().stream()
                        .map(e -> e.getKey() + "=" + e.getValue())
                        .toList());
        queries.add(base);
        for (String o : optional) {
            queries.add(base.isEmpty() ? o : base + "&" + o);
        }
        String finalPath = path;
        return queries.stream()
                .map(q -> q.isEmpty() ? finalPath : finalPath + "?" + q)
                .toList();
    }

    /** A parameter's or field's limits: a pattern, length or enum for text, a bound for a number, items for a list. */
    private static void checkLimits(SoftAssertions soft, String name, JsonNode schema) {
        String type = schema.path("type").asText();
        soft.assertThat(type).as("%s type", name).isNotBlank();
        switch (type) {
            case "string" -> soft.assertThat(schema.has("pattern") || schema.has("maxLength") || schema.has("enum"))
                    .as("%s has a pattern, a maxLength or an enum: %s", name, schema)
                    .isTrue();
            case "integer", "number" -> soft.assertThat(schema.has("minimum") || schema.has("maximum"))
                    .as("%s has a minimum or a maximum: %s", name, schema)
                    .isTrue();
            case "array" -> soft.assertThat(schema.has("maxItems"))
                    .as("%s has a maxItems: %s", name, schema)
                    .isTrue();
            default -> {}
        }
    }

    private static void checkBodySchema(SoftAssertions soft, JsonNode docs, String name, JsonNode schema) {
        JsonNode resolved = resolve(docs, schema);
        if (resolved.path("type").asText().equals("array")) {
            checkLimits(soft, name, resolved);
            checkBodySchema(soft, docs, name + "[]", resolved.path("items"));
            return;
        }
        soft.assertThat(resolved.path("properties").size())
                .as("%s fields", name)
                .isPositive();
        resolved.path("properties").fields().forEachRemaining(f -> {
            String field = name + " field " + f.getKey();
            JsonNode s = f.getValue();
            soft.assertThat(s.path("description").asText())
                    .as("%s description", field)
                    .isNotBlank();
            soft.assertThat(s.has("example")).as("%s example", field).isTrue();
            checkLimits(soft, field, s);
        });
    }

    private static JsonNode resolve(JsonNode docs, JsonNode schema) {
        String ref = schema.path("$ref").asText();
        if (ref.isEmpty()) {
            return schema;
        }
        JsonNode target = docs;
        for (String part : ref.substring(2).split("/")) {
            target = target.path(part);
        }
        return target;
    }

    private static List<String> names(JsonNode object) {
        List<String> names = new ArrayList<>();
        object.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static String status(int status) {
        return Integer.toString(status);
    }

    /** A status and raw answer. */
    private record Answer(int status, String raw) {
        @Override
        public String toString() {
            return status + " " + raw;
        }
    }

    /**
     * Sends {@code body} over a fresh connection, declared {@code declaredLength} bytes long (its own length when
     * negative), with the token, and reads the answer until the server closes the connection.
     */
    private Answer raw(String method, String path, String contentType, byte[] body, long declaredLength) {
        String head = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                + "Authorization: Bearer " + TOKEN + "\r\nContent-Type: " + contentType + "\r\nContent-Length: "
                + (declaredLength < 0 ? body.length : declaredLength) + "\r\n\r\n";
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(head.getBytes(ISO_8859_1));
            out.write(body);
            out.flush();
            socket.shutdownOutput();
            String response = new String(socket.getInputStream().readAllBytes(), ISO_8859_1);
            assertThat(response).as("an HTTP answer to %s %s", method, path).startsWith("HTTP/1.1 ");
            return new Answer(Integer.parseInt(response.substring(9, 12)), response);
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + path, e);
        }
    }

    private List<Endpoint> controllerEndpoints() {
        List<Endpoint> endpoints = new ArrayList<>();
        mappings.getHandlerMethods().forEach((info, handler) -> {
            if (!handler.getBeanType().getPackageName().equals("io.delayqueue.controller")
                    || handler.getBeanType().isAnnotationPresent(Hidden.class)) {
                return;
            }
            List<String> parameters = new ArrayList<>();
            for (Parameter p : handler.getMethod().getParameters()) {
                RequestParam query = p.getAnnotation(RequestParam.class);
                PathVariable path = p.getAnnotation(PathVariable.class);
                if (query != null) {
                    parameters.add(
                            query.value().isEmpty()
                                    ? query.name().isEmpty() ? p.getName() : query.name()
                                    : query.value());
                } else if (path != null) {
                    parameters.add(
                            path.value().isEmpty() ? path.name().isEmpty() ? p.getName() : path.name() : path.value());
                }
            }
            for (String pattern : info.getPatternValues()) {
                for (RequestMethod method : info.getMethodsCondition().getMethods()) {
                    endpoints.add(new Endpoint(pattern, method.name().toLowerCase(Locale.ROOT), parameters));
                }
            }
        });
        return endpoints;
    }
}
