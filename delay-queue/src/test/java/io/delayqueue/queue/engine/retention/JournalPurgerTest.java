package io.delayqueue.queue.engine.retention;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayqueue.queue.coordination.Coordinator;
import io.delayqueue.queue.journal.EmptyJournal;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.journal.PurgedRows;
import io.delayqueue.queue.testing.ManualClock;
import io.delayqueue.queue.testing.RecordingEngineListener;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A pass of journal retention over a journal that answers what a test scripts, with a manual clock and recorded
 * pauses (the database's side is {@code JournalRetentionContract}, the whole engine {@code
 * JournalRetentionEngineTest}).
 */
class JournalPurgerTest {
    private static final long NOW = 1_700_000_000_000L;
    private static final Duration RETENTION = Duration.ofDays(7);

    private final ManualClock clock = new ManualClock(NOW);
    private final ScriptedJournal journal = new ScriptedJournal();
    private final AtomicBoolean ownsShardZero = new AtomicBoolean(true);
    private final List<Long> pauses = new ArrayList<>();
    /** The purger's nanosecond ticker: a batch takes no time unless the journal moves it. */
    private final java.util.concurrent.atomic.AtomicLong nanos = new java.util.concurrent.atomic.AtomicLong();

    private final RecordingEngineListener listener = new RecordingEngineListener();

    private JournalPurger purger(Duration retention, int batchSize, Duration pause) {
        return new JournalPurger(
                journal, new OwnerOfShardZero(), clock, retention, batchSize, pause, pauses::add, nanos::get, listener);
    }

    @Test
    void a_pass_purges_batch_after_batch_until_one_comes_back_short() {
        journal.answers.addAll(List.of(
                new PurgedRows(10, 10, 30),
                new PurgedRows(10, 10, 31),
                new PurgedRows(4, 4, 12),
                new PurgedRows(99, 99, 99)));

        PurgeReport report = purger(RETENTION, 10, Duration.ofMillis(50)).purgeOnce(() -> true);

        assertThat(report).isEqualTo(new PurgeReport(24, 73, 3));
        assertThat(journal.asked).hasSize(3).allSatisfy(cutoffAndLimit -> {
            assertThat(cutoffAndLimit[0]).isEqualTo(NOW - RETENTION.toMillis());
            assertThat(cutoffAndLimit[1]).isEqualTo(10);
        });
        assertThat(pauses).as("a pause between batches, none after the last").hasSize(2);
        assertThat(pauses).allSatisfy(p -> assertThat(p).isGreaterThanOrEqualTo(50));
        assertThat(listener.events())
                .containsExactly("journalPurged 10 30", "journalPurged 10 31", "journalPurged 4 12");
    }

    @Test
    void rows_that_changed_since_selected_do_not_end_a_pass_but_a_batch_of_nothing_but_them_does() {
        journal.answers.addAll(
                List.of(new PurgedRows(10, 7, 21), new PurgedRows(10, 0, 0), new PurgedRows(10, 10, 30)));

        assertThat(purger(RETENTION, 10, Duration.ZERO).purgeOnce(() -> true)).isEqualTo(new PurgeReport(7, 21, 2));
    }

    @Test
    void a_slow_batch_is_followed_by_a_pause_four_times_as_long() {
        journal.answers.addAll(
                List.of(new PurgedRows(10, 10, 30), new PurgedRows(10, 10, 30), new PurgedRows(1, 1, 3)));
        long[] batchMillis = {5, 30, 30};
        journal.afterEach = () -> nanos.addAndGet(batchMillis[journal.asked.size() - 1] * 1_000_000);

        purger(RETENTION, 10, Duration.ofMillis(50)).purgeOnce(() -> true);

        assertThat(pauses)
                .as("the least pause after a quick batch, four times a slow one's time")
                .containsExactly(50L, 120L);
    }

    @Test
    void no_batch_starts_while_the_journal_writers_lag_behind() {
        journal.lags.addAll(List.of(5_000L, 1_500L, 0L, 0L));
        journal.answers.addAll(List.of(new PurgedRows(10, 10, 30), new PurgedRows(2, 2, 6)));

        PurgeReport report = purger(RETENTION, 10, Duration.ofMillis(50)).purgeOnce(() -> true);

        assertThat(report).isEqualTo(new PurgeReport(12, 36, 2));
        assertThat(pauses)
                .as("two waits for the writers, then the pause between the batches")
                .containsExactly(JournalPurger.YIELD_TO_LAG_MS, JournalPurger.YIELD_TO_LAG_MS, 50L);
    }

    @Test
    void the_cutoff_follows_the_clock() {
        purger(RETENTION, 10, Duration.ZERO).purgeOnce(() -> true);
        clock.advance(Duration.ofHours(1));
        purger(RETENTION, 10, Duration.ZERO).purgeOnce(() -> true);

        assertThat(journal.asked)
                .extracting(a -> a[0])
                .containsExactly(
                        NOW - RETENTION.toMillis(), NOW + Duration.ofHours(1).toMillis() - RETENTION.toMillis());
        assertThat(listener.events()).as("nothing purged, nothing told").isEmpty();
    }

    @Test
    void an_instance_that_does_not_own_shard_zero_purges_nothing_and_stops_when_it_loses_it() {
        ownsShardZero.set(false);
        assertThat(purger(RETENTION, 10, Duration.ZERO).purgeOnce(() -> true)).isEqualTo(PurgeReport.NONE);
        assertThat(journal.asked).isEmpty();

        ownsShardZero.set(true);
        journal.answers.addAll(
                List.of(new PurgedRows(10, 10, 20), new PurgedRows(10, 10, 20), new PurgedRows(10, 10, 20)));
        journal.afterEach = () -> ownsShardZero.set(journal.asked.size() < 2);
        assertThat(purger(RETENTION, 10, Duration.ZERO).purgeOnce(() -> true)).isEqualTo(new PurgeReport(20, 40, 2));
    }

    @Test
    void a_pass_stops_when_the_engine_closes() {
        journal.answers.addAll(List.of(new PurgedRows(10, 10, 20), new PurgedRows(10, 10, 20)));
        AtomicBoolean open = new AtomicBoolean(true);
        journal.afterEach = () -> open.set(false);

        assertThat(purger(RETENTION, 10, Duration.ZERO).purgeOnce(open::get)).isEqualTo(new PurgeReport(10, 20, 1));
    }

    @Test
    void a_retention_of_zero_keeps_everything() {
        JournalPurger keepForever = purger(Duration.ZERO, 10, Duration.ZERO);

        assertThat(keepForever.enabled()).isFalse();
        assertThat(keepForever.purgeOnce(() -> true)).isEqualTo(PurgeReport.NONE);
        assertThat(journal.asked).isEmpty();
    }

    private final class OwnerOfShardZero implements Coordinator {
        @Override
        public void start(OwnershipListener listener) {}

        @Override
        public boolean owns(int shard) {
            return shard == JournalPurger.PURGING_SHARD && ownsShardZero.get();
        }

        @Override
        public String role() {
            return "member";
        }

        @Override
        public void close() {}
    }

    /** Answers each purge batch with the next scripted rows (none once they run out); records what it was asked. */
    private static final class ScriptedJournal extends EmptyJournal {
        final Deque<PurgedRows> answers = new ArrayDeque<>();
        final List<long[]> asked = new ArrayList<>();
        /** The lag told at each look, 0 once they run out. */
        final Deque<Long> lags = new ArrayDeque<>();

        Runnable afterEach = () -> {};

        @Override
        public long lagMillis() {
            return lags.isEmpty() ? 0 : lags.poll();
        }

        @Override
        public PurgedRows purgeFinished(long updatedBefore, int limit) {
            asked.add(new long[] {updatedBefore, limit});
            PurgedRows answer = answers.isEmpty() ? PurgedRows.NONE : answers.poll();
            afterEach.run();
            return answer;
        }

        @Override
        public JournalMode mode() {
            return JournalMode.SYNC;
        }
    }
}
