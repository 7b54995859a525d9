package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.client.DelayQueueClient;
import io.delayqueue.client.PushOutcome;
import io.delayqueue.client.PushRequest;
import io.delayqueue.client.PushResult;
import io.delayqueue.client.RetryPolicy;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.RecordingDispatcherConfig;
import io.delayqueue.e2e.support.RedisServerProcess;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.ServiceTest;
import io.delayqueue.queue.testing.RecordingDispatcher;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisBusyException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * A Redis that answers "not now" is unavailable, not a bug (issue 19, item 8): with the service's Redis busy
 * running a script (a real {@code BUSY} reply from a {@code redis-server} of the test's own), a push is committed
 * to the journal and answered 202 with its id, never 500, and the job is handed over once Redis answers again; the
 * Java client reports that answer as journaled, without pushing again.
 */
@ServiceTest(
        properties = {
            "delay.dispatch.default=" + RecordingDispatcher.NAME,
            "delay.journal.reconcile-interval=200ms",
            "delay.journal.reconcile-grace=500ms",
            "delay.redis.timeout=2s"
        })
@Import(RecordingDispatcherConfig.class)
class RedisNotNowTest {
    static final ServiceStores STORES = ServiceStores.redisAndJournal("notnow");
    /** Replies BUSY to everyone else 100 ms into a long script. */
    static final RedisServerProcess REDIS =
            RedisServerProcess.start("notnow", null, List.of("--busy-reply-threshold", "100"));

    private static final Duration WAIT = Duration.ofSeconds(60);

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        STORES.register(registry);
        registry.add("delay.redis.uri", () -> "redis://" + REDIS.hostAndPort());
    }

    @AfterAll
    static void stopRedis() {
        REDIS.close();
    }

    @LocalServerPort
    int port;

    @Autowired
    RecordingDispatcher recorder;

    @Test
    void a_push_while_redis_is_busy_is_answered_202_with_its_id_and_handed_over_once_redis_is_back() throws Exception {
        Api api = new Api(port);
        await("a push is answered 200")
                .atMost(WAIT)
                .until(() -> api.postJson("/push", job("notnow-probe", 60_000)).status() == 200);
        Map<String, Object> job = job("notnow", 1_500);
        job.put("id", "notnow-busy-1");
        Api.Response answer = whileRedisIsBusy(() -> api.postJson("/push", job));

        assertThat(answer.status())
                .as("answer while Redis is busy: %s", answer.raw())
                .isEqualTo(202);
        assertThat(answer.json().get("data").asText()).isEqualTo("notnow-busy-1");
        await("the job is handed over once Redis answers again").atMost(WAIT).until(() -> recorder.ids()
                .contains("notnow-busy-1"));
    }

    /**
     * The Java client against it: the push is committed to the journal and answered 202, which the client reports as
     * {@link PushOutcome#JOURNALED} without pushing again, and the job is handed over once Redis answers again.
     */
    @Test
    void a_client_push_while_redis_is_busy_ends_journaled_after_one_call_and_is_handed_over_once_redis_is_back()
            throws Exception {
        DelayQueueClient client = DelayQueueClient.builder("http://127.0.0.1:" + port)
                .retryPolicy(new RetryPolicy(5, Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ofSeconds(20)))
                .build();
        await("a push is answered 200")
                .atMost(WAIT)
                .until(() -> client.push("clbusy-probe", "probe", Duration.ofMinutes(1))
                                .outcome()
                        == PushOutcome.DURABLE);

        PushResult result =
                whileRedisIsBusy(() -> client.push(PushRequest.builder("clbusy", "journaled while Redis is busy")
                        .delay(Duration.ofMillis(1_500))
                        .build()));

        assertThat(result.outcome()).as("push: %s", result).isEqualTo(PushOutcome.JOURNALED);
        assertThat(result.status()).isEqualTo(202);
        assertThat(result.calls()).as("a 202 is not pushed again").isEqualTo(1);
        assertThat(STORES.journalStatus(result.id())).isNotNull();
        await("the job is handed over once Redis answers again").atMost(WAIT).until(() -> recorder.ids()
                .contains(result.id()));
    }

    /** {@code action}'s result, called while Redis replies BUSY to everyone (a script runs until it is killed). */
    private static <T> T whileRedisIsBusy(Callable<T> action) throws Exception {
        ExecutorService scriptRunner = Executors.newSingleThreadExecutor();
        try (Jedis watcher = REDIS.connect()) {
            Future<?> script = scriptRunner.submit(() -> {
                try (Jedis busy = REDIS.connect()) {
                    busy.eval("while true do end", 0);
                } catch (JedisDataException killed) {
                    // SCRIPT KILL ends it
                }
            });
            await("Redis answers BUSY").atMost(WAIT).until(() -> {
                try {
                    watcher.ping();
                    return false;
                } catch (JedisBusyException busy) {
                    return true;
                }
            });
            T result = action.call();
            watcher.scriptKill();
            script.get();
            return result;
        } finally {
            scriptRunner.shutdownNow();
        }
    }

    private static Map<String, Object> job(String topic, long delayMs) {
        Map<String, Object> job = new LinkedHashMap<>();
        job.put("topic", topic);
        job.put("body", "body of a " + topic + " job");
        job.put("delay", delayMs);
        return job;
    }
}
