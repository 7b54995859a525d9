package io.delayqueue.queue.engine;

import static org.assertj.core.api.Assertions.assertThat;

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
}
