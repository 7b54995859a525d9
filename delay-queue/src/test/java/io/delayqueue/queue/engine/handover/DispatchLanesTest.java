package io.delayqueue.queue.engine.handover;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class DispatchLanesTest {

    @Test
    void a_topic_takes_no_more_than_its_limit_and_gets_room_again_when_a_send_settles() {
        DispatchLanes lanes = new DispatchLanes(10, 2);

        assertThat(lanes.tryAcquire("mq", "a")).isTrue();
        assertThat(lanes.tryAcquire("mq", "a")).isTrue();
        assertThat(lanes.tryAcquire("mq", "a")).isFalse();
        assertThat(lanes.tryAcquire("mq", "b"))
                .as("another topic of the same dispatcher")
                .isTrue();

        lanes.release("mq", "a", Long.MIN_VALUE);

        assertThat(lanes.tryAcquire("mq", "a")).isTrue();
        assertThat(lanes.inFlightOfTopic("a")).isEqualTo(2);
        assertThat(lanes.inFlightOfDispatcher("mq")).isEqualTo(3);
    }

    @Test
    void a_dispatcher_takes_no_more_than_its_share_over_all_its_topics() {
        DispatchLanes lanes = new DispatchLanes(3, 2);

        assertThat(lanes.tryAcquire("mq", "a")).isTrue();
        assertThat(lanes.tryAcquire("mq", "a")).isTrue();
        assertThat(lanes.tryAcquire("mq", "b")).isTrue();
        assertThat(lanes.tryAcquire("mq", "c")).isFalse();
        assertThat(lanes.inFlightOfTopic("c")).as("a refused slot is not held").isZero();
        assertThat(lanes.tryAcquire("http", "c")).as("another dispatcher").isTrue();
    }

    @Test
    void counters_that_drop_to_zero_leave_nothing_behind() {
        DispatchLanes lanes = new DispatchLanes(3, 2);
        lanes.tryAcquire("mq", "a");

        lanes.release("mq", "a", Long.MIN_VALUE);

        assertThat(lanes.inFlightOfTopic("a")).isZero();
        assertThat(lanes.inFlightOfDispatcher("mq")).isZero();
    }

    @Test
    void each_dispatcher_gets_an_even_share_of_what_one_scan_batch_leaves() {
        assertThat(DispatchLanes.perDispatcherShare(10_000, 500, 1)).isEqualTo(9_500);
        assertThat(DispatchLanes.perDispatcherShare(10_000, 500, 4)).isEqualTo(2_375);
        assertThat(DispatchLanes.perDispatcherShare(500, 500, 2)).isEqualTo(1);
        assertThat(new DispatchLanes(5, 1000).perTopic())
                .as("a topic never holds more than its dispatcher")
                .isEqualTo(5);
    }

    private static DispatchLanes.Waiter waiter(String dispatcher, String topic, String id, long queuedAtNanos) {
        Job job = new Job(id, topic, null, null, "b", 0, 1, 1, null, 0, 0, JobStatus.RESERVED, 0);
        return new DispatchLanes.Waiter(dispatcher, 0, job, () -> true, queuedAtNanos, new CompletableFuture<>());
    }

    @Test
    void a_job_of_a_full_topic_waits_and_takes_the_slot_of_the_next_send_that_settles() {
        DispatchLanes lanes = new DispatchLanes(10, 1, 5);

        assertThat(lanes.admit(waiter("mq", "a", "1", 0))).isEqualTo(DispatchLanes.Admission.SEND);
        assertThat(lanes.admit(waiter("mq", "a", "2", 0))).isEqualTo(DispatchLanes.Admission.WAIT);
        assertThat(lanes.admit(waiter("mq", "a", "3", 0))).isEqualTo(DispatchLanes.Admission.WAIT);

        // nothing waited since before -1 ns
        DispatchLanes.Released released = lanes.release("mq", "a", -1);

        assertThat(released.toSend()).extracting(w -> w.job().id()).containsExactly("2");
        assertThat(released.expired()).isEmpty();
        assertThat(lanes.inFlightOfTopic("a")).isEqualTo(1);
        assertThat(lanes.waitingOfTopic("a")).isEqualTo(1);
    }

    @Test
    void what_a_topic_and_a_dispatcher_hold_open_or_waiting_is_capped() {
        DispatchLanes lanes = new DispatchLanes(4, 1, 3);

        assertThat(lanes.admit(waiter("mq", "a", "1", 0))).isEqualTo(DispatchLanes.Admission.SEND);
        assertThat(lanes.admit(waiter("mq", "a", "2", 0))).isEqualTo(DispatchLanes.Admission.WAIT);
        assertThat(lanes.admit(waiter("mq", "a", "3", 0))).isEqualTo(DispatchLanes.Admission.WAIT);
        assertThat(lanes.admit(waiter("mq", "a", "4", 0)))
                .as("the topic holds 3")
                .isEqualTo(DispatchLanes.Admission.FULL);
        assertThat(lanes.admit(waiter("mq", "b", "5", 0)))
                .as("another topic of the dispatcher")
                .isEqualTo(DispatchLanes.Admission.SEND);
        assertThat(lanes.admit(waiter("mq", "c", "6", 0)))
                .as("the dispatcher holds 4")
                .isEqualTo(DispatchLanes.Admission.FULL);
        assertThat(lanes.admit(waiter("http", "c", "7", 0))).isEqualTo(DispatchLanes.Admission.SEND);
    }

    @Test
    void jobs_that_waited_too_long_are_handed_back_to_be_put_back_and_leave_nothing_behind() {
        DispatchLanes lanes = new DispatchLanes(10, 1, 5);
        lanes.admit(waiter("mq", "a", "1", 0));
        lanes.admit(waiter("mq", "a", "2", 100));
        lanes.admit(waiter("mq", "a", "3", 200));

        assertThat(lanes.oldestWaiter()).hasValue(100);
        assertThat(lanes.expire(150)).extracting(w -> w.job().id()).containsExactly("2");
        DispatchLanes.Released released = lanes.release("mq", "a", 250);

        assertThat(released.toSend()).isEmpty();
        assertThat(released.expired()).extracting(w -> w.job().id()).containsExactly("3");
        assertThat(lanes.inFlightOfTopic("a")).isZero();
        assertThat(lanes.waitingOfTopic("a")).isZero();
        assertThat(lanes.inFlightByDispatcher()).isEmpty();
        assertThat(lanes.oldestWaiter()).isEmpty();
    }
}
