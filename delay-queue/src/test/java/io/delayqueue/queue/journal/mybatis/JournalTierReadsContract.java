package io.delayqueue.queue.journal.mybatis;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.journal.JobCursor;
import io.delayqueue.queue.journal.JobEvent;
import io.delayqueue.queue.journal.Transition;
import io.delayqueue.queue.testing.JournalDatabase;
import io.delayqueue.queue.testing.ManualClock;
import io.delayqueue.queue.testing.TestIds;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The tier loader's and the reconciler's reads, on every database the journal supports (subclasses): one shard's
 * DELAY rows in {@code (due_at, id)} keyset pages up to a due time, the count of DELAY jobs due later, and the
 * shard backfill of rows written before the journal recorded shards.
 */
abstract class JournalTierReadsContract {
    private static final long T0 = 1_700_000_000_000L;
    private static final int SHARDS = 4;

    private JournalDatabase db;
    private MyBatisJournal journal;

    abstract JournalDatabase openDatabase();

    @BeforeEach
    void setUp() {
        db = openDatabase();
        journal = db.journal(SHARDS, new ManualClock(T0));
    }

    @AfterEach
    void tearDown() {
        try {
            journal.close();
        } finally {
            db.close();
        }
    }

    @Test
    void a_shards_delayed_rows_are_read_in_due_order_in_keyset_pages_up_to_the_due_time() {
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            // two rows share each due time: the id orders them
            jobs.add(job(TestIds.inShard(1, SHARDS), T0 + 1000 * (i / 2)));
        }
        Job otherShard = job(TestIds.inShard(2, SHARDS), T0);
        Job later = job(TestIds.inShard(1, SHARDS), T0 + 60_000);
        Job finished = job(TestIds.inShard(1, SHARDS), T0);
        List<Job> all = new ArrayList<>(jobs);
        all.addAll(List.of(otherShard, later, finished));
        journal.recordCreated(all);
        journal.recordTransitionsDurably(List.of(
                Transition.of(finished.id(), JobEvent.FINISHED, JobStatus.DELAY, JobStatus.FINISHED, T0, null)));

        List<String> read = new ArrayList<>();
        JobCursor cursor = JobCursor.START;
        List<JobCursor> page;
        do {
            page = journal.delayedKeysOfShard(1, cursor, T0 + 3000, 3);
            for (JobCursor key : page) {
                read.add(key.id());
                Job job = jobs.stream()
                        .filter(j -> j.id().equals(key.id()))
                        .findFirst()
                        .orElseThrow();
                assertThat(key.dueAt()).as("due time of %s", key.id()).isEqualTo(job.executeAt());
            }
            if (!page.isEmpty()) {
                cursor = page.get(page.size() - 1);
            }
        } while (page.size() == 3);

        assertThat(read)
                .containsExactlyElementsOf(jobs.stream()
                        .sorted((a, b) -> a.executeAt() != b.executeAt()
                                ? Long.compare(a.executeAt(), b.executeAt())
                                : a.id().compareTo(b.id()))
                        .map(Job::id)
                        .toList());
        assertThat(journal.countDelayedDueAfter(T0 + 3000))
                .as("DELAY jobs due after")
                .isEqualTo(1);
    }

    @Test
    void rows_without_a_shard_get_theirs_and_are_then_read_by_the_tier_loader() throws Exception {
        String id = TestIds.inShard(3, SHARDS);
        try (Connection c = db.connection();
                Statement s = c.createStatement()) {
            s.execute("INSERT INTO delay_queue_job (id, topic, body, ttr, max_attempts, priority, status, attempts,"
                    + " due_at, create_time, update_time, version) VALUES ('" + id
                    + "', 'orders', 'old', 30000, 10, 0, 'DELAY', 0, " + (T0 + 5000) + ", " + T0 + ", " + T0 + ", 0)");
        }

        assertThat(journal.delayedKeysOfShard(3, JobCursor.START, T0 + 5000, 10))
                .isEmpty();
        assertThat(journal.assignMissingShards(1000)).isEqualTo(1);
        assertThat(journal.assignMissingShards(1000)).isZero();
        assertThat(journal.delayedKeysOfShard(3, JobCursor.START, T0 + 5000, 10))
                .extracting(JobCursor::id)
                .containsExactly(id);
    }

    private static Job job(String id, long dueAt) {
        return new Job(id, "orders", null, null, "body of " + id, dueAt, 30_000, 3, null, 0, T0, JobStatus.DELAY, 0);
    }
}
