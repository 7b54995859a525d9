package io.delayqueue.queue.dispatch.http;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which secrets sign the HTTP callbacks of each topic ({@code delay.http.signing.*}): a topic's own list when it has
 * one, else the list for every topic; no secret, no signature (the callback goes out as before signing existed).
 * Several secrets at once, for rotation: each signs, and a receiver that knows any one of them accepts the
 * callback.
 *
 * <p>Immutable. Its {@code toString()} shows no key ({@link CallbackSecret#toString()}).
 *
 * @param secrets the secrets of every topic without its own list; empty: those topics are not signed
 * @param topics each listed topic's own secrets, in place of {@code secrets}
 */
public record CallbackSigning(List<CallbackSecret> secrets, Map<String, List<CallbackSecret>> topics) {
    public static final String SECRETS = "delay.http.signing.secrets";
    public static final String TOPICS = "delay.http.signing.topics";

    /** Nothing signed. */
    public static final CallbackSigning NONE = new CallbackSigning(List.of(), Map.of());

    public CallbackSigning {
        secrets = List.copyOf(secrets);
        Map<String, List<CallbackSecret>> copy = new LinkedHashMap<>();
        topics.forEach((topic, list) -> {
            if (list.isEmpty()) {
                throw new IllegalArgumentException(TOPICS + "." + topic + " names no secret: give the topic at least"
                        + " one, or leave it out to sign it with " + SECRETS);
            }
            copy.put(topic, List.copyOf(list));
        });
        topics = Collections.unmodifiableMap(copy);
    }

    /**
     * Reads the secrets as the properties give them.
     *
     * @throws IllegalArgumentException naming the first property whose value is not a {@code whsec_} secret (never
     *     showing the value), or a topic with an empty list
     */
    public static CallbackSigning parse(List<String> secrets, Map<String, List<String>> topics) {
        List<CallbackSecret> all = parseAll(secrets, SECRETS);
        Map<String, List<CallbackSecret>> own = new LinkedHashMap<>();
        topics.forEach((topic, list) -> own.put(topic, parseAll(list, TOPICS + "." + topic)));
        return new CallbackSigning(all, own);
    }

    private static List<CallbackSecret> parseAll(List<String> values, String property) {
        List<CallbackSecret> parsed = new ArrayList<>();
        if (values != null) {
            for (int i = 0; i < values.size(); i++) {
                parsed.add(CallbackSecret.parse(values.get(i), property + "[" + i + "]"));
            }
        }
        return parsed;
    }

    /** The secrets that sign the callbacks of {@code topic}; empty when they are not signed. */
    public List<CallbackSecret> secretsOf(String topic) {
        return topics.getOrDefault(topic, secrets);
    }

    /** Whether any callback is signed. */
    public boolean any() {
        return !secrets.isEmpty() || !topics.isEmpty();
    }
}
