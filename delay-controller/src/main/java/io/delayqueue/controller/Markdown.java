package io.delayqueue.controller;

import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.Schema;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The description's texts are CommonMark (OpenAPI says so, and Swagger UI renders them): a placeholder such as
 * {@code <topic>} in {@code delay.dispatch.topics.<topic>=pull} would be taken for an HTML tag and dropped. Each one
 * outside a code span is put in one, so that it shows as written.
 */
final class Markdown {
    /** A placeholder: {@code <} and {@code >} around text without angle brackets or backticks. */
    private static final Pattern PLACEHOLDER = Pattern.compile("<[^<>`]+>");

    private Markdown() {}

    /** {@code text} with each placeholder outside a code span in a code span of its own. */
    static String protect(String text) {
        if (text == null || text.indexOf('<') < 0) {
            return text;
        }
        String[] parts = text.split("`", -1);
        for (int i = 0; i < parts.length; i += 2) { // even parts are outside code spans
            parts[i] = PLACEHOLDER.matcher(parts[i]).replaceAll(m -> Matcher.quoteReplacement("`" + m.group() + "`"));
        }
        return String.join("`", parts);
    }

    /** Protects every summary and description of {@code openApi}. */
    @SuppressWarnings("rawtypes")
    static void protectAngleBrackets(OpenAPI openApi) {
        Set<Schema> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        if (openApi.getInfo() != null) {
            openApi.getInfo().setDescription(protect(openApi.getInfo().getDescription()));
        }
        if (openApi.getTags() != null) {
            openApi.getTags().forEach(t -> t.setDescription(protect(t.getDescription())));
        }
        if (openApi.getPaths() != null) {
            openApi.getPaths().values().forEach(path -> path.readOperations().forEach(op -> {
                op.setSummary(protect(op.getSummary()));
                op.setDescription(protect(op.getDescription()));
                if (op.getParameters() != null) {
                    op.getParameters().forEach(p -> {
                        p.setDescription(protect(p.getDescription()));
                        schema(p.getSchema(), seen);
                    });
                }
                if (op.getRequestBody() != null) {
                    op.getRequestBody()
                            .setDescription(protect(op.getRequestBody().getDescription()));
                    content(op.getRequestBody().getContent(), seen);
                }
                if (op.getResponses() != null) {
                    op.getResponses().values().forEach(r -> {
                        r.setDescription(protect(r.getDescription()));
                        content(r.getContent(), seen);
                    });
                }
            }));
        }
        if (openApi.getComponents() != null) {
            if (openApi.getComponents().getSchemas() != null) {
                openApi.getComponents().getSchemas().values().forEach(s -> schema(s, seen));
            }
            if (openApi.getComponents().getSecuritySchemes() != null) {
                openApi.getComponents()
                        .getSecuritySchemes()
                        .values()
                        .forEach(s -> s.setDescription(protect(s.getDescription())));
            }
        }
    }

    private static void content(Content content, Set<Schema> seen) {
        if (content != null) {
            content.values().forEach(media -> schema(media.getSchema(), seen));
        }
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    private static void schema(Schema schema, Set<Schema> seen) {
        if (schema == null || !seen.add(schema)) {
            return;
        }
        schema.setDescription(protect(schema.getDescription()));
        if (schema.getProperties() != null) {
            ((Map<String, Schema>) schema.getProperties()).values().forEach(p -> schema(p, seen));
        }
        schema(schema.getItems(), seen);
        if (schema.getAdditionalProperties() instanceof Schema values) {
            schema(values, seen);
        }
        for (List<Schema> parts : new List[] {schema.getOneOf(), schema.getAllOf(), schema.getAnyOf()}) {
            if (parts != null) {
                parts.forEach(p -> schema(p, seen));
            }
        }
    }
}
