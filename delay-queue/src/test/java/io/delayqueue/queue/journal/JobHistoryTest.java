package io.delayqueue.queue.journal;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayqueue.common.JobStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

class JobHistoryTest {
    private static JournalEntry entry(JobEvent event, JobStatus from, JobStatus to, long at) {
        return new JournalEntry(event, from, to, at, "host", "worker", null);
    }

    private static List<JobEvent> events(List<JournalEntry> entries) {
        return entries.stream().map(JournalEntry::event).toList();
    }

    @Test
    void rows_committed_out_of_order_by_side_by_side_writers_read_in_the_order_of_their_times() {
        List<JournalEntry> byRowId = List.of(
                entry(JobEvent.CREATED, null, JobStatus.DELAY, 1_000),
                entry(JobEvent.RESERVED, JobStatus.READY, JobStatus.RESERVED, 2_005),
                entry(JobEvent.READY, JobStatus.DELAY, JobStatus.READY, 2_000),
                entry(JobEvent.FINISHED, JobStatus.RESERVED, JobStatus.FINISHED, 2_010));

        assertThat(events(JobHistory.inOrder(byRowId)))
                .containsExactly(JobEvent.CREATED, JobEvent.READY, JobEvent.RESERVED, JobEvent.FINISHED);
    }

    @Test
    void within_one_millisecond_the_next_entry_starts_from_the_state_the_previous_one_left() {
        // a restore, then the scanner's READY and the pull's RESERVED in the same millisecond, RESERVED's row first
        List<JournalEntry> byRowId = List.of(
                entry(JobEvent.CREATED, null, JobStatus.DELAY, 1_000),
                entry(JobEvent.READY, JobStatus.DELAY, JobStatus.READY, 1_500),
                entry(JobEvent.RESTORED, JobStatus.READY, JobStatus.DELAY, 2_000),
                entry(JobEvent.RESERVED, JobStatus.READY, JobStatus.RESERVED, 2_003),
                entry(JobEvent.READY, JobStatus.DELAY, JobStatus.READY, 2_003),
                entry(JobEvent.FINISHED, JobStatus.RESERVED, JobStatus.FINISHED, 2_009));

        assertThat(events(JobHistory.inOrder(byRowId)))
                .containsExactly(
                        JobEvent.CREATED,
                        JobEvent.READY,
                        JobEvent.RESTORED,
                        JobEvent.READY,
                        JobEvent.RESERVED,
                        JobEvent.FINISHED);
    }

    @Test
    void created_comes_first_even_when_the_clients_create_time_is_ahead_of_the_service() {
        List<JournalEntry> byRowId = List.of(
                entry(JobEvent.CREATED, null, JobStatus.DELAY, 5_000),
                entry(JobEvent.LOADED, JobStatus.DELAY, JobStatus.DELAY, 4_000),
                entry(JobEvent.DELETED, JobStatus.DELAY, JobStatus.DELETED, 4_500));

        assertThat(events(JobHistory.inOrder(byRowId)))
                .containsExactly(JobEvent.CREATED, JobEvent.LOADED, JobEvent.DELETED);
    }

    @Test
    void rows_of_one_millisecond_with_no_chain_to_follow_keep_their_row_order() {
        List<JournalEntry> byRowId = List.of(
                entry(JobEvent.CREATED, null, JobStatus.DELAY, 1_000),
                entry(JobEvent.LOADED, JobStatus.DELAY, JobStatus.DELAY, 1_000),
                entry(JobEvent.DELETED, JobStatus.DELAY, JobStatus.DELETED, 1_000));

        assertThat(events(JobHistory.inOrder(byRowId)))
                .containsExactly(JobEvent.CREATED, JobEvent.LOADED, JobEvent.DELETED);
    }
}
