package io.delayqueue.e2e.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.common.JobIds;
import io.delayqueue.core.DelayQueueApplication;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.RecordingDispatcherConfig;
import io.delayqueue.e2e.support.RedisClusterFixture;
import io.delayqueue.e2e.support.RedisServerProcess;
import io.delayqueue.e2e.support.StaticResources;
import io.delayqueue.queue.engine.EngineConfig;
import io.delayqueue.queue.testing.RecordingDispatcher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.MigrateParams;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * A shard's slot moved to another master of a Redis Cluster while clients push batches (every batch spans
 * several shards, so each is one pipelined round): first {@code SETSLOT IMPORTING/MIGRATING} (calls for keys
 * still on the old master run there, others are answered ASK or TRYAGAIN), then {@code MIGRATE} of its keys
 * (ASK), then {@code SETSLOT NODE} (MOVED, until the client renews its slot cache). Every push is answered
 * 200, and every job is delivered once.
 */
@ExtendWith(StaticResources.class)
@SpringBootTest(
        classes = DelayQueueApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "delay.dispatch.default=" + RecordingDispatcher.NAME,
            "spring.datasource.url=jdbc:h2:mem:ha-redis-resharding;MODE=MySQL;DATABASE_TO_LOWER=TRUE;CASE_INSENSITIVE_IDENTIFIERS=TRUE"
        })
@Import(RecordingDispatcherConfig.class)
@DirtiesContext
class RedisClusterReshardingTest {
    private static final int MASTERS = 3;
    private static final int SLOTS = 16384;
    private static final int PUSHERS = 6;
    private static final int BATCH = 12;
    /** Batches answered between two steps of the migration, so that each state is pushed into. */
    private static final int BATCHES_PER_STEP = 15;

    private static RedisClusterFixture cluster;

    @DynamicPropertySource
    static void redisCluster(DynamicPropertyRegistry registry) {
        cluster = new RedisClusterFixture(MASTERS);
        registry.add("delay.redis.cluster.nodes", cluster::nodes);
    }

    @LocalServerPort
    int port;

    @Autowired
    RecordingDispatcher recorder;

    @Autowired
    EngineConfig config;

    @Test
    void pushes_while_a_shards_slot_migrates_are_all_answered_200_and_every_job_is_delivered_once() throws Exception {
        int shard = 0;
        int slot = JedisClusterCRC16.getSlot("{" + config.redisPrefix() + ":" + shard + "}");
        // the fixture gives master i the slots [16384 i / n, 16384 (i + 1) / n)
        RedisServerProcess source = cluster.servers().get(slot * MASTERS / SLOTS);
        RedisServerProcess target = cluster.servers().get((slot * MASTERS / SLOTS + 1) % MASTERS);

        Api api = new Api(port);
        Set<String> answered = ConcurrentHashMap.newKeySet();
        AtomicInteger batches = new AtomicInteger();
        AtomicInteger ofTheShard = new AtomicInteger();
        List<String> otherAnswers = new CopyOnWriteArrayList<>();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> pushers = new ArrayList<>();
        for (int p = 0; p < PUSHERS; p++) {
            int pusher = p;
            Thread t = new Thread(
                    () -> {
                        for (int b = 0; !stop.get(); b++) {
                            List<Map<String, Object>> batch = new ArrayList<>();
                            for (int i = 0; i < BATCH; i++) {
                                Map<String, Object> job = new LinkedHashMap<>();
                                job.put("topic", "resharding");
                                job.put("body", pusher + "-" + b + "-" + i);
                                job.put("delay", 1_500);
                                batch.add(job);
                            }
                            Api.Response r = api.post("/push/batch", Api.toJson(batch));
                            if (r.status() != 200) {
                                otherAnswers.add(r.toString());
                                continue;
                            }
                            r.data().forEach(id -> {
                                answered.add(id.asText());
                                if (JobIds.shardOf(id.asText(), config.shards()) == shard) {
                                    ofTheShard.incrementAndGet();
                                }
                            });
                            batches.incrementAndGet();
                        }
                    },
                    "pusher-" + p);
            t.start();
            pushers.add(t);
        }
        try (Jedis from = source.connect();
                Jedis to = target.connect()) {
            String sourceId = from.clusterMyId();
            String targetId = to.clusterMyId();
            awaitMoreBatches(batches, otherAnswers);
            assertThat(from.clusterCountKeysInSlot(slot))
                    .as("keys of shard %d on its master", shard)
                    .isPositive();

            to.clusterSetSlotImporting(slot, sourceId);
            from.clusterSetSlotMigrating(slot, targetId);
            // A script whose keys are not all on the source (a key the shard has not created yet, say) is
            // answered TRYAGAIN from now until SETSLOT NODE, as in any resharding; pushes wait in their retries,
            // so this state is held for a moment, as a resharding tool holds it, not until batches are answered.
            awaitMoreBatches(batches, otherAnswers, Duration.ofMillis(500));

            for (List<String> keys = from.clusterGetKeysInSlot(slot, 100);
                    !keys.isEmpty();
                    keys = from.clusterGetKeysInSlot(slot, 100)) {
                from.migrate("127.0.0.1", target.port(), 0, 5_000, new MigrateParams(), keys.toArray(String[]::new));
            }
            // Its keys moved, the slot not yet: the same until SETSLOT NODE, which a resharding tool sends right
            // after the MIGRATEs.
            awaitMoreBatches(batches, otherAnswers, Duration.ofMillis(500));

            to.clusterSetSlotNode(slot, targetId);
            from.clusterSetSlotNode(slot, targetId);
            for (RedisServerProcess node : cluster.servers()) {
                if (node != source && node != target) {
                    try (Jedis other = node.connect()) {
                        other.clusterSetSlotNode(slot, targetId);
                    }
                }
            }
            awaitMoreBatches(batches, otherAnswers);
            stop.set(true);
            for (Thread t : pushers) {
                t.join();
            }
            assertThat(from.clusterCountKeysInSlot(slot))
                    .as("keys left on the old master")
                    .isZero();
            assertThat(to.clusterCountKeysInSlot(slot))
                    .as("keys on the new master")
                    .isPositive();
        } finally {
            stop.set(true);
        }

        assertThat(otherAnswers).as("answers other than 200").isEmpty();
        assertThat(ofTheShard.get()).as("jobs pushed into the migrated shard").isPositive();
        await("every job answered 200 is delivered")
                .atMost(Duration.ofSeconds(60))
                .untilAsserted(() -> assertThat((recorder.deliveriesOf(answered).size() >= answered.size()))
                        .as(() -> "every job answered 200 is delivered" + " "
                                + (recorder.deliveriesOf(answered).size() + " of " + answered.size() + " delivered"))
                        .isTrue());
        assertThat(RecordingDispatcher.countById(recorder.deliveriesOf(answered))
                        .values())
                .as("deliveries per job")
                .containsOnly(1);
        System.out.printf(
                "RedisClusterReshardingTest: %d jobs in %d batches, %d into the migrated shard; all answered 200"
                        + " and delivered once%n",
                answered.size(), batches.get(), ofTheShard.get());
    }

    /** Holds the migration's state until more batches were answered, or {@code atMost} passed. */
    private static void awaitMoreBatches(AtomicInteger batches, List<String> otherAnswers, Duration atMost) {
        int before = batches.get();
        long until = System.nanoTime() + atMost.toNanos();
        await(BATCHES_PER_STEP + " more batches are answered 200, or " + atMost.toMillis() + " ms pass")
                .atMost(Duration.ofSeconds(60))
                .untilAsserted(() -> assertThat((batches.get() >= before + BATCHES_PER_STEP
                                || !otherAnswers.isEmpty()
                                || System.nanoTime() - until > 0))
                        .as(() -> BATCHES_PER_STEP + " more batches are answered 200, or " + atMost.toMillis()
                                + " ms pass" + " " + (batches.get() - before + " answered; " + otherAnswers))
                        .isTrue());
    }

    private static void awaitMoreBatches(AtomicInteger batches, List<String> otherAnswers) {
        int before = batches.get();
        await(BATCHES_PER_STEP + " more batches are answered 200")
                .atMost(Duration.ofSeconds(60))
                .untilAsserted(() -> assertThat((batches.get() >= before + BATCHES_PER_STEP || !otherAnswers.isEmpty()))
                        .as(() -> BATCHES_PER_STEP + " more batches are answered 200" + " "
                                + (batches.get() - before + " answered; " + otherAnswers))
                        .isTrue());
    }
}
