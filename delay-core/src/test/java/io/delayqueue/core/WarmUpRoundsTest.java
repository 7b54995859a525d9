package io.delayqueue.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * When a warm-up round counts towards the end of the warm-up, and the bodies its jobs carry (the rounds themselves:
 * {@code WarmUpTest}).
 */
class WarmUpRoundsTest {
    @Test
    void a_round_no_faster_than_the_best_with_the_compiler_quiet_counts() {
        assertThat(WarmUp.settledRound(5_000, 5_000, 0, 1_000)).isTrue();
        assertThat(WarmUp.settledRound(5_400, 5_000, 50, 1_000)).isTrue();
    }

    @Test
    void a_round_over_ten_percent_faster_than_the_best_does_not() {
        assertThat(WarmUp.settledRound(5_600, 5_000, 0, 1_000)).isFalse();
    }

    @Test
    void a_round_in_which_the_compiler_was_busy_does_not_however_flat_its_rate() {
        // a flat rate while the compiler still works: what is queued when the calls stop is dropped, not compiled
        assertThat(WarmUp.settledRound(5_000, 5_000, 51, 1_000)).isFalse();
        assertThat(WarmUp.settledRound(4_000, 5_000, 1_300, 1_000)).isFalse();
    }

    @Test
    void the_rounds_bodies_are_short_and_longer_and_need_escaping_and_stay_within_the_body_limit() {
        var all = WarmUp.bodies(64 * 1024);
        assertThat(all).hasSize(4);
        assertThat(all).anySatisfy(b -> assertThat(b).hasSizeLessThan(50));
        assertThat(all).anySatisfy(b -> assertThat(b.getBytes(StandardCharsets.UTF_8).length)
                .isGreaterThan(250));
        assertThat(all).anySatisfy(b -> assertThat(b).contains("\"").matches(".*[^\\x00-\\x7f].*"));

        assertThat(WarmUp.bodies(120)).isNotEmpty().allSatisfy(b -> assertThat(
                        b.getBytes(StandardCharsets.UTF_8).length)
                .isLessThanOrEqualTo(120));
        assertThat(WarmUp.bodies(5)).containsExactly("xxxxx");
    }
}
