package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.common.JobStatus;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.Deliveries;
import io.delayqueue.e2e.support.EmbeddedRocketMq;
import io.delayqueue.e2e.support.HungServer;
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
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The service dispatching to a real RocketMQ name server and broker in this JVM, received by the sample
 * consumer. Besides, one topic goes to an ActiveMQ "broker" that accepts connections and never answers:
 * the last test shows that it does not hold up the RocketMQ topics. The in-flight limits are small here
 * ({@code max-in-flight} 600), so that a hung broker could take all of them if nothing stopped it.
 */
@ServiceTest(
        properties = {
            "delay.dispatch.topics.rmq-orders=rocketmq",
            "delay.dispatch.topics.rmq-restart=rocketmq",
            "delay.dispatch.topics.rmq-steady=rocketmq",
            "delay.dispatch.topics.amq-hung=activemq",
            "delay.retry.topics.rmq-restart.backoff=20ms,50ms,100ms,200ms",
            "delay.retry.topics.rmq-restart.max-attempts=1000",
            "delay.dispatch.max-in-flight=600",
            "delay.scanner.batch-size=100",
            // the client retries and complains loudly while the broker is down
            "logging.level.org.apache.rocketmq=error"
        })
@Import(RecordingJournalConfig.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RocketMqDispatchTest {
    static final ServiceStores STORES = ServiceStores.redisOnly("rocketmq");
    static final EmbeddedRocketMq ROCKETMQ = EmbeddedRocketMq.started();
    static final HungServer HUNG_ACTIVEMQ = HungServer.started();
    private static final int JOBS = 1000;

    static {
        for (String topic : List.of("rmq-orders", "rmq-restart", "rmq-steady")) {
            ROCKETMQ.createTopic(topic, 4);
        }
    }

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        STORES.register(registry);
        registry.add("delay.rocketmq.namesrv", ROCKETMQ::namesrv);
        registry.add("delay.activemq.url", () -> "tcp://127.0.0.1:" + HUNG_ACTIVEMQ.port());
    }

    @LocalServerPort
    int port;

    @Autowired
    RecordingJournal journal;

    private SamplePusher pusher() {
        return new SamplePusher("http://127.0.0.1:" + port);
    }

    private AutoCloseable consumer(String topic, Deliveries deliveries) throws Exception {
        return SampleConsumer.rocketMq(ROCKETMQ.namesrv(), topic, "test-" + topic, deliveries.record());
    }

    @Test
    @Order(1)
    void
            thousand_jobs_reach_a_real_consumer_exactly_once_with_topic_tag_keys_properties_and_body_and_never_before_their_due_time()
                    throws Exception {
        Deliveries deliveries = new Deliveries();
        Api api = new Api(port);
        try (AutoCloseable consumer = consumer("rmq-orders", deliveries)) {
            List<Pushed> pushed = pusher().push("rmq-orders", "paid", JOBS, 2_000, new Random());
            Map<String, Pushed> byId = pushed.stream().collect(Collectors.toMap(Pushed::id, Function.identity()));
            Set<String> ids = byId.keySet();

            deliveries.awaitEveryJobFinished(
                    "every job reached the consumer and is FINISHED", Duration.ofSeconds(60), ids, JOBS, journal);
            ids.stream().limit(20).forEach(id -> assertThat(statusOf(api, id)).isEqualTo("FINISHED"));

            assertThat(deliveries.countById(ids))
                    .allSatisfy(
                            (id, n) -> assertThat(n).as("deliveries of %s", id).isEqualTo(1));
            for (Delivery d : deliveries.of(ids)) {
                Pushed p = byId.get(d.jobId());
                assertThat(d.destination()).isEqualTo("rmq-orders");
                assertThat(d.tag()).isEqualTo("paid");
                assertThat(d.keys()).as("keys: bizKey and job id").isEqualTo(p.bizKey() + " " + p.id());
                assertThat(d.body()).isEqualTo(p.body());
                assertThat(d.attempts()).isZero();
                assertThat(d.storedAt())
                        .as("store time of %s vs its due time", d.jobId())
                        .isGreaterThanOrEqualTo(d.executeAt());
                assertThat(d.executeAt()).isGreaterThanOrEqualTo(p.sentAt() + p.delayMs());
                assertThat(d.receivedAt()).isGreaterThanOrEqualTo(p.sentAt() + p.delayMs());
            }
        }
    }

    @Test
    @Order(2)
    void broker_stopped_mid_run_and_started_again_loses_no_job_and_finishes_none_before_the_broker_confirmed_it()
            throws Exception {
        Deliveries deliveries = new Deliveries();
        Api api = new Api(port);
        try (AutoCloseable consumer = consumer("rmq-restart", deliveries)) {
            List<String> ids = new ArrayList<>();
            pusher().push("rmq-restart", "first", JOBS / 2, 1_500, new Random()).forEach(p -> ids.add(p.id()));
            await("a part of the first half arrived")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> deliveries.distinct(ids) >= JOBS / 10);

            ROCKETMQ.stopBroker();
            try {
                // the second half comes due while the broker is down
                List<String> second = new ArrayList<>();
                pusher().push("rmq-restart", "second", JOBS / 2, 200, new Random())
                        .forEach(p -> second.add(p.id()));
                ids.addAll(second);
                await("sends of jobs due during the outage failed and were scheduled again")
                        .atMost(Duration.ofSeconds(30))
                        .until(() -> second.stream().anyMatch(id -> journal.failedAttempts(id) > 0));
                assertThat(journal.count(second, JobStatus.FINISHED))
                        .as("jobs of the second half FINISHED while the broker is down")
                        .isZero();
            } finally {
                ROCKETMQ.startBroker();
            }

            deliveries.awaitEveryJobFinished(
                    "every job reached the consumer and is FINISHED after the broker came back",
                    Duration.ofSeconds(120),
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
            System.out.println("RocketMQ restart: "
                    + ids.stream().filter(id -> journal.failedAttempts(id) > 0).count()
                    + " jobs had failed sends; " + deliveries.of(ids).size() + " deliveries of " + JOBS + " jobs");
        }
    }

    @Test
    @Order(3)
    void topic_whose_broker_hangs_does_not_delay_another_topics_jobs() throws Exception {
        Deliveries deliveries = new Deliveries();
        // 2000 jobs due now for a broker that accepts connections and never answers
        List<String> hung = new ArrayList<>();
        pusher().push("amq-hung", "stuck", 2 * JOBS, 0, new Random()).forEach(p -> hung.add(p.id()));
        try (AutoCloseable consumer = consumer("rmq-steady", deliveries)) {
            List<Pushed> pushed = pusher().push("rmq-steady", "steady", JOBS / 2, 500, new Random());
            Set<String> ids = pushed.stream().map(Pushed::id).collect(Collectors.toSet());

            await("every job of the RocketMQ topic arrived and is FINISHED while the other broker hangs")
                    .atMost(Duration.ofSeconds(60))
                    .untilAsserted(() -> assertThat((deliveries.distinct(ids) == ids.size()
                                    && journal.count(ids, JobStatus.FINISHED) == ids.size()))
                            .as(() ->
                                    "every job of the RocketMQ topic arrived and is FINISHED while the other broker hangs"
                                            + " "
                                            + ("(received " + deliveries.distinct(ids) + " of " + ids.size() + ")"))
                            .isTrue());

            assertThat(journal.count(hung, JobStatus.FINISHED))
                    .as("jobs of the hung broker's topic FINISHED")
                    .isZero();
            assertThat(journal.count(hung, JobStatus.DEAD)).isZero();
            long[] lateness = deliveries.of(ids).stream()
                    .mapToLong(d -> d.storedAt() - d.executeAt())
                    .sorted()
                    .toArray();
            System.out.println("RocketMQ next to a hung ActiveMQ: " + ids.size() + " jobs stored by the broker "
                    + lateness[lateness.length / 2] + " ms (median), " + lateness[lateness.length - 1]
                    + " ms (max) after their due time");
        }
    }

    private static String statusOf(Api api, String id) {
        return api.get("/jobs/" + id).data().path("status").asText();
    }
}
