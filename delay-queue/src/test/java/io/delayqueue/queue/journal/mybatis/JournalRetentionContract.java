package io.delayqueue.queue.journal.mybatis;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.journal.JobEvent;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.journal.JournalSettings;
import io.delayqueue.queue.journal.PurgedRows;
import io.delayqueue.queue.journal.Transition;
import io.delayqueue.queue.testing.JournalDatabase;
import io.delayqueue.queue.testing.ManualClock;
import io.delayqueue.queue.testing.TestIds;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Journal retention's batches ({@link MyBatisJournal#purgeFinished}) on a real database of each kind the
 * service supports (subclasses), each test in a database of its own: exactly the final rows past the cutoff go,
 * with their log rows and no others, a batch at a time, while pushes go on. Times come from a manual clock.
 */
abstract class JournalRetentionContract {
    /** Shards of the rows the journal writes (their shard column). */
    private static final int SHARDS = 16;

    private static final long T0 = 1_700_000_000_000L;
    /** Rows at or after it are kept. */
    private static final long CUTOFF = T0 + Duration.ofDays(7).toMillis();

    private JournalDatabase db;
    private ManualClock clock;
    private MyBatisJournal journal;

    abstract JournalDatabase openDatabase();

    @BeforeEach
    void setUp() {
        db = openDatabase();
        clock = new ManualClock(T0);
        journal = db.journal(SHARDS, clock);
    }

    @AfterEach
    void tearDown() {
        try {
            journal.close();
        } finally {
            db.close();
        }
    }

    private static Job job(String id) {
        return new Job(
                id,
                "orders",
                null,
                "biz-" + id,
                "body of " + id,
                T0 + 60_000,
                30_000,
                3,
                null,
                5,
                T0,
                JobStatus.DELAY,
                0);
    }

    /** Creates {@code n} jobs and, at {@code at} on the journal's clock, takes each through {@code path}. */
    private List<String> jobsAt(long at, int n, JobStatus... path) {
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            jobs.add(job(TestIds.next()));
        }
        clock.set(at);
        journal.recordCreated(jobs);
        JobStatus from = JobStatus.DELAY;
        for (JobStatus to : path) {
            List<Transition> steps = new ArrayList<>();
            for (Job j : jobs) {
                steps.add(Transition.of(j.id(), JobEvent.valueOf(to.name()), from, to, at, null));
            }
            journal.recordTransitionsDurably(steps);
            from = to;
        }
        return jobs.stream().map(Job::id).toList();
    }

    /** Batches until one comes back short, as a pass of the engine does; returns each batch's rows. */
    private List<PurgedRows> purgeAll(int batchSize) {
        List<PurgedRows> batches = new ArrayList<>();
        PurgedRows batch;
        do {
            batch = journal.purgeFinished(CUTOFF, batchSize);
            batches.add(batch);
        } while (batch.selected() == batchSize);
        return batches;
    }

    /** Job id -> its log rows, for every job row in the journal. */
    private Map<String, Long> logRowsByJob() {
        Map<String, Long> byJob = new TreeMap<>();
        try (Connection c = db.connection();
                PreparedStatement s = c.prepareStatement("SELECT j.id, (SELECT COUNT(*) FROM delay_queue_job_log l"
                        + " WHERE l.job_id = j.id) FROM delay_queue_job j");
                ResultSet rs = s.executeQuery()) {
            while (rs.next()) {
                byJob.put(rs.getString(1), rs.getLong(2));
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return byJob;
    }

    private long logRows() {
        return db.queryLong("SELECT COUNT(*) FROM delay_queue_job_log");
    }

    @Test
    void retention_deletes_the_final_jobs_updated_before_the_cutoff_with_their_log_rows_and_nothing_else() {
        long old = CUTOFF - 1;
        List<String> oldFinished = jobsAt(old, 7, JobStatus.READY, JobStatus.RESERVED, JobStatus.FINISHED);
        List<String> oldDeleted = jobsAt(old, 5, JobStatus.DELETED);
        List<String> kept = new ArrayList<>();
        kept.addAll(jobsAt(CUTOFF, 4, JobStatus.FINISHED)); // final, but not older than the retention
        kept.addAll(jobsAt(CUTOFF + 1, 3, JobStatus.DELETED));
        kept.addAll(jobsAt(T0, 3, JobStatus.DEAD)); // dead letters wait for an operator, however old
        kept.addAll(jobsAt(T0, 3)); // DELAY
        kept.addAll(jobsAt(T0, 3, JobStatus.READY));
        kept.addAll(jobsAt(T0, 3, JobStatus.READY, JobStatus.RESERVED));
        Map<String, Long> keptHistory = new TreeMap<>(logRowsByJob());
        oldFinished.forEach(keptHistory::remove);
        oldDeleted.forEach(keptHistory::remove);
        long logRowsBefore = logRows();

        List<PurgedRows> batches = purgeAll(500);

        assertThat(batches).containsExactly(new PurgedRows(12, 12, 7 * 4 + 5 * 2));
        assertThat(logRowsByJob())
                .as("every job left, with all of its log rows")
                .isEqualTo(keptHistory);
        assertThat(keptHistory.keySet()).containsExactlyInAnyOrderElementsOf(kept);
        assertThat(logRows()).isEqualTo(logRowsBefore - 38);
        assertThat(journal.find(oldFinished.get(0))).isEmpty();
        assertThat(journal.history(oldDeleted.get(0))).isEmpty();
        assertThat(journal.purgeFinished(CUTOFF, 500)).as("a second pass").isEqualTo(PurgedRows.NONE);
    }

    @Test
    void retention_deletes_at_most_a_batch_of_jobs_per_transaction() {
        jobsAt(T0, 95, JobStatus.FINISHED);

        List<PurgedRows> batches = purgeAll(10);

        assertThat(batches).hasSize(10);
        assertThat(batches.subList(0, 9)).allSatisfy(b -> assertThat(b).isEqualTo(new PurgedRows(10, 10, 20)));
        assertThat(batches.get(9)).isEqualTo(new PurgedRows(5, 5, 10));
        assertThat(db.queryLong("SELECT COUNT(*) FROM delay_queue_job")).isZero();
        assertThat(logRows()).isZero();
    }

    @Test
    void pushes_go_on_while_retention_purges_and_none_of_their_rows_is_touched() throws Exception {
        List<String> old = jobsAt(T0, 2_000, JobStatus.FINISHED);
        clock.set(CUTOFF + 60_000);
        int pushers = 4;
        int pushesEach = 150;
        ConcurrentLinkedQueue<String> pushed = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        AtomicBoolean purging = new AtomicBoolean(true);
        CountDownLatch purgeStarted = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < pushers; p++) {
            Thread t = new Thread(
                    () -> {
                        try {
                            purgeStarted.await();
                            for (int i = 0; i < pushesEach; i++) {
                                String id = TestIds.next();
                                assertThat(journal.recordCreated(List.of(job(id))))
                                        .isEmpty();
                                if (i % 2 == 0) {
                                    // finished now: final, but within the retention
                                    journal.recordTransitionsDurably(List.of(Transition.of(
                                            id,
                                            JobEvent.FINISHED,
                                            JobStatus.DELAY,
                                            JobStatus.FINISHED,
                                            clock.millis(),
                                            null)));
                                }
                                pushed.add(id);
                            }
                        } catch (Throwable e) {
                            failures.add(e);
                        }
                    },
                    "pusher-" + p);
            threads.add(t);
            t.start();
        }
        List<PurgedRows> batches = new ArrayList<>();
        Thread purger = new Thread(
                () -> {
                    purgeStarted.countDown();
                    try {
                        batches.addAll(purgeAll(20));
                    } catch (Throwable e) {
                        failures.add(e);
                    } finally {
                        purging.set(false);
                    }
                },
                "purger");
        purger.start();
        for (Thread t : threads) {
            t.join(TimeUnit.MINUTES.toMillis(2));
        }
        purger.join(TimeUnit.MINUTES.toMillis(2));

        assertThat(failures).isEmpty();
        assertThat(purging).isFalse();
        assertThat(batches.stream().mapToLong(PurgedRows::jobs).sum()).isEqualTo(old.size());
        assertThat(batches.stream().mapToLong(PurgedRows::logRows).sum()).isEqualTo(old.size() * 2L);
        assertThat(batches).allSatisfy(b -> assertThat(b.jobs()).isLessThanOrEqualTo(20));
        Map<String, Long> left = logRowsByJob();
        assertThat(left.keySet()).containsExactlyInAnyOrderElementsOf(pushed);
        assertThat(pushed).hasSize(pushers * pushesEach);
        int i = 0;
        for (String id : pushed) {
            assertThat(left.get(id)).as("log rows of pushed job %s", id).isIn(1L, 2L);
            i++;
        }
        assertThat(logRows())
                .isEqualTo(left.values().stream().mapToLong(Long::longValue).sum());
        assertThat(i).isEqualTo(pushers * pushesEach);
    }

    /**
     * Two instances purging at once (an owner hand-over that overlaps for a moment): between them every row goes
     * exactly once, with its history, and neither fails.
     */
    @Test
    void two_instances_purging_the_same_rows_at_once_delete_each_exactly_once() throws Exception {
        List<String> old = jobsAt(T0, 1_000, JobStatus.FINISHED);
        MyBatisJournal other = db.journal(
                JournalSettings.DEFAULTS.withWriter(
                        JournalMode.SYNC, Duration.ofMillis(50), 10_000, Duration.ofSeconds(30), 1_000_000, 1),
                SHARDS,
                clock);
        ConcurrentLinkedQueue<PurgedRows> batches = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> purgers = new ArrayList<>();
        try {
            for (MyBatisJournal instance : List.of(journal, other)) {
                Thread t = new Thread(() -> {
                    try {
                        go.await();
                        PurgedRows batch;
                        do {
                            batch = instance.purgeFinished(CUTOFF, 25);
                            batches.add(batch);
                        } while (batch.selected() == 25);
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                });
                purgers.add(t);
                t.start();
            }
            go.countDown();
            for (Thread t : purgers) {
                t.join(TimeUnit.MINUTES.toMillis(1));
            }
        } finally {
            other.close();
        }

        assertThat(failures).isEmpty();
        assertThat(batches.stream().mapToLong(PurgedRows::jobs).sum()).isEqualTo(old.size());
        assertThat(logRows()).isZero();
        assertThat(db.queryLong("SELECT COUNT(*) FROM delay_queue_job")).isZero();
    }

    /**
     * Another writer touches old final rows (moving their update time past the cutoff) while batches run: a row it
     * changed is never deleted afterwards, and no job is left without its history or history without its job.
     * (The journal itself never changes a FINISHED or DELETED row; this is the guard of the purge's delete.)
     */
    @Test
    void a_job_changed_while_retention_runs_keeps_its_row_and_its_history() throws Exception {
        List<String> old = jobsAt(T0, 1_000, JobStatus.DELETED);
        Set<String> changed = java.util.concurrent.ConcurrentHashMap.newKeySet();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        CountDownLatch go = new CountDownLatch(1);
        Thread toucher = new Thread(
                () -> {
                    try (Connection c = db.connection();
                            PreparedStatement touch = c.prepareStatement(
                                    "UPDATE delay_queue_job SET update_time = ?, version = version + 1 WHERE id = ?")) {
                        go.await();
                        // from the end, where the purge arrives last
                        for (int i = old.size() - 1; i >= 0; i -= 3) {
                            touch.setLong(1, CUTOFF + 1);
                            touch.setString(2, old.get(i));
                            if (touch.executeUpdate() == 1) {
                                changed.add(old.get(i));
                            }
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                },
                "toucher");
        toucher.start();
        go.countDown();
        long purgedJobs = 0;
        List<PurgedRows> batches = new ArrayList<>();
        PurgedRows batch;
        do {
            batch = journal.purgeFinished(CUTOFF, 10);
            batches.add(batch);
            purgedJobs += batch.jobs();
        } while (batch.selected() == 10);
        toucher.join(TimeUnit.MINUTES.toMillis(1));
        assertThat(failures).isEmpty();
        // whatever the touching left past the cutoff, a pass now finds nothing it must keep
        do {
            batch = journal.purgeFinished(CUTOFF, 10);
            batches.add(batch);
            purgedJobs += batch.jobs();
        } while (batch.selected() == 10);

        Map<String, Long> left = logRowsByJob();
        assertThat(left.keySet()).containsExactlyInAnyOrderElementsOf(changed);
        assertThat(left.values()).as("each job left keeps its two log rows").allMatch(n -> n == 2L);
        assertThat(purgedJobs).isEqualTo(old.size() - changed.size());
        assertThat(logRows()).isEqualTo(changed.size() * 2L);
        Set<String> logged = new HashSet<>();
        try (Connection c = db.connection();
                PreparedStatement s = c.prepareStatement("SELECT DISTINCT job_id FROM delay_queue_job_log");
                ResultSet rs = s.executeQuery()) {
            while (rs.next()) {
                logged.add(rs.getString(1));
            }
        }
        assertThat(logged).as("no history without its job").isEqualTo(changed);
    }
}
