package io.delayqueue.e2e;

import static io.delayqueue.e2e.DeadLetterDeleteTest.deadLetters;
import static io.delayqueue.e2e.DeadLetterDeleteTest.statusOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.common.JobIds;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.RecordingDispatcherConfig;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.ServiceTest;
import io.delayqueue.queue.engine.EngineConfig;
import io.delayqueue.queue.engine.retention.DeadLetterPurger;
import io.delayqueue.queue.testing.RecordingDispatcher;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import redis.clients.jedis.params.ZAddParams;

/**
 * {@code delay.dead.retention}: dead letters whose last delivery was due longer ago than it are deleted by the
 * service itself ({@code DELETED} in the journal, then in Redis), younger ones stay, and a restore after Redis lost
 * everything brings none of the deleted back.
 */
@ServiceTest(
        properties = {
            "delay.dispatch.default=" + RecordingDispatcher.NAME,
            "delay.dead.retention=1h",
            "delay.journal.purge-interval=100ms"
        })
@Import(RecordingDispatcherConfig.class)
class DeadLetterRetentionTest {
    static final ServiceStores STORES = ServiceStores.redisAndJournal("dead-retention");
    private static final Duration WAIT = Duration.ofSeconds(30);

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        STORES.register(registry);
    }

    @LocalServerPort
    int port;

    @Autowired
    RecordingDispatcher recorder;

    @Test
    void dead_letters_past_the_retention_are_deleted_and_younger_ones_stay() {
        recorder.failSends(true);
        Api api = new Api(port);
        String topic = "dead.retention";
        List<String> old = deadLetters(api, topic, 3, System.currentTimeMillis());
        List<String> young = deadLetters(api, topic, 2, System.currentTimeMillis());
        // a dead letter's age is its last due time, its score in its topic's dead set: two hours ago for these
        // (a push due in the past is due now, so the test ages them where the service reads the age)
        long twoHoursAgo = System.currentTimeMillis() - Duration.ofHours(2).toMillis();
        for (String id : old) {
            String deadSet = STORES.redis().keys().dead(JobIds.shardOf(id, EngineConfig.DEFAULT_SHARDS), topic);
            assertThat(STORES.redis()
                            .redis()
                            .zadd(
                                    deadSet,
                                    twoHoursAgo,
                                    id,
                                    ZAddParams.zAddParams().xx().ch()))
                    .isEqualTo(1);
        }

        // Redis shows a delete as soon as it began; the journal once it is committed
        await("the old dead letters are deleted in the journal").atMost(WAIT).until(() -> old.stream()
                .allMatch(id -> DeadLetterDeleteTest.journaled(STORES, id).equals("DELETED")));

        for (String id : old) {
            assertThat(statusOf(api, id)).isEqualTo("DELETED");
            assertThat(STORES.journal()
                            .queryStrings("SELECT detail FROM delay_queue_job_log WHERE job_id = '" + id
                                    + "' AND to_status = 'DELETED'"))
                    .containsExactly(DeadLetterPurger.DETAIL);
        }
        young.forEach(id -> assertThat(statusOf(api, id)).as(id).isEqualTo("DEAD"));
        assertThat(api.get("/dead/" + topic).data().path("total").asLong()).isEqualTo(2);

        assertThat(STORES.redis().deleteAllKeys()).isPositive();
        assertThat(api.get("/reStore?expire=true").status()).isEqualTo(200);
        assertThat(api.get("/dead/" + topic).data().path("total").asLong())
                .as("the young dead letters are restored, the deleted ones are not")
                .isEqualTo(2);
        old.forEach(id -> assertThat(statusOf(api, id)).as(id).isEqualTo("DELETED"));
        young.forEach(id -> assertThat(statusOf(api, id)).as(id).isEqualTo("DEAD"));
    }
}
