package io.delayqueue.controller;

import io.delayqueue.common.PushRequest;
import io.delayqueue.queue.engine.PullSettings;
import io.swagger.v3.core.converter.ModelConverters;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.media.ArraySchema;
import io.swagger.v3.oas.models.media.BooleanSchema;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.IntegerSchema;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.ObjectSchema;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.parameters.Parameter;
import io.swagger.v3.oas.models.parameters.RequestBody;
import io.swagger.v3.oas.models.responses.ApiResponses;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.oas.models.security.SecurityScheme;
import java.util.Map;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The machine-readable description of the API at {@code /v3/api-docs} (Swagger UI at {@code /swagger-ui.html}),
 * made by springdoc from the controllers' mappings. What the mappings cannot tell is added here: the push and
 * batch-finish bodies (read as raw bytes by {@link JobController}, so that bad encodings are refused, not repaired), what each query
 * parameter means, the error envelope on every operation, and the bearer token of {@code delay.security.token}.
 */
@Configuration(proxyBeanMethods = false)
public class ApiDocumentation {
    static final String ERROR = "Error";
    static final String PUSH_REQUEST = "PushRequest";
    static final String REQUEUE_REQUEST = "RequeueRequest";
    static final String FINISH_REQUEST = "FinishRequest";
    static final String TOKEN = "token";

    /** What each query or path parameter of the controllers means, by name. */
    private static final Map<String, String> PARAMETERS = Map.of(
            "jobId", "the job's id",
            "JobId", "the job's id, as mykit-delay spells it (give jobId or JobId)",
            "id", "the job's id",
            "topic", "the topic, [A-Za-z0-9._-]{1,64}",
            "timeout", "milliseconds to wait for a ready job (at most delay.pull.max-timeout); 0 answers at once",
            "expire", "true (default): restore jobs whose due time has passed too; false: skip them",
            "confirm", "must be true: clearAll deletes every job not handed over yet",
            "limit", "the most dead letters listed",
            "count",
                    "the most jobs to reserve, 1 to " + PullSettings.MAX_COUNT + ": data is then a list (possibly"
                            + " empty); without count, data is one job or null",
            "attempts",
                    "the job's attempts as the consumer reserved it: the finish counts only for that reservation"
                            + " (409 once it expired and the job was handed over again)");

    @Bean
    OpenAPI delayQueueOpenApi() {
        Components components = new Components()
                .addSecuritySchemes(
                        TOKEN,
                        new SecurityScheme()
                                .type(SecurityScheme.Type.HTTP)
                                .scheme("bearer")
                                .description("delay.security.token, when it is set: every call that changes the"
                                        + " queue needs it (also accepted as the X-Delay-Token header); reads of"
                                        + " /jobs/{id}, /stats and /actuator stay open"));
        ModelConverters.getInstance().read(PushRequest.class).forEach(components::addSchemas);
        ModelConverters.getInstance()
                .read(DeadLetterController.RequeueRequest.class)
                .forEach(components::addSchemas);
        return new OpenAPI()
                .info(new Info()
                        .title("delay-queue")
                        .description("Jobs handed over at their due time, journaled so that none is lost. Every"
                                + " answer is the envelope {success, code, data, message}, code equal to the"
                                + " HTTP status."))
                .components(components);
    }

    /**
     * Adds what the mappings cannot tell to every operation springdoc found, and the schemas that refers to
     * (here, not on the bean above: springdoc replaces that bean's schemas with those it derives).
     */
    @Bean
    OpenApiCustomizer delayQueueOperations() {
        return openApi -> {
            Components components = openApi.getComponents();
            components.addSchemas(ERROR, errorEnvelope());
            ModelConverters.getInstance().read(PushRequest.class).forEach(components::addSchemas);
            ModelConverters.getInstance()
                    .read(DeadLetterController.RequeueRequest.class)
                    .forEach(components::addSchemas);
            ModelConverters.getInstance()
                    .read(JobController.FinishRequest.class)
                    .forEach(components::addSchemas);
            openApi.getPaths().forEach((path, item) -> {
                for (var entry : item.readOperationsMap().entrySet()) {
                    describe(path, entry.getKey(), entry.getValue());
                }
            });
        };
    }

    private static void describe(String path, PathItem.HttpMethod method, Operation operation) {
        if (operation.getParameters() != null) {
            for (Parameter p : operation.getParameters()) {
                if (p.getDescription() == null) {
                    p.setDescription(PARAMETERS.get(p.getName()));
                }
            }
        }
        if (path.equals("/push")) {
            operation.requestBody(jsonBody("one job", new Schema<>().$ref(PUSH_REQUEST)));
        } else if (path.equals("/push/batch")) {
            operation.requestBody(jsonBody(
                    "up to 1000 jobs; one bad job rejects the batch",
                    new ArraySchema().items(new Schema<>().$ref(PUSH_REQUEST))));
        } else if (path.equals("/jobs/finish")) {
            operation.requestBody(jsonBody(
                    "up to " + PullSettings.MAX_COUNT + " reserved jobs to finish, each with its attempts as"
                            + " reserved (optional); data answers an outcome per job: FINISHED, STALE (that"
                            + " reservation is over; ignored), NOT_FOUND, NOT_RESERVED, UNKNOWN (Redis failed on"
                            + " its shard; finishing it again is safe)",
                    new ArraySchema().items(new Schema<>().$ref(FINISH_REQUEST))));
        } else if (path.endsWith("/requeue")) {
            operation.requestBody(jsonBody(
                            "{\"ids\": [...]}: those dead letters; no body: every dead letter of the topic",
                            new Schema<>().$ref(REQUEUE_REQUEST))
                    .required(false));
        }
        ApiResponses responses = operation.getResponses() == null ? new ApiResponses() : operation.getResponses();
        responses.addApiResponse(
                "4XX",
                error("bad input, naming the field (400); token missing (401); unknown job (404); the job's state"
                        + " forbids it (409); body too large (413); not application/json (415)"));
        responses.addApiResponse(
                "5XX",
                error("503: refused, nothing was written (the message says why); 504: the outcome is unknown,"
                        + " retrying with the same id is safe"));
        operation.responses(responses);
        if (!isOpenRead(path, method)) {
            operation.addSecurityItem(new SecurityRequirement().addList(TOKEN));
        }
    }

    /** The reads that {@link TokenFilter} lets through without a token. */
    static boolean isOpenRead(String path, PathItem.HttpMethod method) {
        return method == PathItem.HttpMethod.GET
                && (path.startsWith("/jobs/")
                        || path.equals("/stats")
                        || TokenFilter.OPEN_CONSOLE_READS.contains(path));
    }

    private static RequestBody jsonBody(String description, Schema<?> schema) {
        return new RequestBody()
                .required(true)
                .description(description)
                .content(new Content().addMediaType("application/json", new MediaType().schema(schema)));
    }

    private static io.swagger.v3.oas.models.responses.ApiResponse error(String description) {
        return new io.swagger.v3.oas.models.responses.ApiResponse()
                .description(description)
                .content(new Content()
                        .addMediaType("application/json", new MediaType().schema(new Schema<>().$ref(ERROR))));
    }

    private static Schema<?> errorEnvelope() {
        return new ObjectSchema()
                .description("The envelope of an error: success false, code equal to the HTTP status")
                .addProperty("success", new BooleanSchema().example(false))
                .addProperty("code", new IntegerSchema().example(400))
                .addProperty("data", new ObjectSchema().nullable(true).description("null, or the job's id"))
                .addProperty("message", new StringSchema().example("topic: must match [A-Za-z0-9._-]{1,64}"))
                .required(java.util.List.of("success", "code", "message"));
    }
}
