package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.common.JobStatus;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.Deliveries;
import io.delayqueue.e2e.support.EmbeddedActiveMq;
import io.delayqueue.e2e.support.RecordingJournal;
import io.delayqueue.e2e.support.RecordingJournalConfig;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.ServiceTest;
import io.delayqueue.queue.journal.Transition;
import io.delayqueue.sample.SampleConsumer;
import io.delayqueue.sample.SampleConsumer.Delivery;
import io.delayqueue.sample.SamplePusher;
import io.delayqueue.sample.SamplePusher.Pushed;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The service dispatching to a real ActiveMQ broker (an embedded {@code BrokerService} with a TCP
 * connector and a KahaDB store), received by the sample consumer, pushed by the sample pusher.
 */
@ServiceTest(
        properties = {
            "delay.dispatch.topics.amq-orders=activemq",
            "delay.dispatch.topics.amq-restart=activemq",
            "delay.retry.topics.amq-restart.backoff=20ms,50ms,100ms,200ms",
            "delay.retry.topics.amq-restart.max-attempts=1000"
        })
@Import(RecordingJournalConfig.class)
class ActiveMqDispatchTest {
    static final ServiceStores STORES = ServiceStores.redisOnly("activemq");
    static final EmbeddedActiveMq BROKER = EmbeddedActiveMq.started();
    private static final int JOBS = 1000;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        STORES.register(registry);
        registry.add("delay.activemq.url", BROKER::url);
    }

    @LocalServerPort
    int port;

    @Autowired
    RecordingJournal journal;

    private SamplePusher pusher() {
        return new SamplePusher("http://127.0.0.1:" + port);
    }

    @Test
    void
            thousand_jobs_reach_a_real_consumer_exactly_once_with_their_properties_and_body_and_never_before_their_due_time()
                    throws Exception {
        Deliveries deliveries = new Deliveries();
        Api api = new Api(port);
        try (AutoCloseable consumer =
                SampleConsumer.activeMq(BROKER.consumerUrl(), "amq-orders", deliveries.record())) {
            List<Pushed> pushed = pusher().push("amq-orders", "paid", JOBS, 2_000, new Random());
            Map<String, Pushed> byId = pushed.stream().collect(Collectors.toMap(Pushed::id, Function.identity()));
            Set<String> ids = byId.keySet();
            assertThat(ids).hasSize(JOBS);

            deliveries.awaitEveryJobFinished(
                    "every job reached the consumer and is FINISHED", Duration.ofSeconds(60), ids, JOBS, journal);
            ids.stream().limit(20).forEach(id -> assertThat(statusOf(api, id)).isEqualTo("FINISHED"));

            assertThat(deliveries.countById(ids))
                    .allSatisfy(
                            (id, n) -> assertThat(n).as("deliveries of %s", id).isEqualTo(1));
            for (Delivery d : deliveries.of(ids)) {
                Pushed p = byId.get(d.jobId());
                assertThat(d.destination()).isEqualTo("amq-orders");
                assertThat(d.tag()).as("subtopic property").isEqualTo("paid");
                assertThat(d.keys()).as("bizKey property").isEqualTo(p.bizKey());
                assertThat(d.body()).isEqualTo(p.body());
                assertThat(d.attempts()).isZero();
                assertThat(d.storedAt())
                        .as("broker-in time of %s vs its due time", d.jobId())
                        .isGreaterThanOrEqualTo(d.executeAt());
                assertThat(d.executeAt()).isGreaterThanOrEqualTo(p.sentAt() + p.delayMs());
                assertThat(d.receivedAt()).isGreaterThanOrEqualTo(p.sentAt() + p.delayMs());
            }
        }
    }

    @Test
    void broker_stopped_mid_run_and_started_again_loses_no_job_and_finishes_none_before_the_broker_confirmed_it()
            throws Exception {
        Deliveries deliveries = new Deliveries();
        Api api = new Api(port);
        try (AutoCloseable consumer =
                SampleConsumer.activeMq(BROKER.consumerUrl(), "amq-restart", deliveries.record())) {
            List<String> ids = new ArrayList<>();
            pusher().push("amq-restart", "first", JOBS / 2, 1_500, new Random()).forEach(p -> ids.add(p.id()));
            await("a part of the first half arrived")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> deliveries.distinct(ids) >= JOBS / 10);

            BROKER.stop();
            try {
                // the second half comes due while the broker is down
                List<String> second = new ArrayList<>();
                pusher().push("amq-restart", "second", JOBS / 2, 200, new Random())
                        .forEach(p -> second.add(p.id()));
                ids.addAll(second);
                await("sends of jobs due during the outage failed and were scheduled again")
                        .atMost(Duration.ofSeconds(30))
                        .until(() -> second.stream().anyMatch(id -> journal.failedAttempts(id) > 0));
                assertThat(journal.count(second, JobStatus.FINISHED))
                        .as("jobs of the second half FINISHED while the broker is down")
                        .isZero();
            } finally {
                BROKER.start();
            }

            deliveries.awaitEveryJobFinished(
                    "every job reached the consumer and is FINISHED after the broker came back",
                    Duration.ofSeconds(90),
                    ids,
                    JOBS,
                    journal);
            ids.stream().limit(20).forEach(id -> assertThat(statusOf(api, id)).isEqualTo("FINISHED"));

            assertThat(ids)
                    .anySatisfy(id -> assertThat(journal.failedAttempts(id)).isPositive());
            Map<String, Long> storedAt = deliveries.firstStoredAt(ids);
            for (String id : ids) {
                List<Transition> finishedAt = journal.of(id).stream()
                        .filter(t -> t.to() == JobStatus.FINISHED)
                        .toList();
                assertThat(finishedAt).as("FINISHED transitions of %s", id).hasSize(1);
                assertThat(finishedAt.get(0).at())
                        .as("%s is FINISHED no earlier than the broker stored it", id)
                        .isGreaterThanOrEqualTo(storedAt.get(id));
            }
            System.out.println("ActiveMQ restart: "
                    + ids.stream().filter(id -> journal.failedAttempts(id) > 0).count() + " jobs had failed sends; "
                    + deliveries.of(ids).size() + " deliveries of " + JOBS + " jobs");
        }
    }

    private static String statusOf(Api api, String id) {
        return api.get("/jobs/" + id).data().path("status").asText();
    }
}
