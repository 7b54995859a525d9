package io.delayqueue.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One kind of measurement (push, burst, lateness, memory) of one system: the discarded warm-up, the measured
 * runs, and either the medians of their figures, a failure, or why the system does not measure this.
 */
final class Measurement {
    private RunResult warmUp;
    private final List<RunResult> runs = new ArrayList<>();
    private String failure;
    private String notMeasured;
    private final List<String> notes = new ArrayList<>();

    static Measurement notMeasured(String why) {
        Measurement m = new Measurement();
        m.notMeasured = why;
        return m;
    }

    void warmUp(RunResult result) {
        warmUp = result;
    }

    void add(RunResult run) {
        runs.add(run);
    }

    void fail(String reason) {
        failure = reason;
    }

    void note(String note) {
        notes.add(note);
    }

    boolean failed() {
        return failure != null;
    }

    String failure() {
        return failure;
    }

    String whyNotMeasured() {
        return notMeasured;
    }

    List<RunResult> runs() {
        return runs;
    }

    List<String> notes() {
        return notes;
    }

    /** The median of {@code figure} over the measured runs; null when there is none. */
    Double median(String figure) {
        return median(runs.stream()
                .filter(r -> r.values().containsKey(figure))
                .mapToDouble(r -> r.value(figure))
                .toArray());
    }

    /** The median of {@code values}; null when there is none. */
    static Double median(double... values) {
        if (values.length == 0) {
            return null;
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }

    Map<String, Object> toMap(List<String> figures) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (notMeasured != null) {
            m.put("notMeasured", notMeasured);
            return m;
        }
        if (failure != null) {
            m.put("failed", failure);
        }
        Map<String, Object> medians = new LinkedHashMap<>();
        for (String f : figures) {
            Double v = median(f);
            if (v != null) {
                medians.put(f, v);
            }
        }
        if (!medians.isEmpty()) {
            m.put("median", medians);
        }
        if (warmUp != null) {
            m.put("warmUp", warmUp.toMap());
        }
        m.put("runs", runs.stream().map(RunResult::toMap).toList());
        if (!notes.isEmpty()) {
            m.put("notes", notes);
        }
        return m;
    }

    @Override
    public String toString() {
        return failure != null
                ? "failed: " + failure
                : notMeasured != null ? "not measured: " + notMeasured : Arrays.toString(runs.toArray());
    }
}
