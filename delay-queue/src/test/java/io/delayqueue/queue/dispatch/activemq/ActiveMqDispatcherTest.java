package io.delayqueue.queue.dispatch.activemq;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.dispatch.DispatchRejectedException;
import io.delayqueue.queue.testing.ClosedPort;
import jakarta.jms.JMSException;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** Settings, and a broker that is not there. With a broker: delay-test's ActiveMqDispatchTest. */
class ActiveMqDispatcherTest {

    @Test
    void topics_go_to_queues_unless_configured_otherwise() {
        ActiveMqSettings settings = new ActiveMqSettings(
                "tcp://127.0.0.1:1",
                null,
                null,
                ActiveMqSettings.DestinationType.QUEUE,
                Map.of("news", ActiveMqSettings.DestinationType.TOPIC),
                Duration.ofSeconds(1),
                1,
                1);

        assertThat(settings.destinationTypeOf("orders")).isEqualTo(ActiveMqSettings.DestinationType.QUEUE);
        assertThat(settings.destinationTypeOf("news")).isEqualTo(ActiveMqSettings.DestinationType.TOPIC);
        assertThat(ActiveMqSettings.DestinationType.parse(" Topic ", "x"))
                .isEqualTo(ActiveMqSettings.DestinationType.TOPIC);
    }

    @Test
    void send_to_a_broker_that_is_not_there_fails_as_an_attempt() throws IOException {
        int closedPort = ClosedPort.get();
        ActiveMqSettings settings = ActiveMqSettings.defaults("tcp://127.0.0.1:" + closedPort);
        ActiveMqDispatcher dispatcher = new ActiveMqDispatcher(settings, Duration.ofSeconds(10));
        Job job = new Job("1-a", "orders", null, null, "b", 0, 1, 1, null, 0, 0, JobStatus.RESERVED, 0);
        try {
            Throwable failure = null;
            try {
                dispatcher.dispatch(job).toCompletableFuture().join();
            } catch (CompletionException e) {
                failure = e.getCause();
            }

            assertThat(failure).isInstanceOf(JMSException.class).isNotInstanceOf(DispatchRejectedException.class);
        } finally {
            dispatcher.close();
        }
    }
}
