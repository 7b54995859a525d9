package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.common.JobIds;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.RecordingDispatcherConfig;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.ServiceTest;
import io.delayqueue.e2e.support.TcpProxy;
import io.delayqueue.queue.engine.EngineConfig;
import io.delayqueue.queue.testing.JournalDatabase;
import io.delayqueue.queue.testing.RecordingDispatcher;
import io.delayqueue.queue.testing.RedisFixture;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import redis.clients.jedis.Jedis;

/**
 * A push answer is the truth and carries the id (issue 10, items 2 to 4), over HTTP against the real service:
 * 200 means the row is committed and the job is in Redis, 202 that the row is committed and the reconciler
 * puts the job into Redis once it is back, 503 that nothing was written, 504 that a commit was under way (a
 * retry with the id settles it), 400 that the database refuses this push's row, and no other push fails with it.
 * MariaDB is frozen by a table lock the test holds; Redis is reached through a {@link TcpProxy} that the test cuts.
 * The journal and Redis are read directly, not through the service.
 */
@ServiceTest(
        properties = {
            "delay.dispatch.default=" + RecordingDispatcher.NAME,
            "delay.journal.reconcile-interval=200ms",
            "delay.journal.reconcile-grace=500ms",
            "delay.journal.commit-timeout=" + PushContractTest.COMMIT_TIMEOUT_MS + "ms",
            "delay.redis.timeout=1s"
        })
@Import(RecordingDispatcherConfig.class)
class PushContractTest {
    static final long COMMIT_TIMEOUT_MS = 2_000;
    /**
     * The documented slack above the commit timeout is one Redis call ({@code delay.redis.timeout}, 1 s here); a
     * frozen journal with Redis up needs none of it, and the rest is for a busy machine.
     */
    private static final long BOUND_MS = COMMIT_TIMEOUT_MS + 1_500;

    static final ServiceStores STORES = ServiceStores.redisAndJournal("pushcontract");
    /** In front of Redis. */
    static final TcpProxy PROXY = new TcpProxy(RedisFixture.HOST, RedisFixture.PORT);

    private static final Duration WAIT = Duration.ofSeconds(60);

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        STORES.register(registry);
        registry.add("delay.redis.uri", () -> "redis://" + RedisFixture.HOST + ":" + PROXY.port());
    }

    @LocalServerPort
    int port;

    @Autowired
    RecordingDispatcher recorder;

    @Autowired
    EngineConfig engineConfig;

    private final ExecutorService pushers = Executors.newFixedThreadPool(24);

    @BeforeEach
    void awaitService() {
        Api api = new Api(port);
        await("a push is answered 200")
                .atMost(WAIT)
                .until(() -> api.postJson("/push", job("pc-probe", 60_000)).status() == 200);
    }

    @AfterEach
    void restore() {
        PROXY.restore();
        pushers.shutdownNow();
    }

    /** One answer as the client saw it. */
    private record Answer(int status, String id, String message, long millis) {}

    @Test
    void a_journal_frozen_longer_than_the_commit_timeout_answers_every_push_within_the_bound_and_truthfully()
            throws Exception {
        Api api = new Api(port);
        ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();
        AtomicBoolean stop = new AtomicBoolean();
        try (Connection freezer = openConnection();
                Statement lock = freezer.createStatement()) {
            // every insert into the job table now waits (for a day: lock_wait_timeout), reads go on
            lock.execute("LOCK TABLES delay_queue_job READ");
            List<Future<?>> running = new ArrayList<>();
            for (int t = 0; t < 16; t++) {
                running.add(pushers.submit(() -> {
                    while (!stop.get()) {
                        answers.add(timedPush(api, job("pc-frozen", 60_000)));
                    }
                }));
            }
            // frozen for more than twice the commit timeout: callers queue behind rounds that hang
            long frozenUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(COMMIT_TIMEOUT_MS * 5 / 2);
            await("the freeze lasts").atMost(WAIT).until(() -> System.nanoTime() - frozenUntil > 0);
            lock.execute("UNLOCK TABLES");
            await("pushes are answered 200 again").atMost(WAIT).until(() -> answers.stream()
                    .skip(Math.max(0, answers.size() - 16))
                    .anyMatch(a -> a.status() == 200));
            stop.set(true);
            for (Future<?> f : running) {
                f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            }
        }

        Map<Integer, List<Answer>> byStatus = answers.stream().collect(Collectors.groupingBy(Answer::status));
        System.out.printf(
                "journal frozen %d ms, commit timeout %d ms: %d answers %s, slowest %d ms (bound %d ms)%n",
                COMMIT_TIMEOUT_MS * 5 / 2,
                COMMIT_TIMEOUT_MS,
                answers.size(),
                byStatus.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue()
                        .size())),
                answers.stream().mapToLong(Answer::millis).max().orElse(0),
                BOUND_MS);
        assertThat(byStatus.keySet()).as("statuses answered").isSubsetOf(200, 503, 504);
        assertThat(byStatus.get(503))
                .as("pushes refused while the journal was frozen")
                .isNotEmpty();
        assertThat(byStatus.get(504))
                .as("pushes whose commit was under way at the timeout")
                .isNotEmpty();
        for (Answer a : answers) {
            assertThat(a.millis()).as("answer time of %s", a).isLessThanOrEqualTo(BOUND_MS);
            assertThat(a.id()).as("the id in %s", a).isNotBlank();
        }
        for (Answer a : byStatus.get(200)) {
            assertThat(journalStatus(a.id())).as("journal after 200: %s", a).isEqualTo("DELAY");
            assertThat(redisStatus(a.id())).as("Redis after 200: %s", a).isEqualTo("DELAY");
        }
        List<Answer> retried = new ArrayList<>(byStatus.get(504));
        retried.addAll(byStatus.get(503));
        for (Answer a : retried) {
            if (a.status() == 503) {
                // nothing written, and nothing lands later: the writers have long moved past it
                assertThat(journalStatus(a.id())).as("journal after 503: %s", a).isNull();
            }
            // a retry with the id settles either: one job, committed and in Redis
            Map<String, Object> again = job("pc-frozen", 60_000);
            again.put("id", a.id());
            Api.Response r = api.postJson("/push", again);
            assertThat(r.status()).as("retry of %s: %s", a, r).isEqualTo(200);
            assertThat(r.data().asText()).isEqualTo(a.id());
            assertThat(journalStatus(a.id()))
                    .as("journal after the retry of %s", a)
                    .isEqualTo("DELAY");
            assertThat(redisStatus(a.id())).as("Redis after the retry of %s", a).isEqualTo("DELAY");
        }
        assertThat(STORES.journal()
                        .queryLong("SELECT COUNT(*) FROM delay_queue_job_log WHERE event = 'CREATED' AND job_id IN ("
                                + answers.stream().map(a -> "'" + a.id() + "'").collect(Collectors.joining(","))
                                + ")"))
                .as("one CREATED row per job, retried or not")
                .isEqualTo(answers.size());
    }

    @Test
    void with_redis_down_a_push_is_journaled_and_answered_202_and_delivered_once_redis_is_back() {
        Api api = new Api(port);
        PROXY.cut();
        List<String> journaledOnly = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            Api.Response r = api.postJson("/push", job("pc-redis-down", 300));
            assertThat(r.status()).as("push with Redis down: %s", r).isEqualTo(202);
            assertThat(r.message()).contains("journaled").contains("once Redis is back");
            String id = r.data().asText();
            journaledOnly.add(id);
            assertThat(journalStatus(id)).as("journal after 202").isEqualTo("DELAY");
            assertThat(redisStatus(id)).as("Redis after 202").isNull();
        }
        Map<String, Object> batch = job("pc-redis-down", 300);
        Api.Response batchAnswer = api.postJson("/push/batch", List.of(batch, batch));
        assertThat(batchAnswer.status())
                .as("batch with Redis down: %s", batchAnswer)
                .isEqualTo(202);
        batchAnswer.data().forEach(id -> journaledOnly.add(id.asText()));

        PROXY.restore();
        await("every job answered 202 is delivered once Redis is back")
                .atMost(WAIT)
                .until(() -> recorder.deliveriesOf(Set.copyOf(journaledOnly)).stream()
                        .map(RecordingDispatcher.Delivery::id)
                        .collect(Collectors.toSet())
                        .containsAll(journaledOnly));
        await("pushes are answered 200 again")
                .atMost(WAIT)
                .until(() -> api.postJson("/push", job("pc-redis-back", 60_000)).status() == 200);
    }

    @Test
    void a_row_the_database_refuses_fails_only_its_own_push_while_concurrent_valid_pushes_all_succeed()
            throws Exception {
        Api api = new Api(port);
        // a column narrower than the service's own check: only the database refuses these rows
        execute("ALTER TABLE delay_queue_job MODIFY subtopic VARCHAR(8) NULL");
        try {
            List<Future<List<Answer>>> valid = new ArrayList<>();
            List<Future<List<Answer>>> poison = new ArrayList<>();
            for (int t = 0; t < 12; t++) {
                valid.add(pushers.submit(() -> pushMany(api, "ok", 25)));
            }
            for (int t = 0; t < 3; t++) {
                poison.add(pushers.submit(() -> pushMany(api, "much-too-long-for-eight", 8)));
            }
            for (Future<List<Answer>> f : valid) {
                for (Answer a : f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                    assertThat(a.status()).as("a valid push: %s", a).isEqualTo(200);
                    assertThat(journalStatus(a.id())).isEqualTo("DELAY");
                    assertThat(redisStatus(a.id())).isEqualTo("DELAY");
                }
            }
            for (Future<List<Answer>> f : poison) {
                for (Answer a : f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                    assertThat(a.status())
                            .as("a push the database refuses: %s", a)
                            .isEqualTo(400);
                    assertThat(a.message()).contains("subtopic").contains("nothing was written");
                    assertThat(a.id()).isNotBlank();
                    assertThat(journalStatus(a.id())).as("journal after 400").isNull();
                    assertThat(redisStatus(a.id())).as("Redis after 400").isNull();
                }
            }
        } finally {
            execute("ALTER TABLE delay_queue_job MODIFY subtopic VARCHAR(255) CHARACTER SET utf8mb4 COLLATE"
                    + " utf8mb4_bin NULL");
        }
    }

    private List<Answer> pushMany(Api api, String subtopic, int n) {
        List<Answer> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Map<String, Object> job = job("pc-poison", 60_000);
            job.put("subtopic", subtopic);
            out.add(timedPush(api, job));
        }
        return out;
    }

    private static Answer timedPush(Api api, Map<String, Object> job) {
        long start = System.nanoTime();
        Api.Response r = api.postJson("/push", job);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        // a 400's data names the field and the job ({"field", "id"}); the other answers' data is the id
        String id = r.data() == null || r.data().isNull()
                ? null
                : r.data().isObject()
                        ? r.data().path("id").asText(null)
                        : r.data().asText();
        return new Answer(r.status(), id, r.message(), millis);
    }

    private String redisStatus(String id) {
        String tag = "{" + STORES.prefix() + ":" + JobIds.shardOf(id, engineConfig.shards()) + "}";
        try (Jedis jedis = new Jedis(RedisFixture.HOST, RedisFixture.PORT)) {
            String value = jedis.hget(tag + ":pool", id);
            return value == null ? null : value.substring(0, value.indexOf('|'));
        }
    }

    /** A connection of its own (closing it ends the session, and so releases any table lock it holds). */
    private static Connection openConnection() throws SQLException {
        return DriverManager.getConnection(
                STORES.journal().jdbcUrl(), JournalDatabase.MARIADB_USER, JournalDatabase.MARIADB_PASSWORD);
    }

    private static void execute(String sql) throws SQLException {
        try (Connection c = openConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static String journalStatus(String id) {
        List<String> rows = STORES.journal().queryStrings("SELECT status FROM delay_queue_job WHERE id = '" + id + "'");
        return rows.isEmpty() ? null : rows.get(0);
    }

    private static Map<String, Object> job(String topic, long delayMs) {
        Map<String, Object> job = new LinkedHashMap<>();
        job.put("topic", topic);
        job.put("body", "body of a " + topic + " job");
        job.put("delay", delayMs);
        return job;
    }
}
