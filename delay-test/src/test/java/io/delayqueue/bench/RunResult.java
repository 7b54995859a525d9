package io.delayqueue.bench;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one run measured: the figures the table shows ({@code values}, e.g. {@code jobsPerSecond}) and details
 * that only the JSON keeps (jobs, seconds, the lead of a burst, ...).
 */
record RunResult(Map<String, Double> values, Map<String, Object> details) {

    static RunResult of(String figure, double value) {
        return new RunResult(new LinkedHashMap<>(Map.of(figure, value)), new LinkedHashMap<>());
    }

    RunResult and(String figure, double value) {
        values.put(figure, value);
        return this;
    }

    RunResult with(String detail, Object value) {
        details.put(detail, value);
        return this;
    }

    double value(String figure) {
        Double v = values.get(figure);
        if (v == null) {
            throw new IllegalArgumentException("this run measured no " + figure + ": " + values.keySet());
        }
        return v;
    }

    Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>(values);
        m.putAll(details);
        return m;
    }
}
