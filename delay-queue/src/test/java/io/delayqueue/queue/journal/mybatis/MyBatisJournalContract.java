package io.delayqueue.queue.journal.mybatis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.journal.JobCursor;
import io.delayqueue.queue.journal.JobEvent;
import io.delayqueue.queue.journal.JobQuery;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.journal.JournalEntry;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.journal.JournalSettings;
import io.delayqueue.queue.journal.PurgedRows;
import io.delayqueue.queue.journal.Transition;
import io.delayqueue.queue.testing.JournalDatabase;
import io.delayqueue.queue.testing.ManualClock;
import io.delayqueue.queue.testing.TestIds;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLIntegrityConstraintViolationException;
import java.sql.SQLTransactionRollbackException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The journal contract of {@link MyBatisJournal}, run against a real database of each kind the service
 * supports (subclasses): group commit, final states that stay final, history in order, keyset pages,
 * duplicates, and a database that goes away and comes back.
 */
abstract class MyBatisJournalContract {
    private static final long T0 = 1_700_000_000_000L;
    private static final Duration WAIT = Duration.ofSeconds(30);
    /** Writer threads for new jobs, as the service runs by default. */
    private static final int CREATE_WRITERS = 2;

    private static final int SHARDS = 4;

    private JournalDatabase db;
    private MyBatisJournal journal;

    abstract JournalDatabase openDatabase();

    @BeforeEach
    void setUp() {
        db = openDatabase();
        journal = newJournal(JournalMode.SYNC, Duration.ofMinutes(1));
    }

    @AfterEach
    void tearDown() {
        try {
            if (journal != null) {
                journal.close();
            }
        } finally {
            db.close();
        }
    }

    private MyBatisJournal newJournal(JournalMode mode, Duration commitTimeout) {
        return db.journal(
                JournalSettings.DEFAULTS.withWriter(
                        mode, Duration.ofMillis(100), 10_000, commitTimeout, 1_000_000, CREATE_WRITERS),
                SHARDS,
                Clock.systemUTC());
    }

    private static Job job(String id, long dueAt) {
        return new Job(
                id, "orders", "tag", "biz-" + id, "body of " + id, dueAt, 30_000, 3, null, 5, T0, JobStatus.DELAY, 0);
    }

    private static String newId() {
        return TestIds.next();
    }

    private long count(String sql) {
        return db.queryLong(sql);
    }

    private JobStatus statusOf(String id) {
        return journal.find(id).orElseThrow().status();
    }

    @Test
    void concurrent_sync_pushes_share_commits_instead_of_one_commit_each() throws Exception {
        int pushers = 200;
        // Make the first commits slow (their connections wait at the gate) so that the other pushers queue up
        // behind them, as they do behind any real commit: they must share the next commits, not get one each.
        db.gate().hold();
        CyclicBarrier start = new CyclicBarrier(pushers);
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Set<String>> answers = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < pushers; i++) {
            Job job = job(newId(), T0 + 60_000);
            Thread t = new Thread(
                    () -> {
                        try {
                            start.await();
                            answers.add(journal.recordCreated(List.of(job)));
                        } catch (Throwable e) {
                            failures.add(e);
                        }
                    },
                    "pusher-" + i);
            threads.add(t);
            t.start();
        }
        await("every pusher waits for its commit while the first commits are held")
                .atMost(WAIT)
                // (one writer may have drained the queue before the other woke: then only one is held)
                .until(() -> db.gate().waiting() >= 1
                        && threads.stream().allMatch(t -> t.getState() == Thread.State.TIMED_WAITING));
        assertThat(journal.commits()).as("commits while the gate is held").isZero();
        assertThat(answers).as("pushes answered before any commit").isEmpty();

        db.gate().open();
        for (Thread t : threads) {
            t.join(WAIT.toMillis());
        }
        assertThat(failures).isEmpty();
        assertThat(answers).hasSize(pushers).allSatisfy(existing -> assertThat(existing)
                .isEmpty());
        assertThat(count("SELECT COUNT(*) FROM delay_queue_job")).isEqualTo(pushers);
        assertThat(count("SELECT COUNT(*) FROM delay_queue_job_log WHERE event = 'CREATED'"))
                .isEqualTo(pushers);
        System.out.printf("%s: %d concurrent sync pushes, %d commits%n", db.name(), pushers, journal.commits());
        // each writer's held commit, then everything that queued behind them
        assertThat(journal.commits()).as("commits for %d pushes", pushers).isLessThanOrEqualTo(2L * CREATE_WRITERS);
    }

    @Test
    void concurrent_sync_pushes_released_together_commit_far_fewer_times_than_there_are_pushes() throws Exception {
        int pushers = 200;
        CyclicBarrier start = new CyclicBarrier(pushers);
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        CountDownLatch done = new CountDownLatch(pushers);
        for (int i = 0; i < pushers; i++) {
            Job job = job(newId(), T0 + 60_000);
            Thread t = new Thread(() -> {
                try {
                    start.await();
                    journal.recordCreated(List.of(job));
                } catch (Throwable e) {
                    failures.add(e);
                } finally {
                    done.countDown();
                }
            });
            t.start();
        }
        done.await();
        assertThat(failures).isEmpty();
        assertThat(count("SELECT COUNT(*) FROM delay_queue_job")).isEqualTo(pushers);
        System.out.printf("%s: %d sync pushes released together, %d commits%n", db.name(), pushers, journal.commits());
        if (db.isMariaDb()) {
            // a commit that waits for the disk is what pushes share; H2 in memory commits in microseconds, so
            // there the pushes may well come one after the other
            assertThat(journal.commits()).as("commits for %d pushes", pushers).isLessThan(pushers / 2);
        }
    }

    @Test
    void a_finished_or_deleted_job_stays_so_whatever_transition_arrives_after_it() {
        String finished = newId();
        String deleted = newId();
        journal.recordCreated(List.of(job(finished, T0 + 1000), job(deleted, T0 + 1000)));
        journal.recordTransitionsDurably(List.of(
                Transition.of(finished, JobEvent.RESERVED, JobStatus.DELAY, JobStatus.RESERVED, T0 + 1000, null),
                Transition.of(finished, JobEvent.FINISHED, JobStatus.RESERVED, JobStatus.FINISHED, T0 + 1001, null),
                Transition.of(deleted, JobEvent.DELETED, null, JobStatus.DELETED, T0 + 10, null)));
        assertThat(statusOf(finished)).isEqualTo(JobStatus.FINISHED);
        assertThat(statusOf(deleted)).isEqualTo(JobStatus.DELETED);

        // late or reordered transitions (another instance, a lagged batch): status-only and full updates
        for (String id : List.of(finished, deleted)) {
            journal.recordTransitionsDurably(List.of(
                    Transition.of(id, JobEvent.READY, JobStatus.DELAY, JobStatus.READY, T0 + 2000, null),
                    Transition.of(id, JobEvent.TTR_EXPIRED, JobStatus.RESERVED, JobStatus.DELAY, T0 + 2001, null)));
            journal.recordTransitionsDurably(List.of(new Transition(
                    id, JobEvent.RESTORED, JobStatus.DELAY, JobStatus.DELAY, T0 + 2002, 2, T0 + 5000, "restore")));
            journal.recordTransitionsDurably(List.of(
                    Transition.of(id, JobEvent.RESERVED, JobStatus.DELAY, JobStatus.RESERVED, T0 + 2003, null)));
        }

        Job f = journal.find(finished).orElseThrow();
        Job d = journal.find(deleted).orElseThrow();
        assertThat(f.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(f.attempts()).as("attempts of the finished job").isZero();
        assertThat(f.executeAt()).as("due time of the finished job").isEqualTo(T0 + 1000);
        assertThat(d.status()).isEqualTo(JobStatus.DELETED);
        assertThat(d.attempts()).isZero();
        assertThat(d.executeAt()).isEqualTo(T0 + 1000);
        // nothing final is offered to restore
        for (JobStatus s : List.of(JobStatus.DELAY, JobStatus.READY, JobStatus.RESERVED, JobStatus.DEAD)) {
            assertThat(journal.page(s, JobCursor.START, Long.MAX_VALUE, 100)).isEmpty();
        }
    }

    @Test
    void a_final_state_stays_when_a_later_transition_of_the_job_shares_its_commit() {
        String deleted = newId();
        String finished = newId();
        journal.recordCreated(List.of(job(deleted, T0 + 1000), job(finished, T0 + 1000)));
        // one entry, so one commit: a reconciler's RESTORED journaled just after the delete it raced
        journal.recordTransitionsDurably(List.of(
                Transition.of(deleted, JobEvent.DELETED, null, JobStatus.DELETED, T0 + 10, "delete"),
                new Transition(
                        deleted, JobEvent.RESTORED, JobStatus.DELAY, JobStatus.DELAY, T0 + 11, 0, T0 + 1000, "r"),
                Transition.of(finished, JobEvent.FINISHED, JobStatus.RESERVED, JobStatus.FINISHED, T0 + 10, null),
                Transition.of(finished, JobEvent.READY, JobStatus.DELAY, JobStatus.READY, T0 + 11, null)));

        assertThat(statusOf(deleted)).isEqualTo(JobStatus.DELETED);
        assertThat(statusOf(finished)).isEqualTo(JobStatus.FINISHED);
    }

    @Test
    void a_reserve_journaled_before_the_scanners_ready_of_the_same_move_leaves_the_job_reserved() {
        String apart = newId();
        String together = newId();
        String thenReady = newId();
        journal.recordCreated(List.of(job(apart, T0 + 1000), job(together, T0 + 1000), job(thenReady, T0 + 1000)));
        // a consumer reserved the job between the scanner's move and its journaling: its RESERVED commits first
        journal.recordTransitionsDurably(
                List.of(Transition.of(apart, JobEvent.RESERVED, JobStatus.READY, JobStatus.RESERVED, T0 + 1001, null)));
        journal.recordTransitionsDurably(
                List.of(Transition.of(apart, JobEvent.READY, JobStatus.DELAY, JobStatus.READY, T0 + 1000, null)));
        // the same two in one commit
        journal.recordTransitionsDurably(List.of(
                Transition.of(together, JobEvent.RESERVED, JobStatus.READY, JobStatus.RESERVED, T0 + 1001, null),
                Transition.of(together, JobEvent.READY, JobStatus.DELAY, JobStatus.READY, T0 + 1000, null)));
        // a READY after the job went back to DELAY (its reservation expired) still applies
        journal.recordTransitionsDurably(List.of(
                Transition.of(thenReady, JobEvent.RESERVED, JobStatus.READY, JobStatus.RESERVED, T0 + 1001, null),
                Transition.of(
                        thenReady, JobEvent.TTR_EXPIRED, JobStatus.RESERVED, JobStatus.DELAY, T0 + 31_001, null)));
        journal.recordTransitionsDurably(
                List.of(Transition.of(thenReady, JobEvent.READY, JobStatus.DELAY, JobStatus.READY, T0 + 31_002, null)));

        assertThat(statusOf(apart)).isEqualTo(JobStatus.RESERVED);
        assertThat(statusOf(together)).isEqualTo(JobStatus.RESERVED);
        assertThat(statusOf(thenReady)).isEqualTo(JobStatus.READY);
        assertThat(journal.history(apart).stream().map(JournalEntry::event).toList())
                .containsExactly(JobEvent.CREATED, JobEvent.READY, JobEvent.RESERVED);
    }

    @Test
    void attempts_and_due_time_follow_the_transitions_even_when_several_share_one_commit() {
        String id = newId();
        journal.recordCreated(List.of(job(id, T0 + 1000)));
        // two expired reservations in one commit count two attempts
        journal.recordTransitionsDurably(List.of(
                Transition.of(id, JobEvent.RESERVED, JobStatus.DELAY, JobStatus.RESERVED, T0 + 1000, null),
                Transition.of(id, JobEvent.TTR_EXPIRED, JobStatus.RESERVED, JobStatus.DELAY, T0 + 31_000, null),
                Transition.of(id, JobEvent.RESERVED, JobStatus.DELAY, JobStatus.RESERVED, T0 + 31_000, null),
                Transition.of(id, JobEvent.TTR_EXPIRED, JobStatus.RESERVED, JobStatus.DELAY, T0 + 61_000, null)));
        Job afterTwo = journal.find(id).orElseThrow();
        assertThat(afterTwo.status()).isEqualTo(JobStatus.DELAY);
        assertThat(afterTwo.attempts()).isEqualTo(2);
        assertThat(afterTwo.executeAt()).isEqualTo(T0 + 1000);

        // a retry sets attempts and due time explicitly
        journal.recordTransitionsDurably(List.of(new Transition(
                id, JobEvent.RETRIED, JobStatus.RESERVED, JobStatus.DELAY, T0 + 62_000, 3, T0 + 70_000, "boom")));
        Job retried = journal.find(id).orElseThrow();
        assertThat(retried.attempts()).isEqualTo(3);
        assertThat(retried.executeAt()).isEqualTo(T0 + 70_000);
        assertThat(count("SELECT version FROM delay_queue_job WHERE id = '" + id + "'"))
                .as("version counts the updates")
                .isPositive();
    }

    @Test
    void history_lists_every_transition_oldest_first_with_host_worker_and_detail() {
        String id = newId();
        journal.recordCreated(List.of(job(id, T0 + 1000)));
        List<Transition> steps = List.of(
                Transition.of(id, JobEvent.READY, JobStatus.DELAY, JobStatus.READY, T0 + 1000, null),
                Transition.of(id, JobEvent.RESERVED, JobStatus.READY, JobStatus.RESERVED, T0 + 1001, null),
                Transition.of(id, JobEvent.TTR_EXPIRED, JobStatus.RESERVED, JobStatus.DELAY, T0 + 31_001, "ttr"),
                Transition.of(id, JobEvent.READY, JobStatus.DELAY, JobStatus.READY, T0 + 31_001, null),
                Transition.of(id, JobEvent.RESERVED, JobStatus.READY, JobStatus.RESERVED, T0 + 31_002, null),
                Transition.of(id, JobEvent.FINISHED, JobStatus.RESERVED, JobStatus.FINISHED, T0 + 31_003, "ok"));
        // in several commits, lagged and durable, as the engine writes them
        journal.recordTransitions(steps.subList(0, 2));
        journal.recordTransitionsDurably(steps.subList(2, 4));
        journal.recordTransitions(steps.subList(4, 5));
        journal.recordTransitionsDurably(steps.subList(5, 6));

        List<JournalEntry> history = journal.history(id);
        assertThat(history)
                .extracting(JournalEntry::event)
                .containsExactly(
                        JobEvent.CREATED,
                        JobEvent.READY,
                        JobEvent.RESERVED,
                        JobEvent.TTR_EXPIRED,
                        JobEvent.READY,
                        JobEvent.RESERVED,
                        JobEvent.FINISHED);
        assertThat(history.get(0).from()).isNull();
        assertThat(history.get(0).to()).isEqualTo(JobStatus.DELAY);
        assertThat(history.get(0).at()).isEqualTo(T0);
        assertThat(history.get(3).from()).isEqualTo(JobStatus.RESERVED);
        assertThat(history.get(3).to()).isEqualTo(JobStatus.DELAY);
        assertThat(history.get(3).at()).isEqualTo(T0 + 31_001);
        assertThat(history.get(3).detail()).isEqualTo("ttr");
        assertThat(history.get(6).detail()).isEqualTo("ok");
        assertThat(history).allSatisfy(e -> {
            assertThat(e.host()).isNotBlank();
            assertThat(e.worker()).isEqualTo(Thread.currentThread().getName());
        });
        assertThat(journal.history(newId())).as("history of an unknown job").isEmpty();
    }

    @Test
    void a_rehearsals_groups_run_their_statements_and_are_rolled_back_leaving_no_row_behind() {
        String real = newId();
        journal.recordCreated(List.of(job(real, T0 + 1000)));
        long jobRows = count("SELECT COUNT(*) FROM delay_queue_job");
        long logRows = count("SELECT COUNT(*) FROM delay_queue_job_log");
        MyBatisJournal rehearsal = journal.rehearsal();
        try {
            List<Job> jobs = IntStream.range(0, 300)
                    .mapToObj(i -> job(newId(), T0 + 1000 + i))
                    .toList();
            // the sync path answers as a commit would: nothing existed, nothing refused
            assertThat(rehearsal.recordCreated(jobs)).isEmpty();
            List<Transition> transitions = new ArrayList<>();
            for (Job j : jobs) {
                transitions.add(Transition.of(j.id(), JobEvent.READY, JobStatus.DELAY, JobStatus.READY, T0, null));
            }
            // even a transition of a real job (never sent by a rehearsal engine, which sees none) is not kept
            transitions.add(Transition.of(real, JobEvent.FINISHED, JobStatus.RESERVED, JobStatus.FINISHED, T0, null));
            rehearsal.recordTransitionsDurably(transitions);
            rehearsal.recordTransitions(List.of(
                    Transition.of(jobs.get(0).id(), JobEvent.FINISHED, JobStatus.READY, JobStatus.FINISHED, T0, null)));
            assertThat(rehearsal.rowsWritten())
                    .as("the rehearsal wrote its rows")
                    .isGreaterThan(600);
        } finally {
            rehearsal.close(); // flushes the lagged transition: rolled back too
        }
        assertThat(count("SELECT COUNT(*) FROM delay_queue_job")).isEqualTo(jobRows);
        assertThat(count("SELECT COUNT(*) FROM delay_queue_job_log")).isEqualTo(logRows);
        assertThat(statusOf(real)).isEqualTo(JobStatus.DELAY);
        // and the real journal goes on committing
        String after = newId();
        journal.recordCreated(List.of(job(after, T0 + 2000)));
        assertThat(journal.find(after)).isPresent();
    }

    @Test
    void a_rehearsal_reads_nothing_of_the_journal_so_it_can_never_restore_or_replay_a_real_job() {
        String delayed = newId();
        String finished = newId();
        journal.recordCreated(List.of(job(delayed, T0 + 1000), job(finished, T0 + 1000)));
        journal.recordTransitionsDurably(
                List.of(Transition.of(finished, JobEvent.FINISHED, JobStatus.RESERVED, JobStatus.FINISHED, T0, "x")));
        // the real journal sees them (the reads below are not empty for want of rows)
        assertThat(journal.page(JobStatus.DELAY, JobCursor.START, Long.MAX_VALUE, 100))
                .hasSize(1);
        assertThat(journal.countDelayedDueAfter(0)).isEqualTo(1);
        MyBatisJournal rehearsal = journal.rehearsal();
        try {
            assertThat(rehearsal.rollsBack()).isTrue();
            assertThat(rehearsal.find(delayed)).isEmpty();
            assertThat(rehearsal.findAll(List.of(delayed, finished))).isEmpty();
            assertThat(rehearsal.history(finished)).isEmpty();
            assertThat(rehearsal.lastErrors(List.of(finished))).isEmpty();
            assertThat(rehearsal.page(JobStatus.DELAY, JobCursor.START, Long.MAX_VALUE, 100))
                    .isEmpty();
            assertThat(rehearsal.changedSince(JobStatus.FINISHED, 0, JobCursor.START, 100))
                    .isEmpty();
            assertThat(rehearsal.browse(new JobQuery(JobStatus.DELAY, null, JobQuery.Order.SOONEST, null, 100)))
                    .isEmpty();
            assertThat(rehearsal.countByTopic()).isEmpty();
            for (int shard = 0; shard < SHARDS; shard++) {
                assertThat(rehearsal.delayedKeysOfShard(shard, JobCursor.START, Long.MAX_VALUE, 100))
                        .isEmpty();
            }
            assertThat(rehearsal.countDelayedDueAfter(0)).isZero();
            assertThat(rehearsal.assignMissingShards(100)).isZero();
            assertThat(rehearsal.purgeFinished(Long.MAX_VALUE, 100)).isEqualTo(PurgedRows.NONE);
        } finally {
            rehearsal.close();
        }
        assertThat(journal.find(finished)).map(Job::status).contains(JobStatus.FINISHED);
    }

    @Test
    void pages_walk_the_jobs_of_a_status_in_due_order_without_repeats_or_gaps() {
        Random random = new Random(42);
        int jobs = 1234;
        long before = T0 + 500;
        List<Job> all = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            // due times with many ties, so that pages must split runs of equal due times by id
            all.add(job(newId(), T0 + random.nextInt(600)));
        }
        for (int i = 0; i < all.size(); i += 500) {
            journal.recordCreated(all.subList(i, Math.min(all.size(), i + 500)));
        }
        // every seventh job moves on to READY: not in the DELAY walk, in the READY one
        List<Transition> toReady = new ArrayList<>();
        Set<String> ready = new HashSet<>();
        for (int i = 0; i < all.size(); i += 7) {
            Job j = all.get(i);
            toReady.add(Transition.of(j.id(), JobEvent.READY, JobStatus.DELAY, JobStatus.READY, T0, null));
            ready.add(j.id());
        }
        journal.recordTransitionsDurably(toReady);

        Comparator<Job> keyOrder = Comparator.comparingLong(Job::executeAt).thenComparing(Job::id);
        List<String> expectedDelay = all.stream()
                .filter(j -> !ready.contains(j.id()) && j.executeAt() < before)
                .sorted(keyOrder)
                .map(Job::id)
                .toList();
        List<String> expectedReady = all.stream()
                .filter(j -> ready.contains(j.id()))
                .sorted(keyOrder)
                .map(Job::id)
                .toList();

        assertThat(walk(JobStatus.DELAY, before, 50)).containsExactlyElementsOf(expectedDelay);
        assertThat(walk(JobStatus.READY, Long.MAX_VALUE, 13)).containsExactlyElementsOf(expectedReady);
        assertThat(walk(JobStatus.RESERVED, Long.MAX_VALUE, 50)).isEmpty();
        // a page that ends exactly at the end of the jobs
        assertThat(walk(JobStatus.READY, Long.MAX_VALUE, expectedReady.size()))
                .containsExactlyElementsOf(expectedReady);
    }

    private List<String> walk(JobStatus status, long before, int pageSize) {
        List<String> seen = new ArrayList<>();
        JobCursor cursor = JobCursor.START;
        int pages = 0;
        while (true) {
            List<Job> page = journal.page(status, cursor, before, pageSize);
            assertThat(page.size()).isLessThanOrEqualTo(pageSize);
            assertThat(page).allSatisfy(j -> {
                assertThat(j.status()).isEqualTo(status);
                assertThat(j.executeAt()).isLessThan(before);
            });
            if (page.isEmpty()) {
                break;
            }
            page.forEach(j -> seen.add(j.id()));
            Job last = page.get(page.size() - 1);
            cursor = new JobCursor(last.executeAt(), last.id());
            assertThat(++pages).as("pages").isLessThan(10_000);
        }
        return seen;
    }

    @Test
    void find_all_reads_every_job_of_its_ids_whole_over_several_statements_and_leaves_out_unknown_ids() {
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < 1_500; i++) {
            jobs.add(job(newId(), T0 + i));
        }
        Job sparse = new Job(
                newId(), "mail", null, null, "só \uD83D\uDE00", T0, 5, 1, "http://x/y", 0, T0 - 1, JobStatus.DELAY, 0);
        jobs.add(sparse);
        assertThat(journal.recordCreated(jobs)).isEmpty();
        List<String> ids = new ArrayList<>(jobs.stream().map(Job::id).toList());
        ids.add("no-such-job");

        Map<String, Job> found = journal.findAll(ids);

        assertThat(found).hasSize(jobs.size());
        for (Job job : jobs) {
            assertThat(found.get(job.id())).as(job.id()).isEqualTo(job);
        }
        assertThat(journal.findAll(List.of())).isEmpty();
    }

    @Test
    void a_duplicate_id_is_reported_as_existing_and_the_first_row_is_kept() {
        String id = newId();
        String other = newId();
        assertThat(journal.recordCreated(List.of(job(id, T0 + 1000)))).isEmpty();
        Job impostor = new Job(
                id, "other", null, null, "another body", T0 + 99_000, 1_000, 1, null, 0, T0 + 5, JobStatus.DELAY, 0);

        Set<String> existing = journal.recordCreated(List.of(impostor, job(other, T0 + 2000)));

        assertThat(existing).containsExactly(id);
        Job kept = journal.find(id).orElseThrow();
        assertThat(kept).isEqualTo(job(id, T0 + 1000));
        assertThat(journal.find(other)).contains(job(other, T0 + 2000));
        assertThat(journal.history(id)).extracting(JournalEntry::event).containsExactly(JobEvent.CREATED);
        assertThat(count("SELECT COUNT(*) FROM delay_queue_job")).isEqualTo(2);
    }

    @Test
    void
            a_client_id_that_another_writer_commits_around_the_group_is_reported_as_existing_and_the_group_is_written_once()
                    throws Exception {
        String id = newId();
        String other = newId();
        try (Connection rival = db.connection()) {
            rival.setAutoCommit(false);
            try (PreparedStatement insert = rival.prepareStatement("INSERT INTO delay_queue_job (id, topic, body, ttr,"
                    + " max_attempts, priority, status, attempts, due_at, create_time, update_time, version)"
                    + " VALUES (?, 'rival', 'rival body', 1000, 1, 0, 'DELAY', 0, ?, ?, ?, 0)")) {
                insert.setString(1, id);
                insert.setLong(2, T0 + 5000);
                insert.setLong(3, T0);
                insert.setLong(4, T0);
                assertThat(insert.executeUpdate()).isEqualTo(1);
            }
            // Whether the group's insert waits for the rival's lock or comes after its commit, it fails on the
            // key (the first attempt looks nothing up) and the retry finds the rival's row: no sleep needed.
            CompletableFuture<Set<String>> pushed = CompletableFuture.supplyAsync(
                    () -> journal.recordCreated(List.of(job(id, T0 + 1000), job(other, T0 + 2000))));
            rival.commit();

            assertThat(pushed.get(30, TimeUnit.SECONDS)).containsExactly(id);
        }
        assertThat(journal.transientFailures())
                .as("groups rolled back and written again")
                .isPositive();
        assertThat(journal.find(id).orElseThrow().topic()).isEqualTo("rival");
        assertThat(journal.find(other)).contains(job(other, T0 + 2000));
        assertThat(journal.history(other)).extracting(JournalEntry::event).containsExactly(JobEvent.CREATED);
        assertThat(journal.history(id)).as("the rival wrote no log row").isEmpty();
    }

    @Test
    void deadlocks_lock_waits_and_duplicate_keys_are_transient_and_other_failures_are_not() {
        assertThat(JournalFailures.isTransient(new RuntimeException(
                        "commit", new SQLTransactionRollbackException("Deadlock found", "40001", 1213))))
                .isTrue();
        assertThat(JournalFailures.isTransient(new SQLException("Lock wait timeout exceeded", "HY000", 1205)))
                .isTrue();
        assertThat(JournalFailures.isTransient(
                        new SQLIntegrityConstraintViolationException("Duplicate", "23000", 1062)))
                .isTrue();
        assertThat(JournalFailures.isTransient(new SQLException("Access denied", "28000", 1045)))
                .isFalse();
        assertThat(JournalFailures.isTransient(new IllegalStateException("no database")))
                .isFalse();
    }

    @Test
    void ids_that_differ_only_in_letter_case_are_two_jobs() {
        // client ids are case-sensitive in Redis; a case-insensitive column would merge them
        Job lower = job("order-1", T0 + 1000);
        Job upper = new Job(
                "Order-1", "orders", null, null, "upper body", T0 + 2000, 30_000, 3, null, 0, T0, JobStatus.DELAY, 0);
        assertThat(journal.recordCreated(List.of(lower))).isEmpty();
        assertThat(journal.recordCreated(List.of(upper)))
                .as("ids reported as existing")
                .isEmpty();
        journal.recordTransitionsDurably(
                List.of(Transition.of("order-1", JobEvent.DELETED, null, JobStatus.DELETED, T0 + 10, null)));

        assertThat(journal.find("Order-1")).contains(upper);
        assertThat(statusOf("order-1")).isEqualTo(JobStatus.DELETED);
        assertThat(journal.history("Order-1")).extracting(JournalEntry::event).containsExactly(JobEvent.CREATED);
        assertThat(walk(JobStatus.DELAY, Long.MAX_VALUE, 10)).containsExactly("Order-1");
    }

    @Test
    void
            while_the_database_refuses_connections_sync_writes_fail_as_unavailable_and_lagged_ones_arrive_when_it_is_back() {
        String before = newId();
        journal.recordCreated(List.of(job(before, T0 + 1000)));

        db.gate().refuse();
        String refused = newId();
        assertThatThrownBy(() -> journal.recordCreated(List.of(job(refused, T0 + 1000))))
                .isInstanceOf(DelayQueueException.Unavailable.class)
                .hasMessageContaining("journal");
        assertThatThrownBy(() -> journal.recordTransitionsDurably(
                        List.of(Transition.of(before, JobEvent.DELETED, null, JobStatus.DELETED, T0 + 5, null))))
                .isInstanceOf(DelayQueueException.Unavailable.class);
        // a lagged transition is kept and retried
        int refusedSoFar = db.gate().refused();
        journal.recordTransitions(
                List.of(Transition.of(before, JobEvent.READY, JobStatus.DELAY, JobStatus.READY, T0 + 1000, null)));
        await("the writer tried the lagged transition again")
                .atMost(WAIT)
                .until(() -> db.gate().refused() >= refusedSoFar + 2);

        db.gate().open();
        await("the lagged READY reached the database").atMost(WAIT).until(() -> statusOf(before) == JobStatus.READY);
        assertThat(journal.find(refused)).as("the refused push").isEmpty();
        // and sync writes work again by themselves
        String after = newId();
        assertThat(journal.recordCreated(List.of(job(after, T0 + 1000)))).isEmpty();
        assertThat(journal.find(after)).isPresent();
    }

    @Test
    void closing_the_journal_writes_the_transitions_still_waiting() {
        String id = newId();
        journal.recordCreated(List.of(job(id, T0 + 1000)));
        db.gate().hold();
        journal.recordTransitions(IntStream.range(0, 3)
                .mapToObj(i -> Transition.of(id, JobEvent.READY, JobStatus.DELAY, JobStatus.READY, T0 + i, null))
                .toList());
        await("the writer waits for a connection")
                .atMost(WAIT)
                .until(() -> db.gate().waiting() == 1);
        journal.recordTransitions(
                List.of(Transition.of(id, JobEvent.RESERVED, JobStatus.READY, JobStatus.RESERVED, T0 + 5, null)));
        Thread closer = new Thread(journal::close);
        closer.start();
        db.gate().open();
        try {
            closer.join(WAIT.toMillis());
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        assertThat(closer.isAlive()).as("close() still running").isFalse();
        assertThat(db.queryString("SELECT status FROM delay_queue_job WHERE id = '" + id + "'"))
                .isEqualTo("RESERVED");
        assertThat(count("SELECT COUNT(*) FROM delay_queue_job_log WHERE job_id = '" + id + "'"))
                .isEqualTo(5);
        assertThatThrownBy(() -> journal.recordCreated(List.of(job(newId(), T0))))
                .isInstanceOf(DelayQueueException.Unavailable.class)
                .hasMessageContaining("closing");
        journal = null;
    }

    private MyBatisJournal newJournal(Duration commitTimeout, int queueCapacity, Clock clock) {
        return db.journal(
                JournalSettings.DEFAULTS.withWriter(
                        JournalMode.SYNC, Duration.ofMillis(100), 10_000, commitTimeout, queueCapacity, CREATE_WRITERS),
                SHARDS,
                clock);
    }

    private static Job jobWithUrl(String id, String url) {
        return new Job(id, "orders", null, null, "body of " + id, T0 + 1000, 30_000, 3, url, 0, T0, JobStatus.DELAY, 0);
    }

    @Test
    void a_row_the_database_refuses_fails_only_its_own_entry_and_the_rest_of_its_commit_is_written() {
        // hold the writers, so that the entries below queue up and share the next commit
        db.gate().hold();
        String first = newId();
        Journal.PendingCreate holding = journal.startCreated(List.of(job(first, T0 + 1000)));
        await("a writer waits for a connection")
                .atMost(WAIT)
                .until(() -> db.gate().waiting() >= 1);
        List<String> good = new ArrayList<>();
        List<Journal.PendingCreate> goodPending = new ArrayList<>();
        List<Journal.PendingCreate> poisonPending = new ArrayList<>();
        List<String> poison = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            if (i % 10 == 5) {
                String id = newId();
                poison.add(id);
                // a url longer than its column: only the database refuses it here (the engine checks it first)
                poisonPending.add(journal.startCreated(List.of(jobWithUrl(id, "http://x/" + "a".repeat(3000)))));
            } else {
                String id = newId();
                good.add(id);
                goodPending.add(journal.startCreated(List.of(job(id, T0 + 1000))));
            }
        }
        db.gate().open();
        long deadline = System.nanoTime() + WAIT.toNanos();
        assertThat(holding.await(deadline)).isEmpty();
        for (Journal.PendingCreate p : goodPending) {
            assertThat(p.await(deadline))
                    .as("a valid entry of a commit with a refused row")
                    .isEmpty();
        }
        for (Journal.PendingCreate p : poisonPending) {
            assertThatThrownBy(() -> p.await(deadline))
                    .isInstanceOf(DelayQueueException.InvalidField.class)
                    .hasMessageContaining("url")
                    .satisfies(e ->
                            assertThat(((DelayQueueException) e).httpStatus()).isEqualTo(400));
        }
        for (String id : good) {
            assertThat(journal.find(id)).as("valid job %s", id).isPresent();
        }
        for (String id : poison) {
            assertThat(journal.find(id)).as("refused job %s", id).isEmpty();
        }
        assertThat(count("SELECT COUNT(*) FROM delay_queue_job_log WHERE event = 'CREATED'"))
                .isEqualTo(good.size() + 1);
        await("the backlog is empty").atMost(WAIT).until(() -> journal.queuedRows() == 0);
    }

    @Test
    void a_create_still_queued_at_its_deadline_is_never_written_and_one_whose_commit_is_under_way_is_unknown() {
        db.gate().hold();
        List<String> taken = new ArrayList<>();
        List<Journal.PendingCreate> takenPending = new ArrayList<>();
        for (int i = 0; i < CREATE_WRITERS; i++) {
            String id = newId();
            taken.add(id);
            takenPending.add(journal.startCreated(List.of(job(id, T0 + 1000))));
            int writers = i + 1;
            await("a writer takes the create and waits")
                    .atMost(WAIT)
                    .until(() -> db.gate().waiting() == writers);
        }
        String queued = newId();
        Journal.PendingCreate queuedPending = journal.startCreated(List.of(job(queued, T0 + 1000)));
        long now = System.nanoTime();
        for (Journal.PendingCreate p : takenPending) {
            assertThatThrownBy(() -> p.await(now))
                    .as("a create whose commit is under way at the deadline")
                    .isInstanceOf(DelayQueueException.OutcomeUnknown.class)
                    .hasMessageContaining("may still land");
        }
        assertThatThrownBy(() -> queuedPending.await(now))
                .as("a create no writer took by the deadline")
                .isInstanceOf(DelayQueueException.Unavailable.class)
                .hasMessageContaining("not written");
        db.gate().open();
        for (String id : taken) {
            await("the commit under way lands").atMost(WAIT).until(() -> journal.find(id)
                    .isPresent());
        }
        await("the backlog is empty").atMost(WAIT).until(() -> journal.queuedRows() == 0);
        assertThat(journal.find(queued)).as("the create given up while queued").isEmpty();
    }

    @Test
    void the_lag_is_the_age_of_the_oldest_entry_not_committed_and_each_commit_is_told_with_its_rows() {
        journal.close();
        ManualClock clock = new ManualClock(T0);
        journal = newJournal(Duration.ofMinutes(1), 1_000_000, clock);
        List<long[]> commits = new java.util.concurrent.CopyOnWriteArrayList<>();
        journal.setListener((nanos, rows) -> commits.add(new long[] {nanos, rows}));
        assertThat(journal.lagMillis()).as("nothing handed over yet").isZero();

        String id = newId();
        journal.recordCreated(List.of(job(id, T0 + 1000)));
        assertThat(commits).as("told before the push is answered").hasSize(1);
        assertThat(commits.get(0)[0]).as("nanoseconds").isPositive();
        assertThat(commits.get(0)[1])
                .as("the job's row and its CREATED log row")
                .isEqualTo(2);

        db.gate().hold();
        journal.recordTransitions(
                List.of(Transition.of(id, JobEvent.READY, JobStatus.DELAY, JobStatus.READY, T0 + 1000, null)));
        await("the writer holds the READY and waits for a connection")
                .atMost(WAIT)
                .until(() -> db.gate().waiting() == 1);
        clock.advance(1_500);
        journal.recordTransitions(
                List.of(Transition.of(id, JobEvent.RESERVED, JobStatus.READY, JobStatus.RESERVED, T0 + 2500, null)));
        clock.advance(500);
        assertThat(journal.lagMillis())
                .as("the READY the writer holds was handed over 2 s ago, the RESERVED queued behind it 0.5 s ago")
                .isEqualTo(2_000);
        assertThat(journal.queuedRows()).isEqualTo(4);

        db.gate().open();
        await("both are committed").atMost(WAIT).until(() -> journal.queuedRows() == 0 && journal.lagMillis() == 0);
        assertThat(commits.stream().mapToLong(c -> c[1]).sum())
                .as("rows told: the job, its CREATED, READY and RESERVED log rows")
                .isEqualTo(4);
        assertThat(statusOf(id)).isEqualTo(JobStatus.RESERVED);
    }

    @Test
    void await_written_returns_once_what_was_queued_by_then_is_committed_and_not_before() throws Exception {
        journal.close();
        ManualClock clock = new ManualClock(T0);
        journal = newJournal(Duration.ofMinutes(1), 1_000_000, clock);
        String id = newId();
        journal.recordCreated(List.of(job(id, T0 + 1000)));
        // the push was answered when its commit was; its writer lets go of it just after
        assertThat(journal.awaitWritten(T0, WAIT)).as("the push written").isTrue();

        db.gate().hold();
        journal.recordTransitions(
                List.of(Transition.of(id, JobEvent.READY, JobStatus.DELAY, JobStatus.READY, T0 + 1000, null)));
        await("the writer holds the READY").atMost(WAIT).until(() -> db.gate().waiting() == 1);
        clock.advance(1_000);
        assertThat(journal.awaitWritten(T0 - 1, Duration.ZERO))
                .as("nothing queued before the READY")
                .isTrue();
        assertThat(journal.awaitWritten(T0, Duration.ofMillis(300)))
                .as("the READY is held")
                .isFalse();

        java.util.concurrent.CompletableFuture<Boolean> waiting =
                java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                    try {
                        return journal.awaitWritten(T0, Duration.ofSeconds(30));
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                });
        Thread.sleep(200);
        assertThat(waiting).as("still held").isNotDone();
        db.gate().open();
        assertThat(waiting.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS))
                .isTrue();
        assertThat(statusOf(id)).as("returned once committed").isEqualTo(JobStatus.READY);
    }

    @Test
    void over_its_capacity_the_backlog_makes_nobody_wait_refusing_pushes_and_not_keeping_lagged_transitions()
            throws Exception {
        journal.close();
        int capacity = 40; // rows: 20 transitions
        journal = newJournal(Duration.ofMinutes(1), capacity, Clock.systemUTC());
        String id = newId();
        journal.recordCreated(List.of(job(id, T0 + 1000)));
        db.gate().refuse();
        int transitions = 100;
        // on this thread: a wait for room would hang the test (the scanners and acknowledgements did so)
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(WAIT, () -> {
            for (int i = 0; i < transitions; i++) {
                journal.recordTransitions(List.of(Transition.of(
                        id, JobEvent.TTR_EXPIRED, JobStatus.RESERVED, JobStatus.DELAY, T0 + i, "attempt " + i)));
            }
        });
        long kept = journal.queuedRows() / 2;
        assertThat(journal.queuedRows())
                .as("rows held while the database is away")
                .isLessThanOrEqualTo(capacity)
                .isPositive();
        assertThat(journal.droppedRows()).as("rows of the transitions not kept").isEqualTo(2L * (transitions - kept));
        assertThatThrownBy(() -> journal.recordCreated(List.of(job(newId(), T0))))
                .as("a push while the backlog is full")
                .isInstanceOf(DelayQueueException.Unavailable.class)
                .hasMessageContaining("rows")
                .hasMessageContaining("behind");
        assertThatThrownBy(() -> journal.takeRoom(1))
                .as("a consumer's reserve or finish while the backlog is full")
                .isInstanceOf(DelayQueueException.Unavailable.class)
                .hasMessageContaining("nothing was changed");
        db.gate().open();
        await("every kept row is written").atMost(WAIT).until(() -> journal.queuedRows() == 0);
        assertThat(count("SELECT COUNT(*) FROM delay_queue_job_log WHERE event = 'TTR_EXPIRED'"))
                .isEqualTo(kept);
        journal.takeRoom(1).close();
        assertThat(journal.recordCreated(List.of(job(newId(), T0))))
                .as("pushes work again")
                .isEmpty();
    }

    @Test
    void the_backlog_is_bounded_in_bytes_so_large_bodies_are_refused_long_before_the_row_count_is_reached() {
        journal.close();
        journal = db.journal(
                JournalSettings.DEFAULTS
                        .withWriter(
                                JournalMode.SYNC, Duration.ofMillis(100), 10_000, Duration.ofMinutes(1), 1_000_000, 1)
                        .withQueueCapacityBytes(400 * 1024),
                SHARDS,
                Clock.systemUTC());
        db.gate().hold();
        String body = "x".repeat(64 * 1024); // 128 KB in memory at most, as the journal counts it
        List<Journal.PendingCreate> accepted = new ArrayList<>();
        List<String> acceptedIds = new ArrayList<>();
        Journal.PendingCreate refused = null;
        for (int i = 0; i < 10 && refused == null; i++) {
            String id = newId();
            Job big = new Job(id, "orders", null, null, body, T0 + 1000, 30_000, 3, null, 0, T0, JobStatus.DELAY, 0);
            long before = journal.queuedRows();
            Journal.PendingCreate pending = journal.startCreated(List.of(big));
            if (journal.queuedRows() == before) {
                refused = pending;
            } else {
                accepted.add(pending);
                acceptedIds.add(id);
            }
        }
        assertThat(refused).as("a push over the bound in bytes").isNotNull();
        Journal.PendingCreate overTheBound = refused;
        assertThatThrownBy(() -> overTheBound.await(System.nanoTime() + WAIT.toNanos()))
                .isInstanceOf(DelayQueueException.Unavailable.class)
                .hasMessageContaining("behind")
                .hasMessageContaining("KB");
        assertThat(journal.queuedRows())
                .as("rows queued when the bytes ran out: far under the row capacity")
                .isLessThan(20);
        db.gate().open();
        for (Journal.PendingCreate p : accepted) {
            assertThat(p.await(System.nanoTime() + WAIT.toNanos())).isEmpty();
        }
        for (String id : acceptedIds) {
            assertThat(journal.find(id)).as("accepted %s", id).isPresent();
        }
        await("the backlog is empty").atMost(WAIT).until(() -> journal.queuedRows() == 0);
    }

    @Test
    void an_async_push_whose_jobs_redis_did_not_take_is_never_written_and_the_others_are() {
        journal.close();
        journal = db.journal(
                JournalSettings.DEFAULTS.withWriter(
                        JournalMode.ASYNC, Duration.ofMillis(20), 10_000, Duration.ofMinutes(1), 1_000_000, 1),
                SHARDS,
                Clock.systemUTC());
        String stored = newId();
        String notStored = newId();
        String alsoStored = newId();
        List<Journal.PendingCreate> pending = journal.startCreatedGroups(
                List.of(List.of(job(stored, T0), job(notStored, T0)), List.of(job(alsoStored, T0))));
        assertThat(pending.get(0).await(System.nanoTime())).isEmpty();
        // the writer holds the round until both callers said what Redis did (here after far more than the lag)
        await("the writer waits for the round's callers").atMost(WAIT).until(() -> journal.lagMillis() > 200);
        assertThat(journal.find(stored)).as("held, not written yet").isEmpty();
        assertThat(pending.get(0).release(Set.of(notStored))).isTrue();
        assertThat(pending.get(1).release(Set.of())).isTrue();
        await("the round is written").atMost(WAIT).until(() -> journal.queuedRows() == 0);
        assertThat(journal.find(stored)).isPresent();
        assertThat(journal.find(alsoStored)).isPresent();
        assertThat(journal.find(notStored)).as("answered 503: never written").isEmpty();
        assertThat(count("SELECT COUNT(*) FROM delay_queue_job_log WHERE job_id = '" + notStored + "'"))
                .isZero();
    }

    @Test
    void an_async_push_not_released_within_the_hold_is_written_whole_and_a_late_release_says_so() {
        journal.close();
        journal = db.journal(
                JournalSettings.DEFAULTS.withWriter(
                        JournalMode.ASYNC, Duration.ofMillis(20), 10_000, Duration.ofMillis(300), 1_000_000, 1),
                SHARDS,
                Clock.systemUTC());
        String id = newId();
        Journal.PendingCreate pending = journal.startCreated(List.of(job(id, T0)));
        await("written once the hold passed").atMost(WAIT).until(() -> journal.find(id)
                .isPresent());
        assertThat(pending.release(Set.of(id)))
                .as("too late to withdraw: the push's outcome is unknown")
                .isFalse();
        assertThat(journal.find(id)).isPresent();
    }

    @Test
    void an_unexpected_error_while_writing_loses_no_lagged_entry_and_keeps_the_row_count_exact() {
        journal.close();
        AtomicInteger failuresLeft = new AtomicInteger();
        java.util.concurrent.atomic.AtomicBoolean thrown = new java.util.concurrent.atomic.AtomicBoolean();
        Clock failing = new Clock() {
            @Override
            public java.time.ZoneId getZone() {
                return java.time.ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(java.time.ZoneId zone) {
                return this;
            }

            @Override
            public java.time.Instant instant() {
                return java.time.Instant.ofEpochMilli(millis());
            }

            @Override
            public long millis() {
                // only in a writer: callers read the clock too, when they hand their entries over
                if (Thread.currentThread().getName().startsWith("delay-journal-")
                        && failuresLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                    thrown.set(true);
                    throw new AssertionError("an unexpected error, thrown by the test's clock");
                }
                return System.currentTimeMillis();
            }
        };
        journal = newJournal(Duration.ofMinutes(1), 1_000_000, failing);
        String id = newId();
        journal.recordCreated(List.of(job(id, T0 + 1000)));

        db.gate().hold(); // the next transitions share one commit, which fails unexpectedly
        journal.recordTransitions(
                List.of(Transition.of(id, JobEvent.READY, JobStatus.DELAY, JobStatus.READY, T0 + 1, null)));
        await("the transition is queued").atMost(WAIT).until(() -> journal.queuedRows() == 2);
        failuresLeft.set(1);
        journal.recordTransitions(
                List.of(Transition.of(id, JobEvent.RESERVED, JobStatus.READY, JobStatus.RESERVED, T0 + 2, null)));
        db.gate().open();
        await("the writer met the error").atMost(WAIT).until(thrown::get);
        await("every row is written and counted once").atMost(WAIT).until(() -> journal.queuedRows() == 0);
        assertThat(statusOf(id)).isEqualTo(JobStatus.RESERVED);
        assertThat(count("SELECT COUNT(*) FROM delay_queue_job_log WHERE job_id = '" + id + "'"))
                .isEqualTo(3);
        assertThat(journal.recordCreated(List.of(job(newId(), T0))))
                .as("pushes work on")
                .isEmpty();
        assertThat(journal.queuedRows()).isZero();
    }

    @Test
    void text_in_any_language_is_stored_as_it_was_pushed() {
        String id = newId();
        String text = "注文 42 を閉じる, заказ, طلب, 🚀🧾 and a lone \u00e9";
        Job job = new Job(
                id,
                "orders",
                "サブ🚀",
                "ключ-🧾",
                text,
                T0 + 1000,
                30_000,
                3,
                "https://example.test/✓",
                0,
                T0,
                JobStatus.DELAY,
                0);
        journal.recordCreated(List.of(job));
        Job read = journal.find(id).orElseThrow();
        assertThat(read.body()).isEqualTo(text);
        assertThat(read.subtopic()).isEqualTo("サブ🚀");
        assertThat(read.bizKey()).isEqualTo("ключ-🧾");
        assertThat(read.url()).isEqualTo("https://example.test/✓");
    }

    @Test
    void groups_of_one_entry_share_a_commit_and_a_refused_row_fails_only_its_own_group() {
        String before = newId();
        String poison = newId();
        String after = newId();
        String alsoAfter = newId();
        List<Journal.PendingCreate> pending = journal.startCreatedGroups(List.of(
                List.of(job(before, T0 + 1000)),
                List.of(jobWithUrl(poison, "http://x/" + "a".repeat(3000))),
                List.of(job(after, T0 + 1000), job(alsoAfter, T0 + 1000))));
        long deadline = System.nanoTime() + WAIT.toNanos();
        assertThat(pending.get(0).await(deadline)).isEmpty();
        assertThatThrownBy(() -> pending.get(1).await(deadline))
                .isInstanceOf(DelayQueueException.class)
                .hasMessageContaining("url")
                .satisfies(
                        e -> assertThat(((DelayQueueException) e).httpStatus()).isEqualTo(400));
        assertThat(pending.get(2).await(deadline)).isEmpty();
        assertThat(journal.find(before)).isPresent();
        assertThat(journal.find(poison)).isEmpty();
        assertThat(journal.find(after)).isPresent();
        assertThat(journal.find(alsoAfter)).isPresent();
        assertThat(journal.queuedRows()).isZero();
        // an id already journaled is reported to its own group only
        List<Journal.PendingCreate> again =
                journal.startCreatedGroups(List.of(List.of(job(newId(), T0 + 1000)), List.of(job(before, T0 + 1000))));
        assertThat(again.get(0).await(deadline)).isEmpty();
        assertThat(again.get(1).await(deadline)).containsExactly(before);
    }
}
