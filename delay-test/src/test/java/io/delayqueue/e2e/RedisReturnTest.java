package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.RecordingDispatcherConfig;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.ServiceTest;
import io.delayqueue.e2e.support.TcpProxy;
import io.delayqueue.queue.testing.RecordingDispatcher;
import io.delayqueue.queue.testing.RedisFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A push answered 202 (committed, Redis unavailable) reaches Redis as soon as Redis answers again, not when the
 * reconciler's grace has passed (issue 19, item 5). Redis is reached through a {@link TcpProxy} that the test cuts
 * (standing in for a Sentinel fail-over, whose new master answers after tens of seconds), over HTTP against the
 * real service on MariaDB; the reconciler's grace is two minutes, so only the re-admission can deliver the jobs
 * within the bound the issue asks: 10 s after their due time or Redis's return, whichever is later.
 */
@ServiceTest(
        properties = {
            "delay.dispatch.default=" + RecordingDispatcher.NAME,
            "delay.journal.reconcile-interval=1s",
            "delay.journal.reconcile-grace=2m",
            "delay.redis.timeout=1s"
        })
@Import(RecordingDispatcherConfig.class)
class RedisReturnTest {
    static final ServiceStores STORES = ServiceStores.redisAndJournal("redisreturn");
    static final TcpProxy PROXY = new TcpProxy(RedisFixture.HOST, RedisFixture.PORT);

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final long BOUND_MS = 10_000;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        STORES.register(registry);
        registry.add("delay.redis.uri", () -> "redis://" + RedisFixture.HOST + ":" + PROXY.port());
    }

    @AfterAll
    static void closeProxy() {
        PROXY.close();
    }

    @LocalServerPort
    int port;

    @Autowired
    RecordingDispatcher recorder;

    @Test
    void jobs_answered_202_are_handed_over_within_10_s_of_their_due_time_or_of_redis_coming_back() {
        Api api = new Api(port);
        await("a push is answered 200")
                .atMost(WAIT)
                .until(() -> api.postJson("/push", job("rr-probe", 60_000)).status() == 200);

        PROXY.cut();
        List<String> accepted = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            // half due while Redis is away, half after it is back
            long delay = i % 2 == 0 ? 300 : 6_000;
            Api.Response r = api.postJson("/push", job("rr", delay));
            assertThat(r.status()).as("push with Redis away: %s", r).isEqualTo(202);
            accepted.add(r.data().asText());
        }
        Api.Response batch = api.postJson("/push/batch", List.of(job("rr", 300), job("rr", 300)));
        assertThat(batch.status()).as("batch with Redis away: %s", batch).isEqualTo(202);
        batch.data().forEach(id -> accepted.add(id.asText()));
        long cutUntil = System.currentTimeMillis() + 2_000;
        await("Redis stays away past the first jobs' due time")
                .atMost(WAIT)
                .until(() -> System.currentTimeMillis() >= cutUntil);
        PROXY.restore();
        long back = System.currentTimeMillis();

        await("every job answered 202 is handed over")
                .atMost(WAIT)
                .until(() -> delivered(accepted).keySet().containsAll(accepted));
        for (RecordingDispatcher.Delivery d : delivered(accepted).values()) {
            long from = Math.max(d.executeAt(), back);
            assertThat(d.wallMs() - from)
                    .as("ms from its due time or Redis's return to the hand-over of %s", d.id())
                    .isLessThanOrEqualTo(BOUND_MS);
        }
        assertThat(recorder.deliveriesOf(Set.copyOf(accepted))).as("each once").hasSize(accepted.size());
    }

    private Map<String, RecordingDispatcher.Delivery> delivered(List<String> ids) {
        return recorder.deliveriesOf(Set.copyOf(ids)).stream()
                .collect(Collectors.toMap(RecordingDispatcher.Delivery::id, d -> d, (a, b) -> a));
    }

    private static Map<String, Object> job(String topic, long delayMs) {
        Map<String, Object> job = new LinkedHashMap<>();
        job.put("topic", topic);
        job.put("body", "body of a " + topic + " job");
        job.put("delay", delayMs);
        return job;
    }
}
