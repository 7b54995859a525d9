package io.delayqueue.queue.journal.mybatis;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.journal.JobCursor;
import io.delayqueue.queue.journal.JobEvent;
import io.delayqueue.queue.journal.JobQuery;
import io.delayqueue.queue.journal.TopicCount;
import io.delayqueue.queue.journal.Transition;
import io.delayqueue.queue.testing.JournalDatabase;
import io.delayqueue.queue.testing.ManualClock;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The web console's reads, on every database the journal supports (subclasses): the job browser's keyset pages
 * (one status, one topic or all, soonest due or newest first), the last error of a page's jobs, and the counts
 * per topic.
 */
abstract class JournalConsoleReadsContract {
    private static final long T0 = 1_700_000_000_000L;

    private JournalDatabase db;
    private MyBatisJournal journal;

    abstract JournalDatabase openDatabase();

    @BeforeEach
    void setUp() {
        db = openDatabase();
        journal = db.journal(4, new ManualClock(T0));
    }

    @AfterEach
    void tearDown() {
        try {
            journal.close();
        } finally {
            db.close();
        }
    }

    private static Job job(String id, String topic, long dueAt, long createdAt) {
        return new Job(
                id, topic, null, null, "body of " + id, dueAt, 30_000, 3, null, 0, createdAt, JobStatus.DELAY, 0);
    }

    /** Every page of {@code query}'s walk, following each page's last job as the cursor. */
    private List<String> walk(JobStatus status, String topic, JobQuery.Order order, Function<Job, Long> key) {
        List<String> read = new ArrayList<>();
        JobCursor after = null;
        List<Job> page;
        do {
            page = journal.browse(new JobQuery(status, topic, order, after, 2));
            page.forEach(j -> read.add(j.id()));
            if (!page.isEmpty()) {
                Job last = page.get(page.size() - 1);
                after = new JobCursor(key.apply(last), last.id());
            }
        } while (page.size() == 2);
        return read;
    }

    @Test
    void a_status_is_browsed_in_keyset_pages_soonest_due_or_newest_first_of_one_topic_or_all() {
        // due times and creation times run opposite ways; b and c share both, their ids order them
        journal.recordCreated(List.of(
                job("a", "orders", T0 + 4000, T0),
                job("b", "orders", T0 + 2000, T0 + 10),
                job("c", "orders", T0 + 2000, T0 + 10),
                job("d", "mails", T0 + 1000, T0 + 20),
                job("e", "orders", T0 + 500, T0 + 30)));
        journal.recordTransitionsDurably(
                List.of(Transition.of("e", JobEvent.FINISHED, JobStatus.DELAY, JobStatus.FINISHED, T0, null)));

        assertThat(walk(JobStatus.DELAY, "orders", JobQuery.Order.SOONEST, Job::executeAt))
                .containsExactly("b", "c", "a");
        assertThat(walk(JobStatus.DELAY, null, JobQuery.Order.SOONEST, Job::executeAt))
                .containsExactly("d", "b", "c", "a");
        assertThat(walk(JobStatus.DELAY, null, JobQuery.Order.NEWEST, Job::createTime))
                .containsExactly("d", "c", "b", "a");
        assertThat(walk(JobStatus.FINISHED, "orders", JobQuery.Order.NEWEST, Job::createTime))
                .containsExactly("e");
        assertThat(walk(JobStatus.DELAY, "nothing", JobQuery.Order.SOONEST, Job::executeAt))
                .isEmpty();
    }

    @Test
    void a_jobs_last_error_is_its_latest_failure_and_a_bare_death_only_when_nothing_says_more() {
        journal.recordCreated(List.of(
                job("retried", "orders", T0, T0),
                job("died", "orders", T0, T0),
                job("sent", "orders", T0, T0),
                job("fine", "orders", T0, T0)));
        journal.recordTransitionsDurably(List.of(
                Transition.of("retried", JobEvent.RETRIED, JobStatus.RESERVED, JobStatus.DELAY, T0, "attempt 1: 500"),
                Transition.of("retried", JobEvent.TTR_EXPIRED, JobStatus.RESERVED, JobStatus.DELAY, T0 + 1, "expired"),
                Transition.of(
                        "retried", JobEvent.DEAD, JobStatus.RESERVED, JobStatus.DEAD, T0 + 2, "max attempts reached"),
                Transition.of("died", JobEvent.DEAD, JobStatus.RESERVED, JobStatus.DEAD, T0, "max attempts reached"),
                Transition.of("sent", JobEvent.RETRIED, JobStatus.RESERVED, JobStatus.DELAY, T0, "attempt 1: 500"),
                Transition.of("sent", JobEvent.RETRIED, JobStatus.RESERVED, JobStatus.DELAY, T0 + 1, "attempt 2: 500"),
                Transition.of("sent", JobEvent.DEAD, JobStatus.RESERVED, JobStatus.DEAD, T0 + 2, "attempt 3: 503"),
                Transition.of("fine", JobEvent.READY, JobStatus.DELAY, JobStatus.READY, T0, null)));

        assertThat(journal.lastErrors(List.of("retried", "died", "sent", "fine", "unknown")))
                .containsOnly(
                        org.assertj.core.api.Assertions.entry("retried", "expired"),
                        org.assertj.core.api.Assertions.entry("died", "max attempts reached"),
                        org.assertj.core.api.Assertions.entry("sent", "attempt 3: 503"));
    }

    @Test
    void jobs_not_final_are_counted_per_topic_and_status() {
        journal.recordCreated(List.of(
                job("a", "orders", T0, T0),
                job("b", "orders", T0, T0),
                job("c", "orders", T0, T0),
                job("d", "mails", T0, T0)));
        journal.recordTransitionsDurably(List.of(
                Transition.of("b", JobEvent.DEAD, JobStatus.RESERVED, JobStatus.DEAD, T0, null),
                Transition.of("c", JobEvent.FINISHED, JobStatus.DELAY, JobStatus.FINISHED, T0, null)));

        assertThat(journal.countByTopic())
                .containsExactlyInAnyOrder(
                        new TopicCount("orders", JobStatus.DELAY, 1),
                        new TopicCount("orders", JobStatus.DEAD, 1),
                        new TopicCount("mails", JobStatus.DELAY, 1));
    }
}
