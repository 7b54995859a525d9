package io.delayqueue.queue.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.common.PushRequest;
import io.delayqueue.queue.coordination.StandaloneCoordinator;
import io.delayqueue.queue.engine.handover.DeadLetterSettings;
import io.delayqueue.queue.engine.handover.DeadLetters;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.testing.ManualClock;
import io.delayqueue.queue.testing.RecordingDispatcher;
import io.delayqueue.queue.testing.RedisFixture;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Listing and requeueing dead letters through the engine, over every shard, with a manual clock. */
class DeadLettersTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final String TOPIC = "orders";

    private RedisFixture redis;
    private ManualClock clock;
    private RecordingDispatcher dispatcher;
    private DelayQueueEngine engine;
    private EngineConfig config;

    @BeforeEach
    void setUp() {
        redis = new RedisFixture();
        clock = new ManualClock(T0);
        dispatcher = new RecordingDispatcher("rec");
        config = EngineConfig.DEFAULTS
                .withShards(4)
                .withRedisPrefix(redis.prefix())
                .withDispatch(d -> d.withDefaultDispatcher("rec"))
                .withRetry(r -> r.withBackoff(List.of(Duration.ofMillis(10))).withMaxAttempts(1));
        engine = engineWith(Journal.NONE);
    }

    private DelayQueueEngine engineWith(Journal journal) {
        return new DelayQueueEngine(
                config,
                redis.store(config.shards(), config.retention()),
                List.of(dispatcher),
                new StandaloneCoordinator(),
                journal,
                clock);
    }

    /** A journal that keeps nothing but answers {@code lastErrors} with {@code lastErrors}. */
    private static Journal answeringLastErrors(Function<Collection<String>, Map<String, String>> lastErrors) {
        return (Journal) Proxy.newProxyInstance(
                Journal.class.getClassLoader(), new Class<?>[] {Journal.class}, (proxy, method, args) -> {
                    if (method.getName().equals("lastErrors")) {
                        @SuppressWarnings("unchecked")
                        Collection<String> ids = (Collection<String>) args[0];
                        return lastErrors.apply(ids);
                    }
                    try {
                        return method.invoke(Journal.NONE, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @AfterEach
    void tearDown() {
        try {
            engine.close();
        } finally {
            redis.close();
        }
    }

    /** Pushes {@code n} jobs of {@code topic} that die on their first (failed) send, one ms apart. */
    private List<String> killed(String topic, int n) {
        dispatcher.failSends(true);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String id = engine.push(PushRequest.of(topic, "b" + i, 0)).id();
            engine.runDueJobs();
            assertThat(engine.get(id).status()).isEqualTo(JobStatus.DEAD);
            ids.add(id);
            clock.advance(1);
        }
        dispatcher.failSends(false);
        return ids;
    }

    @Test
    void dead_jobs_of_a_topic_are_listed_oldest_first_over_every_shard_with_their_total() {
        List<String> ids = killed(TOPIC, 12);
        killed("other", 2);

        DeadLetters.Page page = engine.deadLetters().list(TOPIC, 5);

        assertThat(page.total()).isEqualTo(12);
        assertThat(page.jobs()).extracting(Job::id).containsExactlyElementsOf(ids.subList(0, 5));
        assertThat(page.jobs()).allSatisfy(j -> {
            assertThat(j.status()).isEqualTo(JobStatus.DEAD);
            assertThat(j.topic()).isEqualTo(TOPIC);
        });
        assertThat(engine.deadLetters().list("nothing-dead", 10).total()).isZero();
    }

    @Test
    void a_page_of_dead_letters_carries_their_last_errors_read_in_one_call() {
        List<Collection<String>> asked = new ArrayList<>();
        engine.close();
        engine = engineWith(answeringLastErrors(ids -> {
            asked.add(List.copyOf(ids));
            Map<String, String> errors = new HashMap<>();
            ids.forEach(id -> errors.put(id, "attempt 1: refused " + id));
            return errors;
        }));
        List<String> ids = killed(TOPIC, 7);

        DeadLetters.Page page = engine.deadLetters().list(TOPIC, 5);

        assertThat(asked).hasSize(1);
        assertThat(asked.get(0)).containsExactlyInAnyOrderElementsOf(ids.subList(0, 5));
        assertThat(page.lastErrors()).hasSize(5).containsEntry(ids.get(0), "attempt 1: refused " + ids.get(0));
        assertThat(engine.deadLetters().list("nothing-dead", 10).lastErrors()).isEmpty();
        assertThat(asked).as("no read for an empty page").hasSize(1);
    }

    @Test
    void a_journal_that_cannot_be_read_leaves_the_dead_letters_listed_without_their_errors() {
        engine.close();
        engine = engineWith(answeringLastErrors(ids -> {
            throw new DelayQueueException(503, "the journal is unavailable");
        }));
        List<String> ids = killed(TOPIC, 3);

        DeadLetters.Page page = engine.deadLetters().list(TOPIC, 10);

        assertThat(page.total()).isEqualTo(3);
        assertThat(page.jobs()).extracting(Job::id).containsExactlyElementsOf(ids);
        assertThat(page.lastErrors()).isEmpty();
    }

    @Test
    void requeueing_all_brings_every_dead_job_of_the_topic_back_and_it_is_delivered_again() {
        List<String> ids = killed(TOPIC, 12);
        List<String> others = killed("other", 2);
        int sendsBefore = dispatcher.count();

        DeadLetters.Requeue result = engine.deadLetters().requeueAll(TOPIC);

        assertThat(result.requeued()).isEqualTo(12);
        assertThat(ids).allSatisfy(id -> {
            Job job = engine.get(id);
            assertThat(job.status()).isEqualTo(JobStatus.DELAY);
            assertThat(job.attempts()).isZero();
            assertThat(job.executeAt()).isEqualTo(clock.millis());
        });
        assertThat(engine.deadLetters().list(TOPIC, 10).total()).isZero();
        assertThat(others).allSatisfy(id -> assertThat(engine.get(id).status()).isEqualTo(JobStatus.DEAD));

        engine.runDueJobs();

        assertThat(ids).allSatisfy(id -> assertThat(engine.get(id).status()).isEqualTo(JobStatus.FINISHED));
        assertThat(dispatcher.count()).isEqualTo(sendsBefore + 12);
    }

    @Test
    void requeueing_by_id_brings_back_those_and_reports_ids_that_are_not_dead_jobs_of_the_topic() {
        List<String> ids = killed(TOPIC, 3);
        List<String> other = killed("other", 1);
        String live = engine.push(PushRequest.of(TOPIC, "live", 60_000)).id();

        DeadLetters.Requeue result =
                engine.deadLetters().requeue(TOPIC, List.of(ids.get(0), ids.get(2), other.get(0), live, "3-nope"));

        assertThat(result.requeued()).isEqualTo(2);
        assertThat(result.notRequeued())
                .isEqualTo(Map.of(other.get(0), "DEAD in another topic", live, "DELAY", "3-nope", "NOT_FOUND"));
        assertThat(engine.get(ids.get(1)).status()).isEqualTo(JobStatus.DEAD);
        assertThat(engine.deadLetters().list(TOPIC, 10).jobs())
                .extracting(Job::id)
                .containsExactly(ids.get(1));
    }

    @Test
    void deleting_by_id_and_all_takes_dead_letters_out_for_good_and_names_ids_that_are_not_dead_jobs_of_the_topic() {
        List<String> ids = killed(TOPIC, 4);
        List<String> other = killed("other", 1);

        engine.delete(ids.get(0));
        DeadLetters.Deletion chosen =
                engine.deadLetters().delete(TOPIC, List.of(ids.get(1), ids.get(0), other.get(0), "3-nope"));

        assertThat(chosen.deleted()).isEqualTo(1);
        assertThat(chosen.notDeleted())
                .isEqualTo(Map.of(ids.get(0), "DELETED", other.get(0), "DEAD in another topic", "3-nope", "NOT_FOUND"));
        assertThat(engine.deadLetters().deleteAll(TOPIC).deleted()).isEqualTo(2);
        assertThat(ids).allSatisfy(id -> assertThat(engine.get(id).status()).isEqualTo(JobStatus.DELETED));
        assertThat(engine.deadLetters().count(TOPIC)).isZero();
        assertThat(engine.deadLetters().requeueAll(TOPIC).requeued()).isZero();
        assertThat(engine.get(other.get(0)).status()).isEqualTo(JobStatus.DEAD);
    }

    @Test
    void dead_letters_past_their_retention_are_deleted_and_younger_ones_stay() {
        List<String> old = killed(TOPIC, 3);
        clock.advance(Duration.ofHours(2).toMillis());
        List<String> young = killed(TOPIC, 2);
        assertThat(engine.purgeDeadLettersNow()).as("kept by default").isZero();

        DelayQueueEngine retaining = new DelayQueueEngine(
                config.withDead(d -> new DeadLetterSettings(Duration.ofHours(1))),
                redis.store(config.shards(), config.retention()),
                List.of(dispatcher),
                new StandaloneCoordinator(),
                Journal.NONE,
                clock);
        try {
            assertThat(retaining.purgeDeadLettersNow()).isEqualTo(3);
            assertThat(retaining.purgeDeadLettersNow()).isZero();
        } finally {
            retaining.close();
        }

        assertThat(old).allSatisfy(id -> assertThat(engine.get(id).status()).isEqualTo(JobStatus.DELETED));
        assertThat(young).allSatisfy(id -> assertThat(engine.get(id).status()).isEqualTo(JobStatus.DEAD));
        assertThat(engine.deadLetters().list(TOPIC, 10).jobs())
                .extracting(Job::id)
                .containsExactlyElementsOf(young);
    }

    @Test
    void bad_requests_name_the_field() {
        assertThatThrownBy(() -> engine.deadLetters().list("bad topic", 10))
                .isInstanceOf(DelayQueueException.InvalidField.class)
                .hasMessageStartingWith("topic");
        assertThatThrownBy(() -> engine.deadLetters().list(TOPIC, 0)).hasMessageStartingWith("limit");
        assertThatThrownBy(() -> engine.deadLetters().list(TOPIC, DeadLetters.MAX_LIST_LIMIT + 1))
                .hasMessageStartingWith("limit");
        assertThatThrownBy(() -> engine.deadLetters().requeue(TOPIC, List.of())).hasMessageStartingWith("ids");
        List<String> tooMany = new ArrayList<>();
        for (int i = 0; i <= DeadLetters.MAX_REQUEUE_IDS; i++) {
            tooMany.add("id-" + i);
        }
        assertThatThrownBy(() -> engine.deadLetters().requeue(TOPIC, tooMany)).hasMessageStartingWith("ids");
    }
}
