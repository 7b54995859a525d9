package io.delayqueue.common;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.deser.std.StringDeserializer;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.type.LogicalType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;

/**
 * JSON for jobs and push requests (Jackson). Requests are read strictly: unknown fields, strings for
 * numbers, numbers for strings and fractions for integers are rejected with an {@link
 * DelayQueueException.InvalidField} that names the field, instead of being silently coerced. A request is
 * stored exactly or refused: bytes that are not well-formed UTF-8 ({@link StrictUtf8}), a string holding a
 * lone surrogate ({@code "\uD800"}, which no UTF-8 column or Redis client could store as given) and a key
 * given twice in one object (Jackson would keep the last) are refused too.
 */
public final class JsonCodec {
    private static final ObjectMapper STRICT = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .addModule(new SimpleModule("well-formed-strings").addDeserializer(String.class, new WellFormedStrings()))
            .build();
    /** The start of the message of Jackson's {@code STRICT_DUPLICATE_DETECTION} error (a plain parse error). */
    private static final String DUPLICATE_FIELD = "Duplicate field '";

    private static final ObjectMapper WRITER = JsonMapper.builder().build();
    private static final TypeReference<List<PushRequest>> REQUEST_LIST = new TypeReference<>() {};
    /** Resolved once: the type look-up was 1.6% of a push's CPU at 128 connections (JFR). */
    private static final JavaType PUSH_REQUEST = STRICT.getTypeFactory().constructType(PushRequest.class);

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
        return readStrict(json, PUSH_REQUEST, "");
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
        return readStrict(json, STRICT.getTypeFactory().constructType(REQUEST_LIST), "");
    }

    /** Parses a JSON array of {@code element}s strictly (said to be {@code what}); a bad one fails naming {@code [index].field}. */
    public static <T> List<T> readList(byte[] json, Class<T> element, String what) {
        requireDocument(json, '[', what);
        return readStrict(json, STRICT.getTypeFactory().constructCollectionType(List.class, element), "");
    }

    private static <T> T readStrict(byte[] json, Class<T> type, String pathPrefix) {
        return readStrict(json, STRICT.getTypeFactory().constructType(type), pathPrefix);
    }

    private static <T> T readStrict(byte[] json, JavaType type, String pathPrefix) {
        // Jackson's own UTF-8 reader lets overlong forms and encoded surrogates through: check first, then let
        // it parse the bytes (its fastest path)
        StrictUtf8.requireWellFormed(json, "body", "of the request");
        JsonParser parser;
        try {
            parser = STRICT.createParser(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try (parser) {
            return STRICT.readValue(parser, type);
        } catch (IOException e) {
            DelayQueueException.InvalidField invalid = invalid(e, parser, pathPrefix);
            throw invalid.naming(idOfElement(json, invalid.data() instanceof FieldError f ? f : null));
        }
    }

    /**
     * The {@code id} of the object a refused field belongs to (the document, or the batch element its index names),
     * read again leniently, or null: a client that gave its jobs ids learns which job the 400 is about. Read only on
     * the way to a 400.
     */
    private static String idOfElement(byte[] json, FieldError error) {
        if (error == null || error.field().equals("body")) {
            return null; // the document as a whole
        }
        JsonNode node;
        try {
            node = WRITER.readTree(json);
        } catch (IOException | RuntimeException unreadable) {
            return null;
        }
        if (error.index() != null) {
            node = node.isArray() ? node.get(error.index()) : null;
        }
        JsonNode id = node != null && node.isObject() ? node.get("id") : null;
        return id != null && id.isTextual() ? id.asText() : null;
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

    private static DelayQueueException.InvalidField invalid(IOException e, JsonParser parser, String pathPrefix) {
        DelayQueueException.InvalidField duplicate = duplicateField(e, parser, pathPrefix);
        if (duplicate != null) {
            return duplicate;
        }
        if (e instanceof JsonParseException p) {
            return new DelayQueueException.InvalidField(
                    "body", "of the request is not valid JSON: " + withoutSource(p.getOriginalMessage()));
        }
        if (e instanceof JsonMappingException m) {
            String field = pathPrefix + path(m.getPath());
            if (field.isEmpty()) {
                field = "body";
            }
            if (e instanceof LoneSurrogate) {
                return new DelayQueueException.InvalidField(field, m.getOriginalMessage());
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

    /**
     * The key given twice, named by its path ({@code topic}, {@code [1].topic}), if {@code e} (or its cause,
     * when a collection wrapped it) is Jackson's duplicate-key error; the parser's context is still at that key.
     */
    private static DelayQueueException.InvalidField duplicateField(
            IOException e, JsonParser parser, String pathPrefix) {
        Throwable cause = e;
        while (cause != null
                && !(cause instanceof JsonParseException p
                        && p.getOriginalMessage() != null
                        && p.getOriginalMessage().startsWith(DUPLICATE_FIELD))) {
            cause = cause.getCause();
        }
        if (cause == null) {
            return null;
        }
        List<String> segments = new ArrayList<>();
        for (JsonStreamContext c = parser.getParsingContext(); c != null && !c.inRoot(); c = c.getParent()) {
            segments.add(c.inArray() ? "[" + c.getCurrentIndex() + "]" : "." + c.getCurrentName());
        }
        Collections.reverse(segments);
        String field = (pathPrefix + String.join("", segments)).replaceFirst("^\\.", "");
        return new DelayQueueException.InvalidField(
                field, "is given twice in one object; give each field once (nothing is silently dropped)");
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

    /**
     * Strings as {@link StringDeserializer} reads them (with its coercion rules), refused when they hold a
     * lone surrogate: JSON lets {@code "\uD800"} through, but no UTF-8 store can keep it as given (Java's
     * UTF-8 encoder, under Jedis and the JDBC driver, turns it into {@code ?}).
     */
    private static final class WellFormedStrings extends StdScalarDeserializer<String> {
        WellFormedStrings() {
            super(String.class);
        }

        @Override
        public String deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            String value = StringDeserializer.instance.deserialize(p, ctxt);
            int at = loneSurrogateAt(value);
            if (at >= 0) {
                throw new LoneSurrogate(
                        p,
                        String.format(
                                "holds a lone surrogate \\u%04X at character %d; text must be well-formed Unicode"
                                        + " (a character beyond U+FFFF is escaped as a pair, e.g."
                                        + " \\uD83D\\uDE00)",
                                (int) value.charAt(at), at));
            }
            return value;
        }

        @Override
        public LogicalType logicalType() {
            return LogicalType.Textual;
        }

        @Override
        public Object getEmptyValue(DeserializationContext ctxt) {
            return "";
        }

        private static int loneSurrogateAt(String s) {
            if (s == null) {
                return -1;
            }
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                } else if (Character.isSurrogate(c)) {
                    return i;
                }
            }
            return -1;
        }
    }

    /** A string field holding a lone surrogate; Jackson adds the field's path on the way out. */
    private static final class LoneSurrogate extends JsonMappingException {
        LoneSurrogate(JsonParser p, String message) {
            super(p, message);
        }
    }
}
