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
 * ApiSchemas}), the limits that settings decide, and the bearer token of {@code delay.security.token}.
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

    /** The schemas the operations refer to (here: springdoc replaces the first bean's schemas with its own). */
    @Bean
    OpenApiCustomizer delayQueueSchemas(DelayQueueEngine engine) {
        return openApi -> ApiSchemas.all(engine.config()).forEach(openApi.getComponents()::addSchemas);
    }

    private static void describe(Operation operation, HandlerMethod handler, EngineConfig config) {
        RequestMapping mapping = AnnotatedElementUtils.findMergedAnnotation(handler.getMethod(), RequestMapping.class);
        String path = mapping.path().length > 0 ? mapping.path()[0] : mapping.value()[0];
        String method = mapping.method().length > 0 ? mapping.method()[0].name() : "GET";
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
        Content success = successContent(operation);
        boolean open = TokenFilter.isOpen(method, path);
        Map<Integer, String> answers = new TreeMap<>();
        answers.put(
                400,
                "bad input, nothing done: a query parameter malformed or given twice (the message names it, and"
                        + " data.field)");
        answers.put(415, "a body not sent as application/json in UTF-8; nothing done");
        if (!open) {
            answers.put(401, "delay.security.token is set and the call did not carry it; nothing done");
        }
        if (body != null) {
            answers.put(413, "the request body is over its limit; nothing done");
        }
        for (Answer a : AnnotatedElementUtils.findMergedRepeatableAnnotations(handler.getMethod(), Answer.class)) {
            answers.put(a.code(), a.when());
        }
        ApiResponses responses = new ApiResponses();
        answers.forEach((code, when) -> responses.addApiResponse(
                Integer.toString(code),
                new io.swagger.v3.oas.models.responses.ApiResponse()
                        .description(when)
                        .content(
                                code < 300 && success != null
                                        ? success
                                        : json(new Schema<>()
                                                .$ref(code == 400 ? ApiSchemas.BAD_INPUT : ApiSchemas.ERROR)))));
        operation.responses(responses);
        if (!open) {
            operation.addSecurityItem(new SecurityRequirement().addList(TOKEN));
        }
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
