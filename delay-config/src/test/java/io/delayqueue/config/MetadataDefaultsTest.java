package io.delayqueue.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.springframework.beans.BeanWrapper;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.util.unit.DataSize;

/**
 * The defaults an IDE shows for {@code delay.*} are the values a fresh {@link DelayProperties} holds. The
 * configuration processor cannot read another class's constants, so most defaults reach the generated {@code
 * META-INF/spring-configuration-metadata.json} from {@code META-INF/additional-spring-configuration-metadata.json};
 * a constant changed without that file fails here.
 */
class MetadataDefaultsTest {

    private static final String PREFIX = "delay.";

    /** The generated metadata's {@code delay.*} properties, by name. */
    private static Map<String, JsonNode> metadata() throws IOException {
        JsonNode root;
        try (InputStream in =
                DelayProperties.class.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in)
                    .as("the configuration processor's output is on the class path")
                    .isNotNull();
            root = new ObjectMapper().readTree(in);
        }
        Map<String, JsonNode> properties = new LinkedHashMap<>();
        for (JsonNode property : root.path("properties")) {
            String name = property.path("name").asText();
            if (name.startsWith(PREFIX)) {
                properties.put(name, property);
            }
        }
        return properties;
    }

    /** {@code delay.journal.max-rows-per-commit} read from a fresh {@link DelayProperties}. */
    private static Object freshValue(BeanWrapper fresh, String name) {
        String path = Arrays.stream(name.substring(PREFIX.length()).split("\\."))
                .map(MetadataDefaultsTest::camelCase)
                .collect(Collectors.joining("."));
        return fresh.getPropertyValue(path);
    }

    private static String camelCase(String kebab) {
        StringBuilder out = new StringBuilder();
        boolean upper = false;
        for (char c : kebab.toCharArray()) {
            if (c == '-') {
                upper = true;
            } else {
                out.append(upper ? Character.toUpperCase(c) : c);
                upper = false;
            }
        }
        return out.toString();
    }

    private static boolean hasNoDefault(Object value) {
        return value == null
                || (value instanceof Collection<?> c && c.isEmpty())
                || (value instanceof Map<?, ?> m && m.isEmpty());
    }

    /** Durations and sizes compared as values ({@code 60s} is {@code 1m}), enums by their property spelling. */
    private static Object normalised(Object value) {
        if (value instanceof Enum<?> e) {
            return e.name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
        if (value instanceof List<?> list) {
            return list.stream().map(MetadataDefaultsTest::normalised).toList();
        }
        return value;
    }

    /** The metadata's default read as the type of {@code like}, the fresh value. */
    private static Object parsed(JsonNode node, Object like) {
        if (like instanceof List<?> list) {
            List<Object> out = new ArrayList<>();
            node.forEach(element -> out.add(parsed(element, list.get(0))));
            return out;
        }
        if (like instanceof Duration) {
            return DurationStyle.detectAndParse(node.asText());
        }
        if (like instanceof DataSize) {
            return DataSize.parse(node.asText());
        }
        if (like instanceof Integer) {
            return node.isInt() ? node.asInt() : node.toString();
        }
        if (like instanceof Boolean) {
            return node.isBoolean() ? node.asBoolean() : node.toString();
        }
        return node.isTextual() ? node.asText() : node.toString();
    }

    @Test
    void every_default_the_ide_shows_is_the_value_a_fresh_properties_object_holds() throws IOException {
        BeanWrapper fresh = new BeanWrapperImpl(new DelayProperties());
        SoftAssertions softly = new SoftAssertions();
        int compared = 0;
        for (Map.Entry<String, JsonNode> property : metadata().entrySet()) {
            String name = property.getKey();
            Object value = freshValue(fresh, name);
            JsonNode shown = property.getValue().get("defaultValue");
            if (hasNoDefault(value)) {
                softly.assertThat(shown)
                        .as("%s has no default, yet the IDE shows one", name)
                        .isNull();
                continue;
            }
            softly.assertThat(shown)
                    .as(
                            "%s defaults to %s, but the IDE shows no default: add it to"
                                    + " META-INF/additional-spring-configuration-metadata.json",
                            name, value)
                    .isNotNull();
            if (shown != null) {
                softly.assertThat(parsed(shown, normalised(value)))
                        .as("%s: the IDE's default (actual) against the field's (expected)", name)
                        .isEqualTo(normalised(value));
                compared++;
            }
        }
        softly.assertAll();
        assertThat(compared).as("defaults compared").isGreaterThan(40);
    }

    /** The settings page: {@code | `delay.a.b` / `c` | `1s` / `2` | what |} rows, from the project root. */
    private static final Path CONFIGURATION_PAGE = Path.of("..", "docs", "configuration.md");

    private static final Pattern CODE = Pattern.compile("`([^`]*)`");

    /**
     * The page's names and defaults, pair by pair: a name cell is comma-separated groups of {@code / }-separated
     * names, each after the first naming a sibling of the previous ({@code `delay.zk.retry.base-sleep` /
     * `max-retries`}); the default cell gives one default per name of a group, in order. A default that is not
     * in backticks ({@code unset}, {@code when Redis is embedded}) is prose and maps to {@code null}.
     */
    private static Map<String, String> documentedDefaults() throws IOException {
        Map<String, String> documented = new LinkedHashMap<>();
        for (String line : Files.readAllLines(CONFIGURATION_PAGE)) {
            String[] cells = line.split("\\s*\\|\\s*");
            if (cells.length < 4 || !cells[1].startsWith("`delay.")) {
                continue;
            }
            String[] defaults = cells[2].isEmpty() ? new String[0] : cells[2].split(" / ");
            for (String group : cells[1].split(", ")) {
                String[] names = group.split(" / ");
                String previous = null;
                for (int i = 0; i < names.length; i++) {
                    Matcher code = CODE.matcher(names[i]);
                    assertThat(code.matches())
                            .as("a name in backticks: %s", line)
                            .isTrue();
                    String name = code.group(1);
                    if (previous != null) {
                        String parent = previous.substring(0, previous.lastIndexOf('.') + 1);
                        name = parent + (name.startsWith(".") ? name.substring(1) : name);
                    }
                    previous = name;
                    String shown = null;
                    if (i < defaults.length) {
                        Matcher value = CODE.matcher(defaults[i].trim());
                        shown = value.matches() ? value.group(1) : null;
                    }
                    documented.put(name, shown);
                }
            }
        }
        return documented;
    }

    /** The page's text read as the type of {@code like}: durations and sizes as values, the rest as spelt. */
    private static Object documentedValue(String shown, Object like) {
        if (like instanceof List<?> list) {
            return Arrays.stream(shown.split(","))
                    .map(String::trim)
                    .map(e -> list.get(0) instanceof String ? e : DurationStyle.detectAndParse(e))
                    .toList();
        }
        if (like instanceof Duration) {
            return DurationStyle.detectAndParse(shown);
        }
        if (like instanceof DataSize) {
            return DataSize.parse(shown);
        }
        return like instanceof String ? shown : String.valueOf(like).equals(shown) ? like : shown;
    }

    @Test
    void the_configuration_page_lists_every_property_with_the_default_it_has() throws IOException {
        Map<String, String> documented = documentedDefaults();
        BeanWrapper fresh = new BeanWrapperImpl(new DelayProperties());
        SoftAssertions softly = new SoftAssertions();
        int compared = 0;
        for (String name : metadata().keySet()) {
            boolean listed = documented.containsKey(name)
                    || documented.keySet().stream().anyMatch(d -> d.startsWith(name + ".<"));
            softly.assertThat(listed)
                    .as("%s is listed in %s", name, CONFIGURATION_PAGE)
                    .isTrue();
            String shown = documented.get(name);
            Object value = documented.containsKey(name) ? freshValue(fresh, name) : null;
            if (shown == null || hasNoDefault(value)) {
                continue;
            }
            Object expected = normalised(value);
            softly.assertThat(documentedValue(shown, expected))
                    .as("%s: the default %s shows (actual) against the field's (expected)", name, CONFIGURATION_PAGE)
                    .isEqualTo(expected);
            compared++;
        }
        softly.assertAll();
        assertThat(compared).as("documented defaults compared").isGreaterThan(40);
    }

    @Test
    void every_property_keeps_its_javadoc_in_the_ide() throws IOException {
        SoftAssertions softly = new SoftAssertions();
        metadata().forEach((name, property) -> {
            // bound through getDefault()/setDefault(): its field (defaultDispatcher) is named otherwise, so the
            // processor finds no Javadoc for it
            if (!name.equals("delay.dispatch.default")) {
                softly.assertThat(property.path("description").asText())
                        .as("description of %s", name)
                        .isNotBlank();
            }
        });
        softly.assertAll();
        assertThat(metadata().get("delay.journal.retention").path("description").asText())
                .contains("finished or deleted job");
    }
}
