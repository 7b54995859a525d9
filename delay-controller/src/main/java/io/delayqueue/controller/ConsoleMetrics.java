package io.delayqueue.controller;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The web console's charts: the last {@link #capacity()} samples of a fixed set of series, in a ring of arrays
 * allocated once (360 samples of ten series: about 30 KB), so that memory stays bounded however long the
 * service runs. Filled by the sampler (delay-core's {@code ConsoleSampler}) every {@link #intervalMs()}; served by
 * {@code GET /console/metrics}. A value the sampler could not read (Redis down, no journal tier) is {@code NaN}
 * here and {@code null} in the JSON: the chart shows a gap.
 *
 * <p>Threading: {@link #add} on the sampler's thread, {@link #snapshot} on request threads; both hold the ring's
 * lock for a copy of at most {@link #capacity()} rows.
 */
public final class ConsoleMetrics {
    /** The series, in the order of a sample's values. */
    public static final List<String> SERIES = List.of(
            "pushesPerSecond",
            "handOversPerSecond",
            "restoredPerSecond",
            "latenessP50Ms",
            "latenessP99Ms",
            "redisPending",
            "journalPending",
            "journalLagMs",
            "deadLetters");

    private final long intervalMs;
    private final long[] times;
    private final double[][] values;
    private int next;
    private int size;

    public ConsoleMetrics(long intervalMs, int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1");
        }
        this.intervalMs = intervalMs;
        this.times = new long[capacity];
        this.values = new double[capacity][SERIES.size()];
    }

    public long intervalMs() {
        return intervalMs;
    }

    public int capacity() {
        return times.length;
    }

    /** One sample taken at {@code atMs}, its values in the order of {@link #SERIES}; the oldest goes when full. */
    public synchronized void add(long atMs, double[] sample) {
        if (sample.length != SERIES.size()) {
            throw new IllegalArgumentException("a sample has " + SERIES.size() + " values, not " + sample.length);
        }
        times[next] = atMs;
        System.arraycopy(sample, 0, values[next], 0, sample.length);
        next = (next + 1) % times.length;
        size = Math.min(size + 1, times.length);
    }

    /**
     * The samples held, oldest first.
     *
     * @param intervalMs how often a sample is taken
     * @param capacity how many are kept
     * @param times when each was taken (epoch ms)
     * @param series per series name, one value per time ({@code null}: not read)
     */
    // named apart from the lateness Snapshot of GET /stats: the description would give both one schema
    @io.swagger.v3.oas.annotations.media.Schema(name = "ConsoleMetrics")
    public record Snapshot(long intervalMs, int capacity, List<Long> times, Map<String, List<Double>> series) {}

    public synchronized Snapshot snapshot() {
        int first = size < times.length ? 0 : next;
        List<Long> at = new ArrayList<>(size);
        Map<String, List<Double>> series = new LinkedHashMap<>();
        SERIES.forEach(name -> series.put(name, new ArrayList<>(size)));
        for (int i = 0; i < size; i++) {
            int row = (first + i) % times.length;
            at.add(times[row]);
            for (int s = 0; s < SERIES.size(); s++) {
                double v = values[row][s];
                series.get(SERIES.get(s)).add(Double.isFinite(v) ? v : null);
            }
        }
        return new Snapshot(intervalMs, times.length, at, series);
    }
}
