package io.delayqueue.queue.engine.restore;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.journal.mybatis.MyBatisJournal;
import io.delayqueue.queue.testing.ForwardingJournal;
import io.delayqueue.queue.testing.JournalDatabase;
import io.delayqueue.queue.testing.ManualClock;
import io.delayqueue.queue.testing.RedisFixture;
import io.delayqueue.queue.testing.TestIds;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A restore waits for the journal once its backlog is over a quarter full, and after one such wait timed out (the
 * database away) it goes on without waiting for a while, so that a fail-over replay is not held a commit timeout a
 * page. The journal's backlog and its waits are a fake's; Redis and the journal's writes are real.
 */
class JournalRestorerPacingTest {
    private static final long T0 = 1_700_000_000_000L;

    private RedisFixture redis;
    private JournalDatabase db;
    private MyBatisJournal real;
    private final AtomicInteger waits = new AtomicInteger();
    private volatile boolean written;
    private volatile long queued;

    @BeforeEach
    void setUp() {
        redis = new RedisFixture();
        db = JournalDatabase.sqlite();
        real = db.journal(4, new ManualClock(T0));
    }

    @AfterEach
    void tearDown() {
        try {
            real.close();
        } finally {
            db.close();
            redis.close();
        }
    }

    private JournalRestorer restorer() {
        ForwardingJournal journal = new ForwardingJournal(real) {
            @Override
            public long queueCapacityRows() {
                return 1_000;
            }

            @Override
            public long queuedRows() {
                return queued;
            }

            @Override
            public boolean awaitWritten(long queuedByMs, Duration timeout) {
                waits.incrementAndGet();
                return written;
            }
        };
        return new JournalRestorer(
                journal, redis.store(4, Duration.ofHours(1)), new ManualClock(T0), 100, job -> {}, null);
    }

    private static List<Job> oneJob() {
        String id = TestIds.next();
        return List.of(
                new Job(id, "orders", null, null, "body", T0 + 60_000, 30_000, 3, null, 0, T0, JobStatus.DELAY, 0));
    }

    @Test
    void below_a_quarter_of_the_backlog_it_does_not_wait_and_above_it_waits_after_every_page() {
        JournalRestorer restorer = restorer();
        written = true;
        queued = 250;
        assertThat(restorer.restore(oneJob(), "test")).isEqualTo(1);
        assertThat(waits).as("a quarter full: no wait").hasValue(0);

        queued = 251;
        assertThat(restorer.restore(oneJob(), "test")).isEqualTo(1);
        assertThat(restorer.restore(oneJob(), "test")).isEqualTo(1);
        assertThat(waits).as("over a quarter: a wait a page").hasValue(2);
    }

    @Test
    void after_a_wait_that_timed_out_it_goes_on_without_waiting() {
        JournalRestorer restorer = restorer();
        written = false; // the database does not write within the commit timeout
        queued = 900;
        for (int page = 0; page < 5; page++) {
            assertThat(restorer.restore(oneJob(), "test")).isEqualTo(1);
        }
        assertThat(waits).as("one timed-out wait, then none for a while").hasValue(1);
    }
}
