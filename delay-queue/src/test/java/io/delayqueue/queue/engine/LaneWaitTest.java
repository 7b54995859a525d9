package io.delayqueue.queue.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.common.PushRequest;
import io.delayqueue.queue.coordination.StandaloneCoordinator;
import io.delayqueue.queue.dispatch.Dispatcher;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.testing.RecordingEngineListener;
import io.delayqueue.queue.testing.RedisFixture;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A started engine on the system clock whose dispatcher confirms each send a little later, on a thread of its
 * own, so that a topic's in-flight limit is really reached: jobs beyond it wait for a slot and are sent as slots
 * free, none is put back; a topic whose receiver hangs delays none of another topic's jobs, loses none of its own,
 * and counts as handed over only what it was handed.
 */
class LaneWaitTest {
    private static final String BURST = "burst";
    private static final String STALLED = "stalled";
    private static final String OTHER = "other";
    private static final int PER_TOPIC = 20;

    private RedisFixture redis;
    private DelayQueueEngine engine;
    private final RecordingEngineListener listener = new RecordingEngineListener();
    private final LaterDispatcher dispatcher = new LaterDispatcher();

    /** Confirms each send on its own thread, except those of {@link #STALLED} while it hangs. */
    private static final class LaterDispatcher implements Dispatcher {
        private final ExecutorService confirmer = Executors.newSingleThreadExecutor();
        private final Map<String, Integer> sends = new HashMap<>();
        private final List<CompletableFuture<Void>> hung = new ArrayList<>();
        private final Map<String, Integer> open = new HashMap<>();
        private final Map<String, Integer> maxOpen = new HashMap<>();
        private boolean hanging = true;

        @Override
        public String name() {
            return "later";
        }

        @Override
        public synchronized CompletionStage<Void> dispatch(Job job) {
            sends.merge(job.id(), 1, Integer::sum);
            int now = open.merge(job.topic(), 1, Integer::sum);
            maxOpen.merge(job.topic(), now, Math::max);
            CompletableFuture<Void> send = new CompletableFuture<>();
            if (hanging && job.topic().equals(STALLED)) {
                hung.add(send);
            } else {
                confirmer.execute(() -> confirm(job.topic(), send));
            }
            return send;
        }

        /** Counts the send closed before confirming it: the engine may hand out its slot while confirming. */
        private void confirm(String topic, CompletableFuture<Void> send) {
            synchronized (this) {
                open.merge(topic, -1, Integer::sum);
            }
            send.complete(null);
        }

        void recover() {
            List<CompletableFuture<Void>> toConfirm;
            synchronized (this) {
                hanging = false;
                toConfirm = new ArrayList<>(hung);
                hung.clear();
            }
            toConfirm.forEach(f -> confirm(STALLED, f));
        }

        synchronized Map<String, Integer> sends() {
            return Map.copyOf(sends);
        }

        synchronized int maxOpen(String topic) {
            return maxOpen.getOrDefault(topic, 0);
        }

        synchronized int hungNow() {
            return hung.size();
        }

        @Override
        public void close() {
            confirmer.shutdownNow();
        }
    }

    private void start(Duration dispatchTimeout) {
        redis = new RedisFixture();
        EngineConfig config = EngineConfig.DEFAULTS
                .withShards(2)
                .withRedisPrefix(redis.prefix())
                .withScanner(s -> s.withBatchSize(50))
                .withDispatch(d -> d.withMaxInFlight(2_000)
                        .withMaxInFlightPerTopic(PER_TOPIC)
                        .withTimeout(dispatchTimeout)
                        .withDefaultDispatcher(dispatcher.name()));
        engine = new DelayQueueEngine(
                config,
                redis.store(config.shards(), config.retention()),
                List.of(dispatcher),
                new StandaloneCoordinator(),
                Journal.NONE,
                Clock.systemUTC());
        engine.setListener(listener);
        engine.start();
    }

    @AfterEach
    void tearDown() {
        try {
            if (engine != null) {
                engine.close();
            }
        } finally {
            dispatcher.close();
            if (redis != null) {
                redis.close();
            }
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

    private boolean allFinished(List<String> ids) {
        return ids.stream().map(engine::get).allMatch(j -> j.status() == JobStatus.FINISHED);
    }

    @Test
    void a_burst_larger_than_its_topics_in_flight_limit_waits_for_slots_and_is_delivered_without_a_put_back() {
        start(Duration.ofSeconds(30));

        List<String> ids = push(BURST, 600);

        await("every job of the burst finished").atMost(Duration.ofSeconds(60)).until(() -> allFinished(ids));
        assertThat(dispatcher.sends()).as("each job sent once").hasSize(600).allSatisfy((id, n) -> assertThat(n)
                .isEqualTo(1));
        assertThat(dispatcher.maxOpen(BURST)).isLessThanOrEqualTo(PER_TOPIC);
        assertThat(engine.putBacks()).as("jobs put back for want of room").isZero();
        assertThat(ids).allSatisfy(id -> assertThat(engine.get(id).attempts()).isZero());
        assertThat(listener.count("handedOver " + BURST))
                .as("hand-overs counted")
                .isEqualTo(600);
    }

    @Test
    void a_stalled_receiver_delays_no_other_topic_loses_nothing_and_counts_only_what_it_was_handed() {
        // a short dispatch timeout makes the lane wait (a quarter of it) short: the stalled topic's waiting jobs are
        // put back while its receiver hangs
        start(Duration.ofSeconds(8));
        List<String> stalled = push(STALLED, 300);
        await("the stalled topic filled its lane")
                .atMost(Duration.ofSeconds(10))
                .until(() -> dispatcher.hungNow() == PER_TOPIC);

        List<String> other = push(OTHER, 200);

        await("every job of the other topic finished while the receiver of the first hangs")
                .atMost(Duration.ofSeconds(30))
                .until(() -> allFinished(other));
        assertThat(dispatcher.hungNow())
                .as("sends open on the stalled receiver")
                .isEqualTo(PER_TOPIC);
        await("the jobs that waited for the stalled topic were put back")
                .atMost(Duration.ofSeconds(30))
                .until(() -> engine.putBacks() > 0);

        dispatcher.recover();

        await("every job of the stalled topic finished once its receiver recovered")
                .atMost(Duration.ofSeconds(60))
                .until(() -> allFinished(stalled));
        Map<String, Integer> sends = dispatcher.sends();
        long stalledSends = stalled.stream().mapToLong(sends::get).sum();
        assertThat(listener.count("handedOver " + STALLED))
                .as("a put-back is not a hand-over: one per send")
                .isEqualTo(stalledSends);
        assertThat(listener.count("handedOver " + OTHER)).isEqualTo(200);
    }
}
