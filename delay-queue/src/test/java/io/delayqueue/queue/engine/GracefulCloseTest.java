package io.delayqueue.queue.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.delayqueue.common.JobStatus;
import io.delayqueue.common.PushRequest;
import io.delayqueue.queue.coordination.Coordinator;
import io.delayqueue.queue.dispatch.http.HttpCallbackDispatcher;
import io.delayqueue.queue.dispatch.http.HttpCallbackSettings;
import io.delayqueue.queue.engine.handover.DispatchSettings;
import io.delayqueue.queue.engine.push.PushResult;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.journal.JournalSettings;
import io.delayqueue.queue.journal.mybatis.MyBatisJournal;
import io.delayqueue.queue.testing.JournalDatabase;
import io.delayqueue.queue.testing.RedisFixture;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A graceful stop with HTTP callbacks in flight, on the real Redis and MariaDB: {@code close()} waits (up to
 * {@code shutdownWait}) for the receiver's answers, acknowledges and journals the jobs as {@code FINISHED}, and an
 * engine started afterwards on the same Redis and journal delivers none of them again.
 */
class GracefulCloseTest {
    private static final String TOPIC = "callbacks";
    private static final int JOBS = 20;
    /** A reservation left unacknowledged comes back after this: the restarted engine would deliver it again. */
    private static final Duration DISPATCH_TIMEOUT = Duration.ofSeconds(2);

    private RedisFixture redis;
    private JournalDatabase db;
    private SlowReceiver receiver;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    /** A callback endpoint that records each call and answers 200 once {@link #release()} is called. */
    private static final class SlowReceiver implements AutoCloseable {
        private final HttpServer server;
        private final ExecutorService threads = Executors.newFixedThreadPool(JOBS + 4);
        private final CountDownLatch released = new CountDownLatch(1);
        private final Map<String, Integer> calls = new HashMap<>();

        SlowReceiver() throws IOException {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            server.setExecutor(threads);
            server.createContext("/", this::handle);
            server.start();
        }

        String url() {
            return "http://127.0.0.1:" + server.getAddress().getPort() + "/done";
        }

        private void handle(HttpExchange exchange) throws IOException {
            try (exchange) {
                exchange.getRequestBody().readAllBytes();
                synchronized (calls) {
                    calls.merge(exchange.getRequestHeaders().getFirst("X-Delay-Job-Id"), 1, Integer::sum);
                }
                released.await();
                exchange.sendResponseHeaders(200, -1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        void release() {
            released.countDown();
        }

        Map<String, Integer> calls() {
            synchronized (calls) {
                return Map.copyOf(calls);
            }
        }

        @Override
        public void close() {
            release();
            server.stop(0);
            threads.shutdownNow();
        }
    }

    /**
     * Owns every shard, like the standalone coordinator; its {@link #close()} runs {@code onClose}, which tells
     * the test that the engine has stopped scanning and is shutting down.
     */
    private static final class ProbeCoordinator implements Coordinator {
        private final Runnable onClose;

        ProbeCoordinator(Runnable onClose) {
            this.onClose = onClose;
        }

        @Override
        public void start(OwnershipListener listener) {
            listener.ownershipChanged();
        }

        @Override
        public boolean owns(int shard) {
            return true;
        }

        @Override
        public String role() {
            return "standalone";
        }

        @Override
        public void close() {
            onClose.run();
        }
    }

    @BeforeEach
    void setUp() throws IOException {
        redis = new RedisFixture();
        db = JournalDatabase.mariaDb();
        receiver = new SlowReceiver();
    }

    @AfterEach
    void tearDown() throws Exception {
        try {
            for (int i = toClose.size() - 1; i >= 0; i--) {
                toClose.get(i).close();
            }
        } finally {
            receiver.close();
            db.close();
            redis.close();
        }
    }

    private MyBatisJournal journal() {
        MyBatisJournal journal = db.journal(
                JournalSettings.DEFAULTS.withWriter(
                        JournalMode.SYNC, Duration.ofMillis(50), 10_000, Duration.ofSeconds(30), 1_000_000, 1),
                EngineConfig.DEFAULT_SHARDS,
                Clock.systemUTC());
        toClose.add(journal);
        return journal;
    }

    private DelayQueueEngine engine(MyBatisJournal journal, Coordinator coordinator, Duration shutdownWait) {
        EngineConfig config = EngineConfig.DEFAULTS
                .withShards(2)
                .withRedisPrefix(redis.prefix())
                .withDispatch(d -> d.withDefaultDispatcher(HttpCallbackDispatcher.NAME)
                        .withTimeout(DISPATCH_TIMEOUT)
                        .withShutdownWait(shutdownWait));
        HttpCallbackDispatcher http =
                new HttpCallbackDispatcher(new HttpCallbackSettings(Duration.ofSeconds(2), Duration.ofSeconds(30)));
        DelayQueueEngine engine = new DelayQueueEngine(
                config,
                redis.store(config.shards(), config.retention()),
                List.of(http),
                coordinator,
                journal,
                Clock.systemUTC());
        toClose.add(engine);
        return engine;
    }

    private List<String> pushDueNow(DelayQueueEngine engine, int jobs) {
        List<PushRequest> requests = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            requests.add(
                    new PushRequest(null, TOPIC, null, null, "job " + i, 0L, null, null, null, receiver.url(), null));
        }
        return engine.pushBatch(requests).stream().map(PushResult::id).toList();
    }

    @Test
    void close_waits_for_the_sends_in_flight_journals_them_finished_and_a_restart_delivers_none_again()
            throws Exception {
        MyBatisJournal journal = journal();
        // the receiver answers once the engine is closing (it stopped scanning and let its shards go)
        DelayQueueEngine first = engine(journal, new ProbeCoordinator(receiver::release), Duration.ofSeconds(20));
        first.start();
        List<String> ids = pushDueNow(first, JOBS);
        await("every callback in flight")
                .atMost(Duration.ofSeconds(10))
                .until(() -> receiver.calls().size() == JOBS);

        first.close();
        journal.close(); // flushes what the journal still holds, as the service's shutdown does

        for (String id : ids) {
            assertThat(first.get(id).status()).as("job %s in Redis", id).isEqualTo(JobStatus.FINISHED);
        }
        assertThat(db.queryLong("SELECT COUNT(*) FROM delay_queue_job WHERE status = 'FINISHED'"))
                .as("jobs journaled FINISHED")
                .isEqualTo(JOBS);

        // a restart on the same Redis and journal; an unacknowledged job would come back after DISPATCH_TIMEOUT
        DelayQueueEngine second =
                engine(journal(), new ProbeCoordinator(() -> {}), DispatchSettings.DEFAULT_SHUTDOWN_WAIT);
        second.start();
        String marker = second.push(new PushRequest(
                        null,
                        TOPIC,
                        null,
                        null,
                        "marker",
                        DISPATCH_TIMEOUT.toMillis() + 1_000,
                        null,
                        null,
                        null,
                        receiver.url(),
                        null))
                .id();
        await("the marker delivered").atMost(Duration.ofSeconds(20)).until(() -> receiver.calls()
                .containsKey(marker));
        Map<String, Integer> calls = receiver.calls();
        for (String id : ids) {
            assertThat(calls.get(id)).as("callbacks of job %s", id).isEqualTo(1);
        }
    }

    @Test
    void close_gives_up_on_sends_unconfirmed_after_the_shutdown_wait_and_leaves_them_to_be_delivered_again() {
        MyBatisJournal journal = journal();
        DelayQueueEngine engine = engine(journal, new ProbeCoordinator(() -> {}), Duration.ofMillis(300));
        engine.start();
        String id = pushDueNow(engine, 1).get(0);
        await("the callback in flight").atMost(Duration.ofSeconds(10)).until(() -> receiver.calls()
                .containsKey(id));

        CompletableFuture<Void> closing = CompletableFuture.runAsync(engine::close);
        closing.orTimeout(15, TimeUnit.SECONDS).join(); // the receiver never answers: bounded by the wait
        assertThat(engine.get(id).status()).as("left reserved, to come back").isEqualTo(JobStatus.RESERVED);
    }
}
