package io.delayqueue.queue.dispatch.rocketmq;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.dispatch.DispatchRejectedException;
import io.delayqueue.queue.testing.ClosedPort;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import org.apache.rocketmq.common.message.Message;
import org.junit.jupiter.api.Test;

/**
 * The message mapping, and a producer whose name server is not there. With a broker: delay-test's
 * RocketMqDispatchTest. This module's test class path lacks RocksDB, as the service's does.
 */
class RocketMqDispatcherTest {
    private static final Job JOB = new Job(
            "5-xyz",
            "orders",
            "paid",
            "order-42",
            "close order 42",
            1_700_000_000_000L,
            30_000,
            5,
            null,
            0,
            1_699_999_000_000L,
            JobStatus.RESERVED,
            2);

    @Test
    void job_maps_topic_to_topic_subtopic_to_tag_biz_key_and_id_to_keys_and_body_to_body() {
        Message m = RocketMqMessages.toMessage(JOB);

        assertThat(m.getTopic()).isEqualTo("orders");
        assertThat(m.getTags()).isEqualTo("paid");
        assertThat(m.getKeys()).isEqualTo("order-42 5-xyz");
        assertThat(new String(m.getBody(), StandardCharsets.UTF_8)).isEqualTo("close order 42");
        assertThat(m.getUserProperty(RocketMqMessages.JOB_ID)).isEqualTo("5-xyz");
        assertThat(m.getUserProperty(RocketMqMessages.ATTEMPTS)).isEqualTo("2");
        assertThat(m.getUserProperty(RocketMqMessages.EXECUTE_AT)).isEqualTo("1700000000000");
        assertThat(m.getUserProperty(RocketMqMessages.CREATE_TIME)).isEqualTo("1699999000000");
    }

    @Test
    void job_without_subtopic_or_biz_key_has_no_tag_and_its_id_as_the_only_key() {
        Job plain = new Job("1-a", "orders", null, null, "b", 0, 1, 1, null, 0, 0, JobStatus.RESERVED, 0);

        Message m = RocketMqMessages.toMessage(plain);

        assertThat(m.getTags()).isNull();
        assertThat(m.getKeys()).isEqualTo("1-a");
    }

    @Test
    void send_without_a_reachable_name_server_fails_as_an_attempt_within_its_timeout() throws IOException {
        int closedPort = ClosedPort.get();
        RocketMqSettings settings =
                new RocketMqSettings("127.0.0.1:" + closedPort, "delay-queue-test", Duration.ofSeconds(1), 0, 1, 10);
        RocketMqDispatcher dispatcher = new RocketMqDispatcher(settings, Duration.ofSeconds(10));
        try {
            Throwable failure = null;
            try {
                dispatcher.dispatch(JOB).toCompletableFuture().join();
            } catch (CompletionException e) {
                failure = e.getCause();
            }

            assertThat(failure).isNotNull().isNotInstanceOf(DispatchRejectedException.class);
        } finally {
            dispatcher.close();
        }
    }
}
