package io.delayqueue.controller;

import io.delayqueue.queue.engine.DelayQueueEngine;
import io.delayqueue.queue.engine.EngineConfig;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.parameters.Parameter;
import io.swagger.v3.oas.models.parameters.RequestBody;
import io.swagger.v3.oas.models.responses.ApiResponses;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.oas.models.security.SecurityScheme;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springdoc.core.customizers.OperationCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.method.HandlerMethod;

/**
 * The machine-readable description of the API at {@code /v3/api-docs} (Swagger UI at {@code /swagger-ui.html}),
 * made by springdoc from the controllers: their mappings, their {@code @Operation} and {@code @Parameter}
 * annotations, and the answers listed beside each handler ({@link Answer}). Added here: the statuses every
 * operation can give (400, 415, and 401 or 413 where they apply), every answer's JSON envelope, the request
 * bodies (read as raw bytes, so that bad encodings are refused, not repaired; their schemas are {@link
 * ApiSchemas}), the limits that settings decide, and the bearer token of {@code delay.security.token}. Every answer
 * has a schema and an example of its own ({@link ApiExamples}), and every operation a name for generated clients
 * (its operationId).
 */
@Configuration(proxyBeanMethods = false)
public class ApiDocumentation {
    static final String TOKEN = "token";

    @Bean
    OpenAPI delayQueueOpenApi() {
        return new OpenAPI()
                .info(new Info()
                        .title("delay-queue")
                        .version(version())
                        .description("Jobs handed over at their due time, journaled so that none is lost. Every"
                                + " answer is the envelope {success, code, data, message}, code equal to the"
                                + " HTTP status. Bad input is a 4xx naming the field, and nothing is written."))
                .components(new Components()
                        .addSecuritySchemes(
                                TOKEN,
                                new SecurityScheme()
                                        .type(SecurityScheme.Type.HTTP)
                                        .scheme("bearer")
                                        .description("delay.security.token, when it is set: every call that"
                                                + " changes the queue needs it (also accepted as the"
                                                + " X-Delay-Token header); reads of /jobs/{id}, /stats and"
                                                + " /actuator stay open")));
    }

    /** The answers, body, limits and token of each operation, from its handler. */
    @Bean
    OperationCustomizer delayQueueOperations(DelayQueueEngine engine) {
        return (operation, handler) -> {
            describe(operation, handler, engine.config());
            return operation;
        };
    }

    /**
     * The schemas the operations refer to (here: springdoc replaces the first bean's schemas with its own), the
     * examples of the successes (made from the schemas, now that they are all known), and every description written
     * so that Swagger UI shows it whole.
     */
    @Bean
    @SuppressWarnings({"rawtypes", "unchecked"})
    OpenApiCustomizer delayQueueSchemas(DelayQueueEngine engine) {
        return openApi -> {
            Map<String, Schema> schemas = openApi.getComponents().getSchemas();
            ApiSchemas.all(engine.config()).forEach(openApi.getComponents()::addSchemas);
            // GET /get/{topic}'s ApiResponse<Object>, replaced by ReserveAnswer
            schemas.remove("ApiResponseObject");
            ApiSchemas.describeDerived(schemas);
            ApiExamples.completeSuccesses(openApi);
            Markdown.protectAngleBrackets(openApi);
        };
    }

    private static void describe(Operation operation, HandlerMethod handler, EngineConfig config) {
        RequestMapping mapping = AnnotatedElementUtils.findMergedAnnotation(handler.getMethod(), RequestMapping.class);
        String path = mapping.path().length > 0 ? mapping.path()[0] : mapping.value()[0];
        String method = mapping.method().length > 0 ? mapping.method()[0].name() : "GET";
        operation.setOperationId(operationId(handler, method, path));
        RequestBody body = ApiSchemas.bodies(config).get(method + " " + path);
        if (body != null) {
            operation.requestBody(body);
        }
        if (operation.getParameters() != null) {
            for (Parameter p : operation.getParameters()) {
                if (p.getName().equals("timeout")) {
                    p.getSchema()
                            .maximum(BigDecimal.valueOf(
                                    config.pull().maxTimeout().toMillis()));
                }
            }
        }
        String answer = ApiSchemas.answers().get(method + " " + path);
        Content success = answer != null ? json(new Schema<>().$ref(answer)) : successContent(operation);
        boolean open = TokenFilter.isOpen(method, path);
        Map<Integer, Listed> answers = new TreeMap<>();
        answers.put(
                400,
                new Listed(
                        "bad input, nothing done: a query parameter malformed or given twice (the message names it,"
                                + " and data.field)",
                        ""));
        answers.put(415, new Listed("a body not sent as application/json in UTF-8; nothing done", ""));
        if (!open) {
            answers.put(401, new Listed("delay.security.token is set and the call did not carry it; nothing done", ""));
        }
        if (body != null) {
            answers.put(413, new Listed("the request body is over its limit; nothing done", ""));
        }
        for (Answer a : AnnotatedElementUtils.findMergedRepeatableAnnotations(handler.getMethod(), Answer.class)) {
            answers.put(a.code(), new Listed(a.when(), a.example()));
        }
        boolean batch = operation.getOperationId().equals("pushJobs");
        ApiResponses responses = new ApiResponses();
        answers.forEach((code, listed) -> {
            Content content = code < 300 && success != null
                    ? json(success.get("application/json").getSchema())
                    : json(new Schema<>()
                            .$ref(
                                    code == 400
                                            ? ApiSchemas.BAD_INPUT
                                            : batch ? ApiSchemas.BATCH_ERROR : ApiSchemas.ERROR));
            content.get("application/json")
                    .example(ApiExamples.answer(
                            code, listed.example(), listed.when(), operation, limit(method + " " + path, config)));
            responses.addApiResponse(
                    Integer.toString(code),
                    new io.swagger.v3.oas.models.responses.ApiResponse()
                            .description(listed.when())
                            .content(content));
        });
        operation.responses(responses);
        if (!open) {
            operation.addSecurityItem(new SecurityRequirement().addList(TOKEN));
        }
    }

    /** An answer listed for an operation: when it is given, and its example message (empty: the status's usual). */
    private record Listed(String when, String example) {}

    /**
     * The operation's name in generated code: its {@code @Operation}'s operationId, else the method and the path's
     * words ({@code GET /console/jobs}: getConsoleJobs), never the handler method's name alone ({@code get}, {@code
     * list}).
     */
    static String operationId(HandlerMethod handler, String method, String path) {
        io.swagger.v3.oas.annotations.Operation annotation = AnnotatedElementUtils.findMergedAnnotation(
                handler.getMethod(), io.swagger.v3.oas.annotations.Operation.class);
        if (annotation != null && !annotation.operationId().isBlank()) {
            return annotation.operationId();
        }
        StringBuilder id = new StringBuilder(method.toLowerCase(Locale.ROOT));
        for (String word : path.split("[/._-]")) {
            if (!word.isEmpty() && !word.startsWith("{")) {
                id.append(Character.toUpperCase(word.charAt(0))).append(word.substring(1));
            }
        }
        return id.toString();
    }

    /** The request body limit of an operation that reads one (its 413's message names it). */
    private static int limit(String operation, EngineConfig config) {
        return switch (operation) {
            case "POST /push" -> JobController.singleLimit(config);
            case "POST /push/batch" -> JobController.BATCH_REQUEST_LIMIT;
            case "POST /jobs/finish" -> JobController.FINISH_REQUEST_LIMIT;
            default -> DeadLetterController.REQUEST_LIMIT;
        };
    }

    /**
     * The envelope springdoc derived from the handler's return type for its 200 (under {@code *}{@code /*}), as the
     * {@code application/json} every answer is.
     */
    private static Content successContent(Operation operation) {
        var ok = operation.getResponses() == null
                ? null
                : operation.getResponses().get("200");
        if (ok == null || ok.getContent() == null || ok.getContent().isEmpty()) {
            return null;
        }
        return json(ok.getContent().values().iterator().next().getSchema());
    }

    static Content json(Schema<?> schema) {
        return new Content().addMediaType("application/json", new MediaType().schema(schema));
    }

    /** This build's version (delay-api.properties, filled in by the build). */
    static String version() {
        Properties p = new Properties();
        try (InputStream in = ApiDocumentation.class.getResourceAsStream("/delay-api.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return p.getProperty("version", "unknown");
    }
}
