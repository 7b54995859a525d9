package io.delayqueue.queue.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.common.PushRequest;
import io.delayqueue.queue.coordination.StandaloneCoordinator;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.store.redis.RedisJobStore;
import io.delayqueue.queue.testing.HangingDispatcher;
import io.delayqueue.queue.testing.RecordingDispatcher;
import io.delayqueue.queue.testing.RedisFixture;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A started engine on the system clock with two dispatchers: one whose receiver hangs (sends neither
 * confirm nor fail) and one that confirms at once. The hung one may hold no more than its in-flight limits;
 * everything else flows past it, and nothing of its own is lost or counted as a failed attempt.
 */
class DispatchIsolationTest {
    private static final String HUNG_TOPIC = "hung";
    private static final String HUNG_TOPIC_2 = "hung-too";
    private static final String OTHER_TOPIC = "healthy";
    private static final int PER_TOPIC = 40;
    private static final int HUNG_JOBS = 300;
    private static final int OTHER_JOBS = 300;

    private RedisFixture redis;
    private HangingDispatcher hung;
    private RecordingDispatcher healthy;
    private DelayQueueEngine engine;

    @BeforeEach
    void setUp() {
        redis = new RedisFixture();
        hung = new HangingDispatcher("hung");
        healthy = new RecordingDispatcher("healthy");
        EngineConfig config = EngineConfig.DEFAULTS
                .withShards(4)
                .withRedisPrefix(redis.prefix())
                .withScanner(s -> s.withBatchSize(50))
                .withDispatch(d -> d.withMaxInFlight(150)
                        .withMaxInFlightPerTopic(PER_TOPIC)
                        .withDefaultDispatcher("healthy")
                        .withTopics(Map.of(HUNG_TOPIC, "hung", HUNG_TOPIC_2, "hung")));
        RedisJobStore store = redis.store(config.shards(), config.retention());
        engine = new DelayQueueEngine(
                config, store, List.of(hung, healthy), new StandaloneCoordinator(), Journal.NONE, Clock.systemUTC());
        engine.start();
    }

    @AfterEach
    void tearDown() {
        try {
            engine.close();
        } finally {
            redis.close();
        }
    }

    private List<String> push(String topic, int n) {
        List<PushRequest> requests = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            requests.add(PushRequest.of(topic, topic + " " + i, 0));
        }
        List<String> ids = new ArrayList<>();
        for (int from = 0; from < n; from += 100) {
            engine.pushBatch(requests.subList(from, Math.min(n, from + 100))).forEach(r -> ids.add(r.id()));
        }
        return ids;
    }

    private boolean all(List<String> ids, Predicate<Job> condition) {
        return ids.stream().map(engine::get).allMatch(condition);
    }

    @Test
    void jobs_of_other_topics_are_delivered_while_a_hung_receiver_holds_no_more_than_its_limits() {
        // the hung topics come due first, so they are in the way of the healthy topic's jobs
        List<String> hungIds = push(HUNG_TOPIC, HUNG_JOBS);
        List<String> hungIds2 = push(HUNG_TOPIC_2, HUNG_JOBS);
        List<String> otherIds = push(OTHER_TOPIC, OTHER_JOBS);

        await("every job of the healthy topic finished while the other receiver hangs")
                .atMost(Duration.ofSeconds(30))
                .until(() -> all(otherIds, j -> j.status() == JobStatus.FINISHED));

        assertThat(healthy.ids()).hasSize(OTHER_JOBS).containsExactlyInAnyOrderElementsOf(otherIds);
        // share of each dispatcher: (150 - 50) / 2 = 50; each topic at most 40
        assertThat(hung.maxOpen()).as("sends open at once on the hung receiver").isLessThanOrEqualTo(50);
        assertThat(engine.dispatchLanes().inFlightOfTopic(HUNG_TOPIC)).isLessThanOrEqualTo(PER_TOPIC);
        assertThat(engine.dispatchLanes().inFlightOfTopic(HUNG_TOPIC_2)).isLessThanOrEqualTo(PER_TOPIC);
        List<String> allHung = new ArrayList<>(hungIds);
        allHung.addAll(hungIds2);
        assertThat(allHung).allSatisfy(id -> {
            Job job = engine.get(id);
            assertThat(job.status()).isIn(JobStatus.DELAY, JobStatus.RESERVED);
            assertThat(job.attempts())
                    .as("attempts of %s: a job never sent is no failed attempt", id)
                    .isZero();
        });
        assertThat(engine.stats().dispatchFailures()).isZero();

        hung.recover();

        await("every job of the hung receiver finished once it recovered")
                .atMost(Duration.ofSeconds(60))
                .until(() -> all(allHung, j -> j.status() == JobStatus.FINISHED));
        Map<String, Integer> sends = new HashMap<>();
        hung.ids().forEach(id -> sends.merge(id, 1, Integer::sum));
        assertThat(sends.keySet()).isEqualTo(new HashSet<>(allHung));
        assertThat(sends)
                .allSatisfy((id, n) -> assertThat(n).as("sends of %s", id).isEqualTo(1));
        assertThat(allHung)
                .allSatisfy(id -> assertThat(engine.get(id).attempts()).isZero());
    }

    @Test
    void a_topic_whose_callbacks_hang_leaves_room_for_other_topics_of_the_same_dispatcher() {
        List<String> stuck = push(HUNG_TOPIC, HUNG_JOBS);
        await("the hung topic filled its lane").atMost(Duration.ofSeconds(10)).until(() -> hung.open() == PER_TOPIC);

        // the second topic of the same (hung) dispatcher still gets its own sends out
        List<String> second = push(HUNG_TOPIC_2, 10);
        await("the other topic of the same dispatcher was handed over")
                .atMost(Duration.ofSeconds(10))
                .until(() -> new HashSet<>(hung.ids()).containsAll(second));

        assertThat(Set.copyOf(stuck)).hasSize(HUNG_JOBS);
        hung.recover();
        await("everything finished after the receiver recovered")
                .atMost(Duration.ofSeconds(60))
                .until(() -> all(stuck, j -> j.status() == JobStatus.FINISHED)
                        && all(second, j -> j.status() == JobStatus.FINISHED));
    }
}
