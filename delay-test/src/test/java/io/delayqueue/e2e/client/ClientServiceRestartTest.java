package io.delayqueue.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.client.ConsumerListener;
import io.delayqueue.client.DelayQueueClient;
import io.delayqueue.client.DelayQueueClientException;
import io.delayqueue.client.PullConsumer;
import io.delayqueue.client.PushOutcome;
import io.delayqueue.client.PushRequest;
import io.delayqueue.client.PushResult;
import io.delayqueue.client.RetryPolicy;
import io.delayqueue.e2e.support.ServiceProcess;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.StaticResources;
import io.delayqueue.e2e.support.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A {@link PullConsumer} carries on across a restart of the service: the service JVM (behind a TCP proxy, the
 * address the client knows) is killed with {@code kill -9} while the consumer works through a topic, and started
 * again; the consumer's polls fail while it is away and resume once it is back, and every job is handled and
 * finished (at least once: jobs whose reservation or finish the dead service held come back after their ttr).
 */
@ExtendWith(StaticResources.class)
class ClientServiceRestartTest {
    static final ServiceStores STORES = ServiceStores.redisAndJournal("clrestart");
    private static final String TOPIC = "cl-restart";
    private static final int JOBS = 300;
    private static final Duration START = Duration.ofMinutes(3);

    private static List<String> serviceArgs() {
        List<String> args = new ArrayList<>(STORES.serviceArgs());
        args.addAll(List.of(
                "--delay.dispatch.topics." + TOPIC + "=pull",
                "--logging.level.root=warn",
                "--logging.level.io.delayqueue=info"));
        return args;
    }

    @Test
    void a_consumer_carries_on_when_the_service_is_killed_and_started_again_and_every_job_is_finished()
            throws Exception {
        Map<String, Integer> printed = ServiceProcess.newCounts();
        Map<String, Integer> handled = new ConcurrentHashMap<>();
        AtomicInteger reserveFailures = new AtomicInteger();
        Set<String> ids;
        ServiceProcess second = null;
        try (ServiceProcess first = ServiceProcess.start("client-restart-first", serviceArgs(), printed);
                TcpProxy proxy = new TcpProxy("127.0.0.1", first.port())) {
            first.awaitUp(START);
            DelayQueueClient client = DelayQueueClient.builder("http://127.0.0.1:" + proxy.port())
                    .retryPolicy(
                            new RetryPolicy(20, Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ofSeconds(60)))
                    .build();
            // due over 6 s, each held for 3 s at most by the consumer that reserved it
            List<PushResult> pushed = client.pushAll(IntStream.range(0, JOBS)
                    .mapToObj(i -> PushRequest.builder(TOPIC, "job " + i)
                            .delay(Duration.ofMillis(i * 20L))
                            .ttr(Duration.ofSeconds(3))
                            .build())
                    .toList());
            assertThat(pushed).allMatch(r -> r.outcome() == PushOutcome.DURABLE, "pushed 200");
            ids = pushed.stream().map(PushResult::id).collect(Collectors.toSet());

            try (PullConsumer consumer = client.consumer(TOPIC, job -> {
                        Thread.sleep(10);
                        handled.merge(job.id(), 1, Integer::sum);
                    })
                    .concurrency(4)
                    .batchSize(10)
                    .pollTimeout(Duration.ofSeconds(1))
                    .listener(new ConsumerListener() {
                        @Override
                        public void onReserveFailed(DelayQueueClientException error) {
                            reserveFailures.incrementAndGet();
                        }
                    })
                    .start()) {
                await("a quarter of the jobs handled")
                        .atMost(Duration.ofSeconds(30))
                        .until(() -> handled.size() >= JOBS / 4);
                first.kill();
                int handledWhenKilled = handled.size();
                assertThat(handledWhenKilled).as("handled when killed").isLessThan(JOBS);

                second = ServiceProcess.start("client-restart-second", serviceArgs(), printed);
                second.awaitUp(START);
                proxy.forwardTo(second.port());

                await("every job handled after the restart")
                        .atMost(Duration.ofSeconds(60))
                        .untilAsserted(() -> assertThat(handled.keySet()).containsAll(ids));
                assertThat(consumer.isRunning()).isTrue();
                await("every job FINISHED in the journal")
                        .atMost(Duration.ofSeconds(60))
                        .until(() -> STORES.journal()
                                        .queryLong("SELECT COUNT(*) FROM delay_queue_job WHERE status = 'FINISHED'")
                                == JOBS);
                System.out.printf(
                        "ClientServiceRestartTest: %d jobs, %d handled when killed, %d reserve failures while the"
                                + " service was away, %d jobs handled more than once%n",
                        JOBS,
                        handledWhenKilled,
                        reserveFailures.get(),
                        handled.values().stream().filter(n -> n > 1).count());
            }
            assertThat(reserveFailures.get())
                    .as("polls that failed while the service was away")
                    .isPositive();
        } finally {
            if (second != null) {
                second.close();
            }
        }
    }
}
