package io.delayqueue.common;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.type.LogicalType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.stream.Collectors;

/**
 * JSON for jobs and push requests (Jackson). Requests are read strictly: unknown fields, strings for
 * numbers, numbers for strings and fractions for integers are rejected with an {@link
 * DelayQueueException.InvalidField} that names the field, instead of being silently coerced.
 */
public final class JsonCodec {
    private static final ObjectMapper STRICT = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            .build();
    private static final ObjectMapper WRITER = JsonMapper.builder().build();
    private static final TypeReference<List<PushRequest>> REQUEST_LIST = new TypeReference<>() {};

    static {
        STRICT.coercionConfigFor(LogicalType.Textual)
                .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        STRICT.coercionConfigFor(LogicalType.Integer)
                .setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
    }

    private JsonCodec() {}

    /** The shared writer, for components that serialise their own objects. */
    public static ObjectMapper mapper() {
        return WRITER;
    }

    public static String write(Object value) {
        try {
            return WRITER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static Job readJob(String json) {
        try {
            return WRITER.readValue(json, Job.class);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Parses one push request; a malformed document or field fails with a 400 naming the field. */
    public static PushRequest readPushRequest(byte[] json) {
        requireDocument(json, '{', "a JSON object");
        return readStrict(json, PushRequest.class, "");
    }

    /**
     * Parses one JSON object strictly into {@code type} (a record of the API, say); a malformed document or
     * field fails with a 400 naming the field.
     */
    public static <T> T readObject(byte[] json, Class<T> type) {
        requireDocument(json, '{', "a JSON object");
        return readStrict(json, type, "");
    }

    /** Parses a JSON array of push requests; a bad element fails naming {@code [index].field}. */
    public static List<PushRequest> readPushRequests(byte[] json) {
        requireDocument(json, '[', "a JSON array of jobs");
        try {
            return STRICT.readValue(json, REQUEST_LIST);
        } catch (IOException e) {
            throw invalid(e, "");
        }
    }

    private static <T> T readStrict(byte[] json, Class<T> type, String pathPrefix) {
        try {
            return STRICT.readValue(json, type);
        } catch (IOException e) {
            throw invalid(e, pathPrefix);
        }
    }

    private static void requireDocument(byte[] json, char opening, String what) {
        for (byte b : json) {
            if (b == ' ' || b == '\t' || b == '\r' || b == '\n') {
                continue;
            }
            if (b == opening) {
                return;
            }
            break;
        }
        throw new DelayQueueException.InvalidField("body", "of the request must be " + what);
    }

    private static DelayQueueException.InvalidField invalid(IOException e, String pathPrefix) {
        if (e instanceof JsonParseException p) {
            return new DelayQueueException.InvalidField(
                    "body", "of the request is not valid JSON: " + withoutSource(p.getOriginalMessage()));
        }
        if (e instanceof JsonMappingException m) {
            String field = pathPrefix + path(m.getPath());
            if (field.isEmpty()) {
                field = "body";
            }
            if (e instanceof UnrecognizedPropertyException u) {
                return new DelayQueueException.InvalidField(
                        field, "is not a known field (known: " + u.getKnownPropertyIds() + ")");
            }
            if (e instanceof InvalidFormatException f) {
                return new DelayQueueException.InvalidField(
                        field,
                        "has a value of the wrong type or format: " + f.getValue() + " (expected "
                                + typeName(f.getTargetType()) + ")");
            }
            if (e instanceof MismatchedInputException mi && mi.getTargetType() != null) {
                return new DelayQueueException.InvalidField(
                        field, "has the wrong type (expected " + typeName(mi.getTargetType()) + ")");
            }
            return new DelayQueueException.InvalidField(field, "is invalid: " + m.getOriginalMessage());
        }
        return new DelayQueueException.InvalidField("body", "of the request cannot be read: " + e.getMessage());
    }

    /** Jackson's messages end with a location blurb that means nothing to a client. */
    private static String withoutSource(String message) {
        return message.replaceAll("\\s*\\(?(start marker at )?\\[Source:.*", "").trim();
    }

    private static String path(List<JsonMappingException.Reference> refs) {
        return refs.stream()
                .map(r -> r.getFieldName() != null ? "." + r.getFieldName() : "[" + r.getIndex() + "]")
                .collect(Collectors.joining())
                .replaceFirst("^\\.", "");
    }

    private static String typeName(Class<?> type) {
        if (type == Long.class || type == long.class || type == Integer.class || type == int.class) {
            return "an integer";
        }
        if (type == String.class) {
            return "a string";
        }
        if (List.class.isAssignableFrom(type)) {
            return "an array";
        }
        return "an object";
    }
}
