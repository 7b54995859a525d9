package io.delayqueue.queue.engine;

import org.HdrHistogram.ConcurrentHistogram;

/**
 * How late jobs are handed over: the time between a job's due time and the move that hands it over
 * (ready list or dispatch), in milliseconds, as an HdrHistogram.
 */
public final class LatenessRecorder {
    private static final long HIGHEST_MS = 24L * 3600 * 1000;

    private final ConcurrentHistogram histogram = new ConcurrentHistogram(HIGHEST_MS, 3);

    public void record(long latenessMs) {
        histogram.recordValue(Math.min(Math.max(latenessMs, 0), HIGHEST_MS));
    }

    public Snapshot snapshot() {
        var copy = histogram.copy();
        return new Snapshot(
                copy.getTotalCount(), copy.getValueAtPercentile(50), copy.getValueAtPercentile(99), copy.getMaxValue());
    }

    /** Lateness figures in milliseconds. */
    public record Snapshot(long count, long p50, long p99, long max) {}
}
