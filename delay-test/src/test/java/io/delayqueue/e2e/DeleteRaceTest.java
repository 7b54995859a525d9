package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.RecordingDispatcherConfig;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.ServiceTest;
import io.delayqueue.queue.engine.DelayQueueEngine;
import io.delayqueue.queue.testing.RecordingDispatcher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Deletes racing the scanner: every job gets one delete fired within 15 ms of its due time, so some land
 * before the move, some while the job is being sent (RESERVED) and some after the acknowledgement.
 *
 * <p>The 10,000 jobs come in ten rounds of 1000, each round due over one second, so that a slow machine
 * (two cores, shared with other builds) delays one round's deletes at most instead of letting the lag pile
 * up over the whole run. A quarter of the deletes go over HTTP ({@code DELETE /jobs/{id}} and {@code GET
 * /delete}), the rest call the engine bean directly, which is cheap enough to keep every delete on time.
 */
@ServiceTest(properties = "delay.dispatch.default=" + RecordingDispatcher.NAME)
@Import(RecordingDispatcherConfig.class)
class DeleteRaceTest {
    static final ServiceStores STORES = ServiceStores.redisAndJournal("race");
    private static final String TOPIC = "e2e.race";
    private static final int ROUNDS = 10;
    private static final int PER_ROUND = 1000;
    private static final int JOBS = ROUNDS * PER_ROUND;
    private static final long LEAD_MS = 300;
    private static final int SPREAD_MS = 1000;
    private static final int JITTER_MS = 15;

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        STORES.register(registry);
    }

    @LocalServerPort
    int port;

    @Autowired
    RecordingDispatcher recorder;

    @Autowired
    DelayQueueEngine engine;

    private Api api;
    private final Map<String, Integer> outcome = new ConcurrentHashMap<>();
    private final Map<String, String> refusedAs = new ConcurrentHashMap<>();
    private final List<String> unexpected = Collections.synchronizedList(new ArrayList<>());
    private final ConcurrentLinkedQueue<Long> lateMs = new ConcurrentLinkedQueue<>();
    private final AtomicInteger viaHttp = new AtomicInteger();

    @Test
    void a_job_whose_delete_succeeded_is_never_delivered_and_every_other_is_delivered_exactly_once() throws Exception {
        api = new Api(port);
        long seed = System.nanoTime();
        Random random = new Random(seed);
        warmUp();

        Set<String> pushed = new HashSet<>();
        ScheduledThreadPoolExecutor deleters = new ScheduledThreadPoolExecutor(12);
        long started = System.nanoTime();
        try {
            for (int round = 0; round < ROUNDS; round++) {
                Map<String, Long> dueById = pushRound(round, random);
                pushed.addAll(dueById.keySet());
                CountDownLatch done = new CountDownLatch(dueById.size());
                int i = 0;
                for (var entry : dueById.entrySet()) {
                    long fireAt = entry.getValue() + random.nextInt(2 * JITTER_MS + 1) - JITTER_MS;
                    int route = i++ % 8; // 1: GET /delete, 5: DELETE /jobs/{id}, else the engine bean
                    deleters.schedule(
                            () -> {
                                try {
                                    deleteOnce(entry.getKey(), route, fireAt);
                                } finally {
                                    done.countDown();
                                }
                            },
                            fireAt - System.currentTimeMillis(),
                            TimeUnit.MILLISECONDS);
                }
                assertThat(done.await(60, TimeUnit.SECONDS))
                        .as("deletes of round %d answered", round)
                        .isTrue();
            }
        } finally {
            deleters.shutdownNow();
        }
        long raceMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertThat(pushed).hasSize(JOBS);
        assertThat(unexpected).as("answers other than 200 or 409").isEmpty();

        Set<String> deleted = new HashSet<>();
        Set<String> refused = new HashSet<>();
        outcome.forEach((id, status) -> (status == 200 ? deleted : refused).add(id));
        assertThat(deleted.size() + refused.size()).isEqualTo(JOBS);
        Set<String> answered = new HashSet<>(deleted);
        answered.addAll(refused);
        assertThat(answered).isEqualTo(pushed);

        // wait until nothing is pending any more: every job is DELETED, or FINISHED once its send was confirmed
        await("no job is left DELAY, READY or RESERVED")
                .atMost(Duration.ofSeconds(20))
                .untilAsserted(
                        () -> assertThat((api.countOf("DELAY") + api.countOf("READY") + api.countOf("RESERVED") == 0))
                                .as(() -> "no job is left DELAY, READY or RESERVED" + " "
                                        + (api.get("/stats").raw()))
                                .isTrue());

        Map<String, Integer> deliveries = RecordingDispatcher.countById(recorder.deliveries());
        long refusedWhileReserved =
                refusedAs.values().stream().filter("RESERVED"::equals).count();
        long[] late = lateMs.stream().mapToLong(Long::longValue).sorted().toArray();
        System.out.println("E2E delete race: " + JOBS + " deletes in " + raceMs + " ms (" + viaHttp.get()
                + " over HTTP): 200 deleted=" + deleted.size() + ", 409 refused=" + refused.size()
                + " (while RESERVED=" + refusedWhileReserved + ", once FINISHED="
                + (refused.size() - refusedWhileReserved) + "), delivered=" + deliveries.size()
                + "; deletes fired after their planned time by p50=" + late[late.length / 2] + " p99="
                + late[late.length * 99 / 100] + " ms; seed=" + seed);

        Set<String> deletedButDelivered = new HashSet<>(deleted);
        deletedButDelivered.retainAll(deliveries.keySet());
        assertThat(deletedButDelivered)
                .as("jobs delivered although their delete answered 200")
                .isEmpty();
        assertThat(deliveries.keySet()).as("delivered jobs").isEqualTo(refused);
        assertThat(deliveries)
                .allSatisfy((id, n) -> assertThat(n).as("deliveries of %s", id).isEqualTo(1));
        assertThat(api.countOf("DELETED")).isEqualTo(deleted.size());
        assertThat(api.countOf("FINISHED")).isEqualTo(refused.size());
        // the race was real: deletes landed on both sides of the hand-over
        assertThat(deleted).as("deletes that won").isNotEmpty();
        assertThat(refused).as("deletes that lost").isNotEmpty();

        // the job records agree with the answers
        deleted.stream().limit(20).forEach(id -> assertThat(
                        api.get("/jobs/" + id).data().path("status").asText())
                .isEqualTo("DELETED"));
        refused.stream().limit(20).forEach(id -> assertThat(
                        api.get("/jobs/" + id).data().path("status").asText())
                .isEqualTo("FINISHED"));
    }

    /** Pushes one round over HTTP, due over the second after a short lead; returns id -> executeAt. */
    private Map<String, Long> pushRound(int round, Random random) {
        long base = System.currentTimeMillis() + LEAD_MS;
        List<Map<String, Object>> batch = new ArrayList<>();
        for (int i = 0; i < PER_ROUND; i++) {
            Map<String, Object> job = new LinkedHashMap<>();
            job.put("topic", TOPIC);
            job.put("body", "race " + round + "/" + i);
            job.put("executeAt", base + random.nextInt(SPREAD_MS));
            batch.add(job);
        }
        Api.Response r = api.postJson("/push/batch", batch);
        assertThat(r.status()).as("batch push: %s", r).isEqualTo(200);
        assertThat(r.message()).isEqualTo(PER_ROUND + " created, 0 already existed");
        Map<String, Long> dueById = new LinkedHashMap<>();
        for (int i = 0; i < PER_ROUND; i++) {
            dueById.put(r.data().get(i).asText(), (Long) batch.get(i).get("executeAt"));
        }
        assertThat(dueById).hasSize(PER_ROUND);
        return dueById;
    }

    private void deleteOnce(String id, int route, long plannedAt) {
        lateMs.add(System.currentTimeMillis() - plannedAt);
        try {
            int status;
            String message;
            if (route == 1 || route == 5) {
                Api.Response r = route == 1 ? api.get("/delete?jobId=" + id) : api.delete("/jobs/" + id);
                viaHttp.incrementAndGet();
                status = r.status();
                message = r.message();
                if (r.code() != status || r.success() != (status == 200)) {
                    unexpected.add(id + ": envelope does not match the status: " + r);
                }
            } else {
                try {
                    engine.delete(id);
                    status = 200;
                    message = "deleted";
                } catch (DelayQueueException e) {
                    status = e.httpStatus();
                    message = e.getMessage();
                }
            }
            outcome.put(id, status);
            if (status == 409) {
                refusedAs.put(id, message.contains("RESERVED") ? "RESERVED" : message);
            } else if (status != 200) {
                unexpected.add(id + ": " + status + " " + message);
            }
        } catch (RuntimeException e) {
            unexpected.add(id + ": " + e);
        }
    }

    /**
     * A cold HTTP path is several times slower than a warm one; warm it with deletes of unknown ids, which
     * write nothing.
     */
    private void warmUp() throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(12);
        try {
            CountDownLatch done = new CountDownLatch(2000);
            AtomicInteger notFound = new AtomicInteger();
            for (int i = 0; i < 2000; i++) {
                String id = "warm-up-" + i;
                boolean viaPath = i % 2 == 0;
                pool.execute(() -> {
                    try {
                        Api.Response r = viaPath ? api.delete("/jobs/" + id) : api.get("/delete?jobId=" + id);
                        if (r.status() == 404) {
                            notFound.incrementAndGet();
                        }
                    } finally {
                        done.countDown();
                    }
                });
            }
            assertThat(done.await(30, TimeUnit.SECONDS)).as("warm-up finished").isTrue();
            assertThat(notFound.get()).as("deletes of unknown ids answered 404").isEqualTo(2000);
        } finally {
            pool.shutdownNow();
        }
    }
}
