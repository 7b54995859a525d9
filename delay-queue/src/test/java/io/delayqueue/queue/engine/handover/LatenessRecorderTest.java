package io.delayqueue.queue.engine.handover;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class LatenessRecorderTest {
    private final LatenessRecorder recorder = new LatenessRecorder(Duration.ofSeconds(60));

    @Test
    void figures_cover_the_last_window_only() {
        long t0 = 1_000_000_000L;
        recorder.record(t0, 500); // a slow start
        for (int i = 0; i < 100; i++) {
            recorder.record(t0 + 30_000, 2);
        }
        LatenessRecorder.Snapshot both = recorder.snapshot(t0 + 30_000);
        assertThat(both.count()).isEqualTo(101);
        assertThat(both.max()).isEqualTo(500);
        assertThat(both.windowMs()).isEqualTo(60_000);

        LatenessRecorder.Snapshot later = recorder.snapshot(t0 + 65_000);
        assertThat(later.count()).as("the slow start left the window").isEqualTo(100);
        assertThat(later.max()).isEqualTo(2);
        assertThat(later.p99()).isEqualTo(2);

        assertThat(recorder.snapshot(t0 + 200_000).count())
                .as("nothing handed over for a window")
                .isZero();
    }

    @Test
    void a_slot_is_reused_on_its_next_turn_without_what_it_held_before() {
        long t0 = 0;
        recorder.record(t0, 7);
        recorder.record(t0 + 60_000, 3); // the same slot, one turn later
        LatenessRecorder.Snapshot s = recorder.snapshot(t0 + 60_000);
        assertThat(s.count()).isEqualTo(1);
        assertThat(s.max()).isEqualTo(3);
    }

    @Test
    void a_record_older_than_the_window_is_dropped() {
        recorder.record(120_000, 4);
        recorder.record(60_000, 900); // its slot already holds a later turn
        LatenessRecorder.Snapshot s = recorder.snapshot(120_000);
        assertThat(s.count()).isEqualTo(1);
        assertThat(s.max()).isEqualTo(4);
    }

    @Test
    void negative_lateness_counts_as_on_time() {
        recorder.record(10, -5);
        assertThat(recorder.snapshot(10).max()).isZero();
    }

    @Test
    void a_job_due_before_the_start_or_a_restore_counts_as_restored_not_as_late() {
        recorder.restoredBefore(100_000); // the start
        assertThat(recorder.handedOver(100_500, 40_000))
                .as("due before the start")
                .isTrue();
        assertThat(recorder.handedOver(100_500, 100_200))
                .as("due after the start")
                .isFalse();
        recorder.restoredBefore(50_000); // an earlier time moves nothing back
        recorder.restoredBefore(110_000); // a restore
        assertThat(recorder.handedOver(110_100, 105_000))
                .as("due before the restore")
                .isTrue();

        LatenessRecorder.Snapshot s = recorder.snapshot(110_100);
        assertThat(recorder.restored()).isEqualTo(2);
        assertThat(s.count())
                .as("only the job due while running is in the lateness")
                .isEqualTo(1);
        assertThat(s.max()).isEqualTo(300);
    }
}
