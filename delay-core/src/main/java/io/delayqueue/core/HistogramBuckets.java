package io.delayqueue.core;

import java.time.Duration;
import java.util.Arrays;

/**
 * The buckets of {@link DelayQueueMetrics}' histograms: fixed and few (Micrometer's percentile histogram has ~70 per
 * series), so that a scrape stays small with every topic labelled; past the last one a value lands in {@code +Inf},
 * its {@code _max} still exact. Spring's request timer has its 14 in {@code application.properties}.
 */
final class HistogramBuckets {
    static final Duration[] LATENCY_BUCKETS =
            millis(1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 30_000);

    static final Duration[] LATENESS_BUCKETS =
            millis(1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 30_000, 60_000, 300_000, 600_000);
    static final Duration[] SCRIPT_BUCKETS = new Duration[] {
        Duration.ofNanos(100_000),
        Duration.ofNanos(250_000),
        Duration.ofNanos(500_000),
        Duration.ofMillis(1),
        Duration.ofMillis(2),
        Duration.ofMillis(5),
        Duration.ofMillis(10),
        Duration.ofMillis(100),
        Duration.ofSeconds(1)
    };

    static final double[] ROWS_BUCKETS = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 100_000};

    private static Duration[] millis(long... values) {
        return Arrays.stream(values).mapToObj(Duration::ofMillis).toArray(Duration[]::new);
    }

    private HistogramBuckets() {}
}
