package io.delayqueue.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ConsoleMetricsTest {

    private static double[] sample(double value) {
        double[] values = new double[ConsoleMetrics.SERIES.size()];
        Arrays.fill(values, value);
        return values;
    }

    @Test
    void keeps_the_last_samples_oldest_first_once_the_ring_is_full() {
        ConsoleMetrics ring = new ConsoleMetrics(1000, 3);
        for (int i = 1; i <= 5; i++) {
            ring.add(i * 1000L, sample(i));
        }
        ConsoleMetrics.Snapshot snapshot = ring.snapshot();
        assertThat(snapshot.times()).containsExactly(3000L, 4000L, 5000L);
        assertThat(snapshot.series().get("pushesPerSecond")).containsExactly(3.0, 4.0, 5.0);
        assertThat(snapshot.series()).containsOnlyKeys(ConsoleMetrics.SERIES);
        assertThat(snapshot.capacity()).isEqualTo(3);
    }

    @Test
    void a_value_not_read_is_null() {
        ConsoleMetrics ring = new ConsoleMetrics(1000, 10);
        ring.add(1000, sample(Double.NaN));
        ring.add(2000, sample(7));
        assertThat(ring.snapshot().series().get("journalPending")).containsExactly(null, 7.0);
    }

    @Test
    void a_sample_of_the_wrong_width_is_refused() {
        ConsoleMetrics ring = new ConsoleMetrics(1000, 10);
        assertThatThrownBy(() -> ring.add(1000, new double[2])).isInstanceOf(IllegalArgumentException.class);
    }
}
