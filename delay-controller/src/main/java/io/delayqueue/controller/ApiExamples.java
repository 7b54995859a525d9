package io.delayqueue.controller;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.delayqueue.common.FieldError;
import io.swagger.v3.core.util.Json;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.parameters.Parameter;
import java.util.List;
import java.util.Map;

/**
 * The example of each answer of each operation, so that the description (and Swagger UI) shows under every status
 * an answer of that status: the envelope with its code, a message the service gives for it (the {@link Answer}'s
 * example, else the status's usual one) and the data it carries. A success's data is made from its schema once every
 * schema is known ({@link #completeSuccesses}), from the fields' own examples.
 */
final class ApiExamples {
    private static final ObjectMapper MAPPER = Json.mapper();
    /** The id of the job in {@link ApiSchemas#PUSH_EXAMPLE}. */
    private static final String PUSHED_ID = "order-41-close";

    private ApiExamples() {}

    /**
     * The example answer {@code code} of {@code operation} (its operationId set): an error complete, a success
     * without its data (added by {@link #completeSuccesses}).
     *
     * @param message the answer's message; empty: the status's usual message, else {@code when}
     * @param limit the operation's request body limit, for its 413
     */
    static ObjectNode answer(int code, String message, String when, Operation operation, int limit) {
        ObjectNode answer = MAPPER.createObjectNode();
        answer.put("success", code < 300);
        answer.put("code", code);
        if (code < 300) {
            answer.put("message", message.isEmpty() ? null : message);
            return answer;
        }
        String text = message.isEmpty() ? usualMessage(code, when, operation, limit) : message;
        answer.set("data", errorData(code, text, operation));
        answer.put("message", text);
        return answer;
    }

    private static String usualMessage(int code, String when, Operation operation, int limit) {
        return switch (code) {
            case 400 -> firstQueryParameter(operation) + " is given twice; give each query parameter once";
            case 401 -> TokenFilter.MISSING;
            case 404 -> "job " + QueryParameters.EXAMPLE_ID + " not found";
            case 413 -> "body of the request is over " + limit + " bytes";
            case 415 -> "Content-Type text/plain is not accepted; send the body as application/json";
            default -> when;
        };
    }

    /** What an error's data holds: a 400's field, else the job (or a batch's jobs) it concerns, else null. */
    private static JsonNode errorData(int code, String message, Operation operation) {
        String id = operation.getOperationId();
        if (code == 400) {
            FieldError field = FieldError.of(message.substring(0, message.indexOf(' ')));
            return MAPPER.valueToTree(id.equals("pushJob") ? field.naming(PUSHED_ID) : field);
        }
        boolean oneJob = id.equals("pushJob") || names(operation, "id") || names(operation, "jobId");
        if (id.equals("pushJobs") && (code == 409 || code == 503 || code == 504)) {
            return MAPPER.valueToTree(List.of("order-43-close", "order-44-close"));
        }
        boolean aboutTheJob = code == 404
                || (code == 409 && oneJob && !message.startsWith("there is no journal"))
                || ((code == 503 || code == 504) && (id.equals("pushJob") || id.startsWith("deleteJob")));
        if (!aboutTheJob) {
            return NullNode.getInstance();
        }
        return MAPPER.valueToTree(id.equals("pushJob") ? PUSHED_ID : QueryParameters.EXAMPLE_ID);
    }

    private static boolean names(Operation operation, String parameter) {
        return operation.getParameters() != null
                && operation.getParameters().stream().anyMatch(p -> p.getName().equals(parameter));
    }

    /** A query parameter of the operation, to name in the example of a parameter given twice. */
    private static String firstQueryParameter(Operation operation) {
        if (operation.getParameters() != null) {
            for (Parameter p : operation.getParameters()) {
                if ("query".equals(p.getIn())) {
                    return p.getName();
                }
            }
        }
        return "verbose";
    }

    /** Adds to each success's example the data its schema describes, from the fields' examples. */
    @SuppressWarnings("rawtypes")
    static void completeSuccesses(OpenAPI openApi) {
        Map<String, Schema> schemas = openApi.getComponents().getSchemas();
        openApi.getPaths().values().forEach(path -> path.readOperations()
                .forEach(operation -> operation.getResponses().forEach((code, response) -> {
                    if (response.getContent() == null) {
                        return;
                    }
                    MediaType media = response.getContent().get("application/json");
                    if (media == null || !(media.getExample() instanceof ObjectNode answer) || answer.has("data")) {
                        return;
                    }
                    Schema envelope = resolve(media.getSchema(), schemas);
                    Schema data = envelope == null || envelope.getProperties() == null
                            ? null
                            : (Schema) envelope.getProperties().get("data");
                    ObjectNode complete = MAPPER.createObjectNode();
                    complete.set("success", answer.get("success"));
                    complete.set("code", answer.get("code"));
                    complete.set("data", inState(topData(data, schemas, operation.getOperationId()), operation));
                    complete.set("message", answer.get("message"));
                    media.setExample(complete);
                })));
    }

    /** The example's jobs in the state the operation answers them: reserved by a reservation, dead in a list of those. */
    private static JsonNode inState(JsonNode data, Operation operation) {
        if (operation.getOperationId().equals("reserveJobs") && data instanceof ObjectNode job) {
            job.put("status", "RESERVED");
        }
        if (operation.getOperationId().equals("listDeadLetters")) {
            data.path("jobs").forEach(j -> {
                if (j instanceof ObjectNode job) {
                    job.put("status", "DEAD");
                    job.set("attempts", job.get("maxAttempts"));
                    job.put("id", QueryParameters.EXAMPLE_ID);
                }
            });
        }
        return data;
    }

    /** A success's data: an id where it is a job's id (or the ids of a batch), else made from the schema. */
    @SuppressWarnings("rawtypes")
    private static JsonNode topData(Schema data, Map<String, Schema> schemas, String operationId) {
        if (data != null && "string".equals(data.getType()) && data.getExample() == null) {
            return MAPPER.valueToTree(operationId.equals("pushJob") ? PUSHED_ID : QueryParameters.EXAMPLE_ID);
        }
        if (data != null
                && "array".equals(data.getType())
                && data.getItems() != null
                && "string".equals(data.getItems().getType())) {
            return MAPPER.valueToTree(List.of("order-43-close", "order-44-close"));
        }
        return of(data, schemas, 0);
    }

    /** An example of {@code schema}: its own, else one made of its fields' (a {@code $ref} followed). */
    @SuppressWarnings({"rawtypes", "unchecked"})
    static JsonNode of(Schema schema, Map<String, Schema> schemas, int depth) {
        if (schema == null || depth > 10) {
            return NullNode.getInstance();
        }
        if (schema.get$ref() != null) {
            return of(resolve(schema, schemas), schemas, depth + 1);
        }
        if (schema.getExample() != null) {
            return MAPPER.valueToTree(schema.getExample());
        }
        for (List<Schema> choices : new List[] {schema.getOneOf(), schema.getAllOf(), schema.getAnyOf()}) {
            if (choices != null && !choices.isEmpty()) {
                return of(choices.get(0), schemas, depth + 1);
            }
        }
        if (schema.getEnum() != null && !schema.getEnum().isEmpty()) {
            return MAPPER.valueToTree(schema.getEnum().get(0));
        }
        if (schema.getProperties() != null) {
            ObjectNode object = MAPPER.createObjectNode();
            ((Map<String, Schema>) schema.getProperties())
                    .forEach((name, property) -> object.set(name, of(property, schemas, depth + 1)));
            return object;
        }
        String type = schema.getType() == null ? "" : schema.getType();
        return switch (type) {
            case "array" -> {
                ArrayNode array = MAPPER.createArrayNode();
                array.add(of(schema.getItems(), schemas, depth + 1));
                yield array;
            }
            case "object" -> {
                ObjectNode object = MAPPER.createObjectNode();
                if (schema.getAdditionalProperties() instanceof Schema values) {
                    object.set(QueryParameters.EXAMPLE_ID, of(values, schemas, depth + 1));
                }
                yield object;
            }
            case "integer", "number" -> MAPPER.valueToTree(
                    schema.getMinimum() != null ? schema.getMinimum().longValue() : 0);
            case "boolean" -> MAPPER.valueToTree(true);
            case "string" -> MAPPER.valueToTree("string");
            default -> NullNode.getInstance();
        };
    }

    @SuppressWarnings("rawtypes")
    private static Schema resolve(Schema schema, Map<String, Schema> schemas) {
        if (schema == null || schema.get$ref() == null) {
            return schema;
        }
        String ref = schema.get$ref();
        return schemas.get(ref.substring(ref.lastIndexOf('/') + 1));
    }
}
