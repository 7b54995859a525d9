package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.RecordingDispatcherConfig;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.ServiceTest;
import io.delayqueue.queue.engine.EngineConfig;
import io.delayqueue.queue.journal.JobCursor;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.testing.ForwardingJournal;
import io.delayqueue.queue.testing.RecordingDispatcher;
import io.delayqueue.queue.testing.TestIds;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Issue 19 item 3 over HTTP, on the real Redis and MariaDB: Redis loses a shard's load intent while the loader
 * reads the journal (restarted empty, or a replica that never got the raise took over), and a far push committed
 * then, due within the intent the read was made under, is left to the loader. The page read under the lost intent
 * must not move the cursor past that job: it is loaded ahead of its due time by the next pass, not restored by the
 * reconciler once overdue. The interleaving is fixed: the service's journal runs the loss and the push (over
 * HTTP) right after the loader's read of the shard.
 */
@ServiceTest(properties = {"delay.dispatch.default=" + RecordingDispatcher.NAME, "delay.tier.horizon=2s"})
@Import({RecordingDispatcherConfig.class, TierIntentLossTest.TrapConfig.class})
class TierIntentLossTest {
    static final ServiceStores STORES = ServiceStores.redisAndJournal("tierloss");
    /** Runs once, with the shard, right after the loader's next read of that shard. */
    static final AtomicReference<ReadTrap> TRAP = new AtomicReference<>();

    record ReadTrap(int shard, IntConsumer action) {}

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        STORES.register(registry);
    }

    /** Wraps the service's journal so that a test can act between the loader's read and its load. */
    @TestConfiguration(proxyBeanMethods = false)
    static class TrapConfig {
        @Bean
        static BeanPostProcessor trapLoaderReads() {
            return new BeanPostProcessor() {
                @Override
                public Object postProcessAfterInitialization(Object bean, String name) {
                    return bean instanceof Journal journal && name.equals("journal") ? trapped(journal) : bean;
                }
            };
        }

        private static Journal trapped(Journal journal) {
            return new ForwardingJournal(journal) {
                @Override
                public List<JobCursor> delayedKeysOfShard(int shard, JobCursor after, long dueAtMost, int limit) {
                    List<JobCursor> page = super.delayedKeysOfShard(shard, after, dueAtMost, limit);
                    ReadTrap trap = TRAP.get();
                    if (trap != null && trap.shard() == shard && TRAP.compareAndSet(trap, null)) {
                        trap.action().accept(shard);
                    }
                    return page;
                }

                @Override
                public void close() {
                    journal.close();
                }
            };
        }
    }

    @LocalServerPort
    int port;

    @Autowired
    RecordingDispatcher recorder;

    @Autowired
    EngineConfig engineConfig;

    @Test
    void a_far_push_committed_after_redis_lost_the_intent_mid_read_is_loaded_ahead_of_its_due_time()
            throws InterruptedException {
        Api api = new Api(port);
        int shard = 0;
        String id = TestIds.inShard(shard, engineConfig.shards());
        String tier = "{" + STORES.prefix() + ":" + shard + "}:tier";
        // an instance whose clock is 20 s ahead raised the shard's intent: the loader reads up to it
        STORES.redis().redis().hset(tier, "intent", Long.toString(System.currentTimeMillis() + 22_000));
        CountDownLatch fired = new CountDownLatch(1);
        AtomicReference<Api.Response> latePush = new AtomicReference<>();
        TRAP.set(new ReadTrap(shard, s -> {
            STORES.redis().redis().del(tier); // Redis restarted empty, or a replica without the raise took over
            latePush.set(api.postJson(
                    "/push", Map.of("topic", "e2e.tierloss", "body", "late row", "delay", 12_000, "id", id)));
            fired.countDown();
        }));

        assertThat(fired.await(60, TimeUnit.SECONDS))
                .as("the loader read the shard")
                .isTrue();
        assertThat(latePush.get().status())
                .as("the far push: %s", latePush.get())
                .isEqualTo(200);

        await("the far job is delivered").atMost(Duration.ofSeconds(90)).until(() -> !recorder.deliveriesOf(Set.of(id))
                .isEmpty());
        // the history is journaled behind the deliveries: wait for its LOADED, then look at it whole
        await("the far job's history shows how it got into Redis")
                .atMost(Duration.ofSeconds(30))
                .until(() -> api.get("/jobs/" + id).data().path("history").findValues("event").stream()
                        .anyMatch(e -> e.asText().equals("LOADED") || e.asText().equals("RESTORED")));
        JsonNode details = api.get("/jobs/" + id).data();
        long due = details.path("job").path("executeAt").asLong();
        List<String> events = details.path("history").findValues("event").stream()
                .map(JsonNode::asText)
                .toList();
        assertThat(events)
                .as("restored by the reconciler once overdue: %s", details.path("history"))
                .doesNotContain("RESTORED");
        assertThat(details.path("history").findParents("event").stream()
                        .filter(entry -> entry.path("event").asText().equals("LOADED"))
                        .map(entry -> entry.path("at").asLong())
                        .toList())
                .as("loaded ahead of its due time %d: %s", due, details.path("history"))
                .singleElement()
                .satisfies(at -> assertThat(at).isLessThanOrEqualTo(due));
    }
}
