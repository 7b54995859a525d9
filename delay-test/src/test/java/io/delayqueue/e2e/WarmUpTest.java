package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.core.DelayQueueApplication;
import io.delayqueue.core.WarmUp;
import io.delayqueue.core.WarmUpOnStart;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.CallbackServer;
import io.delayqueue.e2e.support.FreePorts;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.queue.dispatch.http.HttpCallbackSettings;
import io.delayqueue.queue.engine.EngineConfig;
import io.delayqueue.queue.engine.WarmUpSettings;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.journal.mybatis.MyBatisJournal;
import io.delayqueue.queue.store.redis.ReplicaWait;
import io.delayqueue.queue.testing.JournalDatabase;
import io.delayqueue.queue.testing.RedisFixture;
import io.delayqueue.queue.testing.TestIds;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import redis.clients.jedis.Jedis;

/**
 * The start-up warm-up (issue 29, item 4) on the whole service, in this JVM, on the machine's Redis and a MariaDB
 * journal of the test's own: the service is ready only once the warm-up is done; the warm-up leaves no key and no
 * journal row behind; a real job pushed and due while it runs is handed over once, by the real engine; a real job
 * the journal held before the start (of a pull topic, with a url) is served to the service's consumer and never
 * called back by the rehearsal (whose dispatcher may call 127.0.0.1, where the test's receiver listens, and which
 * would route any topic but its own pull topic to it); and the service's metrics count none of the warm-up's jobs,
 * which the rehearsal's own metrics (the service's listener on a registry of its own) count.
 */
class WarmUpTest {
    private static final int SHARDS = 8;

    @Test
    void the_service_is_ready_only_once_warm_and_the_warm_up_touches_no_real_job_and_leaves_nothing() throws Exception {
        try (ServiceStores stores = ServiceStores.redisAndJournal("warmup");
                CallbackServer receiver = CallbackServer.started()) {
            receiver.script("/before", n -> 200);
            receiver.script("/during", n -> 200);
            // A job the journal holds before the start (Redis does not), of a pull topic, with a url: the real engine
            // puts it back (fail-over replay, restore) and keeps it ready for a consumer. A rehearsal that read it from
            // the journal would route its topic to its callback dispatcher and call the url (127.0.0.1 is allowed).
            JournalDatabase.migrate(stores.journal().gate());
            String before = TestIds.next();
            try (MyBatisJournal journal = stores.journal().journal(SHARDS, Clock.systemUTC())) {
                long now = System.currentTimeMillis();
                journal.recordCreated(List.of(new Job(
                        before,
                        "pulled",
                        null,
                        null,
                        "before",
                        now,
                        30_000,
                        3,
                        receiver.url("/before"),
                        0,
                        now,
                        JobStatus.DELAY,
                        0)));
            }

            // keys of a warm-up killed long ago, and of one under way in another instance (started just now)
            String killed =
                    "{" + stores.prefix() + ":warm-up:" + (System.currentTimeMillis() - 3_600_000) + "-dead:3}:pool";
            String underWay = "{" + stores.prefix() + ":warm-up:" + System.currentTimeMillis() + "-busy:3}:pool";
            stores.redis().redis().hset(killed, "x", "y");
            stores.redis().redis().hset(underWay, "x", "y");

            int port = FreePorts.free();
            List<String> args = new ArrayList<>();
            stores.properties().forEach((name, value) -> args.add("--" + name + "=" + value));
            args.addAll(List.of(
                    "--server.port=" + port,
                    "--delay.shards=" + SHARDS,
                    "--delay.dispatch.topics.real=http",
                    "--delay.dispatch.topics.pulled=pull",
                    "--delay.journal.restore-on-start=true",
                    "--delay.warm-up.enabled=true",
                    "--delay.warm-up.max-time=15s",
                    "--delay.warm-up.jobs-per-round=1000"));
            CompletableFuture<ConfigurableApplicationContext> starting = CompletableFuture.supplyAsync(
                    () -> new SpringApplicationBuilder(DelayQueueApplication.class).run(args.toArray(String[]::new)));

            // readiness, polled until UP; the first time it answers (not ready yet), a real job is pushed, due soon
            Api api = new Api(port);
            List<long[]> polls = new ArrayList<>(); // {time, status}
            String during = null;
            Api.Response health = null;
            int liveness = 0;
            long duringDueAt = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (System.nanoTime() < deadline && !starting.isCompletedExceptionally()) {
                int status;
                try {
                    status = api.get("/actuator/health/readiness").status();
                } catch (RuntimeException notListening) {
                    status = -1;
                }
                long at = System.currentTimeMillis();
                if (status > 0) {
                    polls.add(new long[] {at, status});
                }
                if (status == 503 && during == null) {
                    health = api.get("/actuator/health");
                    liveness = api.get("/actuator/health/liveness").status();
                    Map<String, Object> job = new LinkedHashMap<>();
                    job.put("topic", "real");
                    job.put("body", "during");
                    job.put("delay", 200);
                    job.put("url", receiver.url("/during"));
                    Api.Response pushed = api.postJson("/push", job);
                    assertThat(pushed.status())
                            .as("a push during the warm-up: %s", pushed)
                            .isEqualTo(200);
                    during = pushed.data().asText();
                    duringDueAt = System.currentTimeMillis() + 200;
                }
                if (status == 200) {
                    break;
                }
                Thread.sleep(20);
            }
            try (ConfigurableApplicationContext service = starting.get(60, TimeUnit.SECONDS)) {
                WarmUpOnStart warmUp = service.getBean(WarmUpOnStart.class);
                WarmUp.Report report = warmUp.report().orElseThrow();
                long warmedAt = warmUp.finishedAtMillis();
                assertThat(report.jobs()).isGreaterThanOrEqualTo(1000);
                assertThat(during)
                        .as("a push was made while the service was not ready")
                        .isNotNull();
                assertThat(duringDueAt)
                        .as("the pushed job was due during the warm-up")
                        .isLessThan(warmedAt);
                assertThat(health.status())
                        .as("the health while warming up: %s", health)
                        .isEqualTo(503);
                assertThat(health.raw()).contains("OUT_OF_SERVICE");
                assertThat(liveness).as("liveness while warming up").isEqualTo(200);
                assertThat(polls)
                        .as("readiness answered 503 before the warm-up ended, 200 only after")
                        .anySatisfy(p -> assertThat(p[1]).isEqualTo(503))
                        .allSatisfy(p -> {
                            if (p[1] == 200) {
                                assertThat(p[0]).isGreaterThanOrEqualTo(warmedAt);
                            } else {
                                assertThat(p[1]).isEqualTo(503);
                            }
                        });

                // the job pushed during the warm-up handed over once, by the real engine
                String duringId = during;
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> receiver.calls("/during").size() == 1);
                assertThat(receiver.calls("/during").get(0).jobId()).isEqualTo(duringId);
                // the job the journal held: ready for the service's consumers, never called back by the rehearsal
                Api.Response pulled = api.get("/get/pulled?timeout=5000");
                assertThat(pulled.status()).isEqualTo(200);
                assertThat(pulled.data().path("id").asText()).as("%s", pulled).isEqualTo(before);
                await().during(Duration.ofSeconds(2))
                        .atMost(Duration.ofSeconds(5))
                        .until(() -> receiver.calls("/during").size() == 1
                                && receiver.calls("/before").isEmpty());

                // nothing left of the warm-up: no key of its prefix, no journal row
                assertThat(report.prefix()).startsWith(stores.prefix() + ":warm-up:");
                assertThat(stores.redis().allKeys())
                        .as("the killed warm-up's keys deleted, the other instance's left alone, its own deleted")
                        .filteredOn(k -> k.contains(":warm-up:"))
                        .containsExactly(underWay);
                assertThat(stores.journal().queryStrings("SELECT id FROM delay_queue_job"))
                        .containsExactlyInAnyOrder(before, duringId);
                assertThat(stores.journal().queryStrings("SELECT DISTINCT job_id FROM delay_queue_job_log"))
                        .isSubsetOf(Set.of(before, duringId));

                // the service's metrics count its own jobs only
                MeterRegistry metrics = service.getBean(MeterRegistry.class);
                assertThat(metrics.find("delay.jobs.pushed").counters().stream()
                                .mapToDouble(Counter::count)
                                .sum())
                        .isEqualTo(1.0);
                assertThat(metrics.find("delay.jobs.pushed").counters())
                        .allSatisfy(c -> assertThat(c.getId().getTag("topic")).isNotEqualTo("warm-up-callback"));
                assertThat(metrics.find("delay.jobs.handed.over").counters())
                        .allSatisfy(c -> assertThat(c.getId().getTag("topic")).doesNotStartWith("warm-up"));
                // while the rehearsal ran under the service's own listener, on a registry of its own: its hot call
                // sites met the listener the real bursts meet
                assertThat(report.meteredHandOvers())
                        .as("hand-overs the rehearsal's own metrics counted")
                        .isGreaterThanOrEqualTo(report.jobs() / 2);
            }
        }
    }

    @Test
    void a_warm_up_with_a_wake_up_channel_as_an_ha_instance_has_unsubscribes_and_leaves_no_key() throws Exception {
        try (RedisFixture redis = RedisFixture.labelled("warmupha")) {
            EngineConfig config = EngineConfig.DEFAULTS.withRedisPrefix(redis.prefix());
            WarmUp warmUp = new WarmUp(
                    config,
                    redis.redis(),
                    Journal.NONE,
                    HttpCallbackSettings.defaults(),
                    ReplicaWait.NONE,
                    true,
                    Clock.systemUTC(),
                    new WarmUpSettings(true, Duration.ofSeconds(5), 500),
                    WarmUp.Metrics.NONE);

            WarmUp.Report report = warmUp.run();

            assertThat(report.jobs()).isGreaterThanOrEqualTo(500);
            String channel = report.prefix() + ":wake";
            try (Jedis jedis = new Jedis(RedisFixture.HOST, RedisFixture.PORT)) {
                assertThat(jedis.pubsubNumSub(channel)).containsEntry(channel, 0L);
            }
            assertThat(redis.allKeys()).isEmpty();
        }
    }
}
