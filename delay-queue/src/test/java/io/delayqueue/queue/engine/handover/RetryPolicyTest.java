package io.delayqueue.queue.engine.handover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {

    @Test
    void nth_failure_waits_the_nth_step_and_the_last_step_repeats() {
        RetryPolicy policy =
                new RetryPolicy(List.of(Duration.ofSeconds(15), Duration.ofMinutes(3), Duration.ofMinutes(10)));

        assertThat(policy.backoffMillis(1)).isEqualTo(15_000);
        assertThat(policy.backoffMillis(2)).isEqualTo(180_000);
        assertThat(policy.backoffMillis(3)).isEqualTo(600_000);
        assertThat(policy.backoffMillis(4)).isEqualTo(600_000);
        assertThat(policy.backoffMillis(1_000)).isEqualTo(600_000);
        assertThat(policy.backoffMillis(0)).as("clamped to the first step").isEqualTo(15_000);
    }

    @Test
    void default_ladder_is_the_documented_one() {
        RetryPolicy policy = new RetryPolicy(RetrySettings.DEFAULT_BACKOFF);

        long[] expectedSeconds = {15, 180, 600, 1800, 1800, 3600, 7200, 21600, 54000};
        for (int i = 0; i < expectedSeconds.length; i++) {
            assertThat(policy.backoffMillis(i + 1)).as("step %d", i + 1).isEqualTo(expectedSeconds[i] * 1000);
        }
    }

    @Test
    void empty_ladder_is_rejected() {
        assertThatThrownBy(() -> new RetryPolicy(List.of())).isInstanceOf(IllegalArgumentException.class);
    }
}
