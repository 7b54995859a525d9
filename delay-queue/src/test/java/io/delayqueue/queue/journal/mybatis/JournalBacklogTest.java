package io.delayqueue.queue.journal.mybatis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.journal.JobEvent;
import io.delayqueue.queue.journal.Transition;
import io.delayqueue.queue.testing.ManualClock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * One rule for what the backlog refuses rather than drops when it has no room (issue 26, item 5), and one atomic
 * check-and-count: an entry a caller is answered on is refused, whatever room is left; only transitions nobody is
 * answered on are dropped; room taken before Redis changes is filled, never dropped; callers in parallel never
 * overrun the bound.
 */
class JournalBacklogTest {
    private static final int CAPACITY = 10;
    private final JournalBacklog backlog = new JournalBacklog(new ManualClock(0), CAPACITY, Long.MAX_VALUE);

    @Test
    void a_delete_that_does_not_fit_is_refused_and_a_lagged_transition_that_does_not_fit_is_dropped() {
        backlog.enqueue(lagged(4)); // 8 rows of 10

        assertThatThrownBy(() -> backlog.enqueue(WriteEntry.answered(transitions(2), "w")))
                .as("a delete of 4 rows, 2 left")
                .isInstanceOf(DelayQueueException.Unavailable.class)
                .hasMessageContaining("not written");
        backlog.enqueue(lagged(2));

        assertThat(backlog.queuedRows()).isEqualTo(8);
        assertThat(backlog.droppedRows())
                .as("only the lagged transitions nobody is answered on")
                .isEqualTo(4);
        backlog.enqueue(WriteEntry.answered(transitions(1), "w"));
        assertThat(backlog.queuedRows()).as("a delete that fits").isEqualTo(10);
    }

    @Test
    void room_taken_before_redis_changes_is_filled_and_never_dropped_and_given_back_when_unused() {
        JournalBacklog.Room room = backlog.takeRoom(4, 100);
        backlog.enqueue(lagged(3)); // 6 rows: 10 with the room

        assertThatThrownBy(() -> backlog.takeRoom(2, 100))
                .isInstanceOf(DelayQueueException.Unavailable.class)
                .hasMessageContaining("nothing was changed");
        backlog.enqueue(WriteEntry.answered(transitions(2), "w"), room);
        assertThat(backlog.queuedRows()).isEqualTo(10);
        assertThat(backlog.droppedRows()).isZero();

        for (WriteEntry e : List.copyOf(backlog.transitions())) {
            backlog.settle(e);
        }
        JournalBacklog.Room unused = backlog.takeRoom(4, 100);
        backlog.giveBack(unused);
        backlog.giveBack(unused);
        assertThat(backlog.queuedRows()).isZero();
    }

    @Test
    void callers_in_parallel_never_take_more_than_the_capacity() throws Exception {
        int threads = 8;
        CountDownLatch start = new CountDownLatch(1);
        AtomicInteger admitted = new AtomicInteger();
        List<Thread> callers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread caller = new Thread(() -> {
                try {
                    start.await();
                    for (int i = 0; i < 1_000; i++) {
                        try {
                            backlog.enqueue(WriteEntry.answered(transitions(1), "w"));
                            admitted.incrementAndGet();
                        } catch (DelayQueueException.Unavailable full) {
                            // refused, nothing counted
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            caller.start();
            callers.add(caller);
        }
        start.countDown();
        for (Thread caller : callers) {
            caller.join();
        }
        assertThat(admitted.get()).as("entries of 2 rows in 10").isEqualTo(CAPACITY / 2);
        assertThat(backlog.queuedRows()).isEqualTo(CAPACITY);
    }

    private static WriteEntry lagged(int transitions) {
        return new WriteEntry(List.of(), transitions(transitions), "w", null);
    }

    private static List<Transition> transitions(int n) {
        List<Transition> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(Transition.of("job-" + i, JobEvent.READY, JobStatus.DELAY, JobStatus.READY, 0, null));
        }
        return out;
    }
}
