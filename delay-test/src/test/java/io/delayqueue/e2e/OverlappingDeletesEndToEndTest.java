package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.common.JobStatus;
import io.delayqueue.config.DelayProperties;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.RecordingDispatcherConfig;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.ServiceTest;
import io.delayqueue.queue.journal.JobEvent;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.journal.Transition;
import io.delayqueue.queue.journal.mybatis.MyBatisJournal;
import io.delayqueue.queue.testing.ForwardingJournal;
import io.delayqueue.queue.testing.RecordingDispatcher;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.ibatis.session.SqlSessionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Two overlapping {@code DELETE /jobs/{id}} of one job over HTTP (issue 19, item 1), on the real service, Redis and
 * MariaDB, in the order that once delivered a job whose delete answered 200: delete #1 begins; delete #2 begins;
 * MariaDB refuses #1's commit, and #1 answers 503; the job comes due and the scanner runs on; #2's commit lands
 * and #2 answers 200. The service's journal is the real MyBatis one behind a gate that holds the two commits at
 * those points (and refuses the first), so that the order is the same on every run.
 */
@ServiceTest(properties = "delay.dispatch.default=" + RecordingDispatcher.NAME)
@Import({RecordingDispatcherConfig.class, OverlappingDeletesEndToEndTest.GatedJournalConfig.class})
class OverlappingDeletesEndToEndTest {
    static final ServiceStores STORES = ServiceStores.redisAndJournal("overlap");
    private static final Duration WAIT = Duration.ofSeconds(60);

    static final AtomicInteger DELETE_COMMITS = new AtomicInteger();
    static final CountDownLatch SECOND_COMMITTING = new CountDownLatch(1);
    static final CountDownLatch RELEASE_SECOND = new CountDownLatch(1);

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        STORES.register(registry);
    }

    /** The application's MyBatis journal, its first two delete commits held (and the first refused). */
    @TestConfiguration(proxyBeanMethods = false)
    static class GatedJournalConfig {
        @Bean(destroyMethod = "close")
        @DependsOnDatabaseInitialization
        Journal journal(DelayProperties properties, SqlSessionFactory sessions, Clock clock) {
            MyBatisJournal real =
                    new MyBatisJournal(sessions, properties.getJournal().toSettings(), properties.getShards(), clock);
            return new ForwardingJournal(real) {
                @Override
                public void recordTransitionsDurably(List<Transition> transitions) {
                    if (transitions.stream().anyMatch(t -> t.event() == JobEvent.DELETED)) {
                        int n = DELETE_COMMITS.incrementAndGet();
                        if (n == 1) {
                            hold(SECOND_COMMITTING);
                            throw new IllegalStateException("MariaDB refused the first delete (test gate)");
                        }
                        if (n == 2) {
                            SECOND_COMMITTING.countDown();
                            hold(RELEASE_SECOND);
                        }
                    }
                    super.recordTransitionsDurably(transitions);
                }

                @Override
                public void close() {
                    real.close();
                }
            };
        }

        private static void hold(CountDownLatch latch) {
            try {
                if (!latch.await(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test's interleaving did not happen in time");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    @LocalServerPort
    int port;

    @Autowired
    RecordingDispatcher recorder;

    @AfterEach
    void release() {
        SECOND_COMMITTING.countDown();
        RELEASE_SECOND.countDown();
    }

    @Test
    void a_job_whose_delete_answered_200_is_never_delivered_although_an_overlapping_delete_of_it_was_refused() {
        Api api = new Api(port);
        String job = pushed(api, "overlapping", 5_000);
        String dueAfterIt = pushed(api, "control, due after it", 5_500);

        CompletableFuture<Api.Response> first = CompletableFuture.supplyAsync(() -> api.delete("/jobs/" + job));
        await("the first delete commits").atMost(WAIT).until(() -> DELETE_COMMITS.get() >= 1);
        CompletableFuture<Api.Response> second = CompletableFuture.supplyAsync(() -> api.delete("/jobs/" + job));

        Api.Response refused = first.join();
        assertThat(refused.status()).as("the first delete: %s", refused).isEqualTo(503);

        // the job comes due, and the scanner hands over what is due after it, while the second delete commits
        await("the job due after it is delivered").atMost(WAIT).until(() -> !recorder.deliveriesOf(Set.of(dueAfterIt))
                .isEmpty());
        RELEASE_SECOND.countDown();
        Api.Response deleted = second.join();
        assertThat(deleted.status()).as("the second delete: %s", deleted).isEqualTo(200);

        String later = pushed(api, "control, pushed after the deletes", 500);
        await("a job pushed after the deletes is delivered")
                .atMost(WAIT)
                .until(() -> !recorder.deliveriesOf(Set.of(later)).isEmpty());
        assertThat(recorder.deliveriesOf(Set.of(job)))
                .as("deliveries of a job whose delete answered 200")
                .isEmpty();
        assertThat(refused.message()).contains("another delete of it is under way");
        assertThat(api.get("/jobs/" + job).data().path("status").asText()).isEqualTo(JobStatus.DELETED.name());
        assertThat(STORES.journal().queryStrings("SELECT status FROM delay_queue_job WHERE id = '" + job + "'"))
                .containsExactly(JobStatus.DELETED.name());
    }

    private static String pushed(Api api, String body, long delayMs) {
        Api.Response r = api.postJson("/push", Map.of("topic", "e2e.overlap", "body", body, "delay", delayMs));
        assertThat(r.status()).as("push: %s", r).isEqualTo(200);
        return r.data().asText();
    }
}
