package io.delayqueue.e2e.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.core.DelayQueueApplication;
import io.delayqueue.core.WarmUp;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.RecordingDispatcherConfig;
import io.delayqueue.e2e.support.RedisClusterFixture;
import io.delayqueue.e2e.support.RedisServerProcess;
import io.delayqueue.e2e.support.StaticResources;
import io.delayqueue.queue.dispatch.http.HttpCallbackSettings;
import io.delayqueue.queue.engine.EngineConfig;
import io.delayqueue.queue.engine.WarmUpSettings;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.store.DueBatch;
import io.delayqueue.queue.store.DueRouting;
import io.delayqueue.queue.store.redis.RedisJobStore;
import io.delayqueue.queue.store.redis.ReplicaWait;
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
import java.util.UUID;
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
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.UnifiedJedis;

/**
 * The service on a Redis Cluster of three masters that the test starts (Debian's redis-server on loopback
 * ports), through {@code delay.redis.cluster.nodes}: the whole path of a job (push, due, dispatch, pull,
 * finish, delete, TTR expiry) runs against {@link JedisCluster}, whose every script call is routed by the
 * slot of the shard's hash tag. The cluster is new for this class, so the default key prefix is used.
 */
@ExtendWith(StaticResources.class)
@SpringBootTest(
        classes = DelayQueueApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "delay.dispatch.default=" + RecordingDispatcher.NAME,
            "delay.dispatch.topics.cluster-pull=pull",
            // a journal of this class's own (in memory), gone with its context
            "spring.datasource.url=jdbc:h2:mem:ha-redis-cluster;MODE=MySQL;DATABASE_TO_LOWER=TRUE;CASE_INSENSITIVE_IDENTIFIERS=TRUE"
        })
@Import(RecordingDispatcherConfig.class)
@DirtiesContext
class RedisClusterTest {
    private static final String PULL = "cluster-pull";
    private static RedisClusterFixture cluster;

    @DynamicPropertySource
    static void redisCluster(DynamicPropertyRegistry registry) {
        cluster = new RedisClusterFixture(3);
        registry.add("delay.redis.cluster.nodes", cluster::nodes);
    }

    @LocalServerPort
    int port;

    @Autowired
    RecordingDispatcher recorder;

    @Autowired
    UnifiedJedis redis;

    @Test
    void the_service_talks_to_the_cluster_and_spreads_its_shards_over_the_masters() {
        Api api = new Api(port);
        for (int i = 0; i < 200; i++) {
            assertThat(api.postJson("/push", Map.of("topic", "spread", "body", "b" + i, "delay", 60_000))
                            .status())
                    .isEqualTo(200);
        }

        assertThat(redis).isInstanceOf(JedisCluster.class);
        int mastersWithKeys = 0;
        for (RedisServerProcess node : cluster.servers()) {
            try (Jedis jedis = node.connect()) {
                mastersWithKeys += jedis.dbSize() > 0 ? 1 : 0;
            }
        }
        assertThat(mastersWithKeys).as("masters holding shards").isGreaterThanOrEqualTo(2);
        Api.Response health = api.get("/actuator/health");
        assertThat(health.status()).as("health: %s", health).isEqualTo(200);
        Api.Response stats = api.get("/stats");
        assertThat(stats.status()).isEqualTo(200);
        assertThat(stats.data().path("byStatus").path("DELAY").asLong()).isEqualTo(200);
        assertThat(stats.data().path("role").asText()).isEqualTo("standalone");
    }

    @Autowired
    EngineConfig config;

    @Autowired
    Journal journal;

    @Test
    void the_warm_up_runs_on_the_cluster_and_deletes_its_keys_and_a_killed_warm_ups_on_every_master() throws Exception {
        // a killed warm-up's keys, one per shard: spread over the masters
        List<String> killed = new ArrayList<>();
        for (int shard = 0; shard < config.shards(); shard++) {
            String key = "{" + config.redisPrefix() + ":warm-up:1000-killed:" + shard + "}:pool";
            redis.hset(key, "x", "y");
            killed.add(key);
        }
        WarmUp warmUp = new WarmUp(
                config,
                redis,
                journal,
                HttpCallbackSettings.defaults(),
                ReplicaWait.NONE,
                false,
                Clock.systemUTC(),
                new WarmUpSettings(true, Duration.ofSeconds(5), 500),
                WarmUp.Metrics.NONE);

        WarmUp.Report report = warmUp.run();

        assertThat(report.jobs()).isGreaterThanOrEqualTo(500);
        assertThat(killed).allSatisfy(key -> assertThat(redis.exists(key)).isFalse());
        for (RedisServerProcess node : cluster.servers()) {
            try (Jedis jedis = node.connect()) {
                assertThat(jedis.keys("*warm-up*"))
                        .as("warm-up keys on %s", node)
                        .isEmpty();
            }
        }
    }

    @Test
    void pushed_jobs_are_dispatched_once_at_their_due_time_and_finished() {
        Api api = new Api(port);
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 300; i++) {
            Api.Response r = api.postJson("/push", Map.of("topic", "due", "body", "d" + i, "delay", i * 5));
            assertThat(r.status()).as("push: %s", r).isEqualTo(200);
            ids.add(r.data().asText());
        }

        await("every job was dispatched")
                .atMost(Duration.ofSeconds(30))
                .until(() -> recorder.deliveriesOf(ids).size() >= ids.size());
        List<RecordingDispatcher.Delivery> deliveries = recorder.deliveriesOf(ids);
        assertThat(RecordingDispatcher.countById(deliveries).values()).containsOnly(1);
        assertThat(deliveries).allSatisfy(d -> assertThat(d.wallMs()).isGreaterThanOrEqualTo(d.executeAt()));
        for (String id : ids.stream().limit(20).toList()) {
            await(id + " is FINISHED").atMost(Duration.ofSeconds(10)).until(() -> status(api, id)
                    .equals("FINISHED"));
        }
    }

    @Test
    void a_pull_consumer_reserves_finishes_and_gets_an_unfinished_job_back_after_its_ttr() {
        Api api = new Api(port);
        String done = api.postJson("/push", Map.of("topic", PULL, "body", "finish me", "delay", 300))
                .data()
                .asText();
        JsonNode first = api.get("/get/" + PULL + "?timeout=10000").data();
        assertThat(first.path("id").asText()).isEqualTo(done);
        assertThat(api.post("/jobs/" + done + "/finish", null).status()).isEqualTo(200);
        assertThat(status(api, done)).isEqualTo("FINISHED");

        String again = api.postJson("/push", Map.of("topic", PULL, "body", "forget me", "ttr", 500))
                .data()
                .asText();
        JsonNode reserved = api.get("/get/" + PULL + "?timeout=10000").data();
        assertThat(reserved.path("id").asText()).isEqualTo(again);
        assertThat(reserved.path("attempts").asInt()).isZero();
        JsonNode back = api.get("/get/" + PULL + "?timeout=10000").data();
        assertThat(back.path("id").asText())
                .as("the job came back after its ttr")
                .isEqualTo(again);
        assertThat(back.path("attempts").asInt()).isEqualTo(1);
        assertThat(api.get("/finish?jobId=" + again).status()).isEqualTo(200);
    }

    @Test
    void a_batch_pull_and_a_batch_finish_span_the_shards_on_every_master() {
        Api api = new Api(port);
        List<Map<String, Object>> jobs = new java.util.ArrayList<>();
        for (int i = 0; i < 60; i++) {
            jobs.add(Map.of("topic", PULL, "body", "batch " + i));
        }
        Set<String> pushed = new HashSet<>();
        api.postJson("/push/batch", jobs).data().forEach(id -> pushed.add(id.asText()));
        List<Map<String, Object>> finishes = new java.util.ArrayList<>();
        await("every job reserved in batches").atMost(Duration.ofSeconds(20)).until(() -> {
            api.get("/get/" + PULL + "?timeout=1000&count=25")
                    .data()
                    .forEach(j -> finishes.add(Map.of(
                            "id",
                            j.path("id").asText(),
                            "attempts",
                            j.path("attempts").asInt())));
            return finishes.size() >= pushed.size();
        });
        assertThat(finishes).extracting(f -> f.get("id")).doesNotHaveDuplicates();
        assertThat(finishes.stream().map(f -> (String) f.get("id")).collect(java.util.stream.Collectors.toSet()))
                .isEqualTo(pushed);

        Api.Response finished = api.postJson("/jobs/finish", finishes);

        assertThat(finished.status()).as("batch finish: %s", finished).isEqualTo(200);
        finished.data()
                .forEach(o -> assertThat(o.path("outcome").asText()).as("%s", o).isEqualTo("FINISHED"));
        for (String id : pushed.stream().limit(10).toList()) {
            assertThat(status(api, id)).isEqualTo("FINISHED");
        }
    }

    @Test
    void a_deleted_job_is_never_dispatched() {
        Api api = new Api(port);
        String id = api.postJson("/push", Map.of("topic", "gone", "body", "cancel me", "delay", 1_000))
                .data()
                .asText();
        assertThat(api.delete("/jobs/" + id).status()).isEqualTo(200);
        String marker = api.postJson("/push", Map.of("topic", "gone", "body", "after it", "delay", 1_500))
                .data()
                .asText();

        await("a job due after the deleted one was dispatched")
                .atMost(Duration.ofSeconds(30))
                .until(() -> !recorder.deliveriesOf(Set.of(marker)).isEmpty());
        assertThat(recorder.deliveriesOf(Set.of(id))).isEmpty();
        assertThat(status(api, id)).isEqualTo("DELETED");
    }

    /**
     * The store's topic handling on the cluster: jobs of more pull topics than one script reply names move over
     * several runs (each declaring its topic keys), their ready lists are counted through a pipeline of the
     * cluster, the dead sets of many topics are counted at once, and clear empties the ready lists in pages.
     */
    @Test
    void a_store_of_many_topics_moves_counts_and_clears_them_on_the_cluster() {
        int shards = 4;
        int topics = 300;
        // moved through the store alone, without an engine to replay the journal onto the cluster's masters first
        RedisJobStore store = RedisFixture.agreed(
                new RedisJobStore(redis, "topics-" + UUID.randomUUID(), shards, Duration.ofMinutes(1), false));
        long now = System.currentTimeMillis();
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < topics; i++) {
            jobs.add(new Job(
                    "job-" + i, "t-" + i, null, null, "b", now - 1, 30_000, 3, null, 0, now, JobStatus.DELAY, 0));
        }
        jobs.add(new Job("dead-0", "t-0", null, null, "b", now, 30_000, 3, null, 0, now, JobStatus.DEAD, 3));
        jobs.add(new Job("dead-1", "t-1", null, null, "b", now, 30_000, 3, null, 0, now, JobStatus.DEAD, 3));
        assertThat(store.push(jobs)).containsOnly(true);

        DueRouting allPull = new DueRouting(true, Set.of());
        long ready = 0;
        for (int shard = 0; shard < shards; shard++) {
            DueBatch batch;
            do {
                batch = store.moveDue(shard, now, 1000, allPull, 30_000);
                ready += batch.madeReady().size();
            } while (batch.scanned() >= 1000);
        }
        assertThat(ready).isEqualTo(topics);
        Map<String, Long> readyByTopic = new HashMap<>();
        for (int shard = 0; shard < shards; shard++) {
            readyByTopic.putAll(store.stats(shard).readyByTopic());
        }
        assertThat(readyByTopic).hasSize(topics).containsEntry("t-7", 1L);
        assertThat(store.countDead(List.of("t-0", "t-1", "t-2")))
                .containsExactly(Map.entry("t-0", 1L), Map.entry("t-1", 1L), Map.entry("t-2", 0L));

        long cleared = 0;
        for (int shard = 0; shard < shards; shard++) {
            cleared += store.clear(shard, 0, 1000, now).deleted().size();
        }
        assertThat(cleared).isEqualTo(topics);
    }

    private static String status(Api api, String id) {
        return api.get("/jobs/" + id).data().path("status").asText();
    }
}
