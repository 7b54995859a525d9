package io.delayqueue.queue.engine.push;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.DelayQueueException.InvalidField;
import io.delayqueue.common.FieldError;
import io.delayqueue.common.Job;
import io.delayqueue.common.JobIds;
import io.delayqueue.common.JobStatus;
import io.delayqueue.common.PushRequest;
import io.delayqueue.queue.engine.EngineConfig;
import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class JobFactoryTest {
    private static final long NOW = 1_700_000_000_000L;
    private final EngineConfig config = EngineConfig.DEFAULTS
            .withShards(8)
            .withLimits(l -> l.withMaxBodyBytes(16).withMaxDelay(Duration.ofDays(1)))
            .withPull(p -> p.withDefaultTtr(Duration.ofSeconds(7)))
            .withRetry(r -> r.withMaxAttempts(4));
    private final AtomicInteger claims = new AtomicInteger();
    private final JobFactory factory = new JobFactory(config, () -> {
        claims.incrementAndGet();
        return 7;
    });

    private static PushRequest request(String topic, String body, Long delay, Long executeAt) {
        return new PushRequest(null, topic, null, null, body, delay, executeAt, null, null, null, null);
    }

    private void rejects(PushRequest r, String field) {
        rejects(r, "", field);
    }

    private void rejects(PushRequest r, String prefix, String field) {
        assertThatThrownBy(() -> factory.create(r, NOW, prefix))
                .isInstanceOfSatisfying(
                        InvalidField.class, e -> assertThat(e.field()).isEqualTo(field));
    }

    @Test
    void minimal_request_gets_the_configured_defaults() {
        Job job = factory.create(request("t", "b", null, null), NOW, "");

        assertThat(job.executeAt()).as("neither delay nor executeAt: due now").isEqualTo(NOW);
        assertThat(job.ttr()).isEqualTo(7_000);
        assertThat(job.maxAttempts()).isEqualTo(4);
        assertThat(job.status()).isEqualTo(JobStatus.DELAY);
        assertThat(job.attempts()).isZero();
        assertThat(job.createTime()).isEqualTo(NOW);
        assertThat(job.id()).matches("[0-9a-z]{14}");
        assertThat(JobIds.shardOf(job.id(), 8)).isBetween(0, 7);
    }

    @Test
    void the_node_of_generated_ids_is_claimed_once_on_the_first_job_without_an_id() {
        assertThat(claims).as("claims on construction").hasValue(0);
        factory.create(request("t", "b", 0L, null).withId("order:1"), NOW, "");
        assertThat(claims).as("claims for a client id").hasValue(0);

        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 5_000; i++) {
            ids.add(factory.create(request("t", "b", 0L, null), NOW, "").id());
        }

        assertThat(claims).hasValue(1);
        assertThat(ids).hasSize(5_000);
        assertThat(ids).allSatisfy(id -> assertThat(nodeOf(id)).isEqualTo(7));
    }

    @Test
    void a_batch_rejected_for_a_later_job_claims_no_node() {
        List<PushRequest> batch = List.of(request("t", "b", 0L, null), request("t", null, 0L, null));

        assertThatThrownBy(() -> factory.createAll(batch, NOW, null))
                .isInstanceOfSatisfying(
                        InvalidField.class, e -> assertThat(e.field()).isEqualTo("[1].body"));
        assertThat(claims).hasValue(0);

        List<Job> jobs = factory.createAll(
                List.of(request("t", "b", 0L, null), request("t", "b", 5L, null).withId("order:9")), NOW, null);
        assertThat(claims).hasValue(1);
        assertThat(jobs.get(0).id()).matches("[0-9a-z]{14}");
        assertThat(jobs.get(1).id()).isEqualTo("order:9");
        assertThat(jobs.get(1).executeAt()).isEqualTo(NOW + 5);
    }

    @Test
    void a_failed_claim_fails_that_job_as_unavailable_and_the_next_job_claims_again() {
        AtomicInteger attempts = new AtomicInteger();
        JobFactory flaky = new JobFactory(config, () -> {
            if (attempts.incrementAndGet() == 1) {
                throw new DelayQueueException.Unavailable("Redis is unavailable: test", null);
            }
            return 11;
        });

        assertThatThrownBy(() -> flaky.create(request("t", "b", 0L, null), NOW, ""))
                .isInstanceOfSatisfying(DelayQueueException.Unavailable.class, e -> assertThat(e.httpStatus())
                        .isEqualTo(503));
        String id = flaky.create(request("t", "b", 0L, null), NOW, "").id();

        assertThat(attempts).hasValue(2);
        assertThat(nodeOf(id)).isEqualTo(11);
    }

    @Test
    void jobs_made_while_the_claim_runs_wait_for_it_and_share_its_outcome() throws Exception {
        for (boolean fails : new boolean[] {true, false}) {
            CountDownLatch claiming = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            AtomicInteger attempts = new AtomicInteger();
            JobFactory slow = new JobFactory(config, () -> {
                attempts.incrementAndGet();
                claiming.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                if (fails) {
                    throw new DelayQueueException.Unavailable("Redis is unavailable: test", null);
                }
                return 3;
            });
            int callers = 8;
            Set<String> ids = ConcurrentHashMap.newKeySet();
            AtomicInteger unavailable = new AtomicInteger();
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < callers; i++) {
                Thread t = new Thread(() -> {
                    try {
                        ids.add(slow.create(request("t", "b", 0L, null), NOW, "")
                                .id());
                    } catch (DelayQueueException.Unavailable e) {
                        unavailable.incrementAndGet();
                    }
                });
                t.start();
                threads.add(t);
            }
            assertThat(claiming.await(10, TimeUnit.SECONDS)).isTrue();
            await("every caller waits (one in the claim, the others for it)")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> threads.stream()
                                    .filter(t -> t.getState() == Thread.State.WAITING)
                                    .count()
                            == callers);
            release.countDown();
            for (Thread t : threads) {
                t.join(10_000);
            }

            assertThat(attempts).as("claims (claim fails: %s)", fails).hasValue(1);
            assertThat(unavailable).hasValue(fails ? callers : 0);
            assertThat(ids).hasSize(fails ? 0 : callers);
        }
    }

    /** The node a generated id carries (bits 12 to 30 of its number). */
    private static int nodeOf(String id) {
        return new BigInteger(id, 36).shiftRight(12).intValue() & (JobIds.NODES - 1);
    }

    @Test
    void delay_is_counted_from_now_and_execute_at_is_taken_as_is_unless_it_has_passed() {
        assertThat(factory.create(request("t", "b", 1_500L, null), NOW, "").executeAt())
                .isEqualTo(NOW + 1_500);
        assertThat(factory.create(request("t", "b", null, NOW + 9L), NOW, "").executeAt())
                .isEqualTo(NOW + 9);
        assertThat(factory.create(request("t", "b", null, NOW - 60_000L), NOW, "")
                        .executeAt())
                .as("a past executeAt is due at once, and says so")
                .isEqualTo(NOW);
    }

    @Test
    void client_id_is_kept() {
        assertThat(factory.create(request("t", "b", 0L, null).withId("order:42"), NOW, "")
                        .id())
                .isEqualTo("order:42");
    }

    @Test
    void missing_or_malformed_fields_are_rejected_naming_them() {
        rejects(request(null, "b", 0L, null), "topic");
        rejects(request("", "b", 0L, null), "topic");
        rejects(request("a b", "b", 0L, null), "topic");
        rejects(request("x".repeat(65), "b", 0L, null), "topic");
        rejects(request("t", null, 0L, null), "body");
        rejects(request("t", "", 0L, null), "body");
        rejects(request("t", "b", -1L, null), "delay");
        rejects(request("t", "b", Duration.ofDays(1).toMillis() + 1, null), "delay");
        rejects(request("t", "b", 1L, NOW), "delay");
        rejects(request("t", "b", null, -1L), "executeAt");
        rejects(request("t", "b", null, NOW + Duration.ofDays(2).toMillis()), "executeAt");
        rejects(request("t", "b", 0L, null).withId("has space"), "id");
        rejects(request("t", "b", 0L, null).withTtr(0), "ttr");
        rejects(request("t", "b", 0L, null).withMaxAttempts(0), "maxAttempts");
        rejects(request("t", "b", 0L, null).withMaxAttempts(1001), "maxAttempts");
        rejects(new PushRequest(null, "t", "s".repeat(256), null, "b", null, null, null, null, null, null), "subtopic");
        rejects(new PushRequest(null, "t", null, "k".repeat(256), "b", null, null, null, null, null, null), "bizKey");
        rejects(new PushRequest(null, "t", null, null, "b", null, null, null, null, "ftp://x/y", null), "url");
        rejects(new PushRequest(null, "t", null, null, "b", null, null, null, null, "not a url", null), "url");
        // the journal's url column holds 2048 characters: a longer one is refused before anything is written
        String longest = "http://example.test/" + "p".repeat(2048 - "http://example.test/".length());
        rejects(new PushRequest(null, "t", null, null, "b", null, null, null, null, longest + "p", null), "url");
        PushRequest fits = new PushRequest(null, "t", null, null, "b", null, null, null, null, longest, null);
        assertThat(factory.create(fits, NOW, "").url()).hasSize(2048);
    }

    @Test
    void body_limit_counts_utf8_bytes_not_characters() {
        String sixteenBytes = "\u00e9".repeat(8);
        String seventeenBytes = sixteenBytes + "x";

        assertThat(factory.create(request("t", sixteenBytes, 0L, null), NOW, "").body())
                .isEqualTo(sixteenBytes);
        assertThatThrownBy(() -> factory.create(request("t", seventeenBytes, 0L, null), NOW, ""))
                .isInstanceOfSatisfying(
                        InvalidField.class, e -> assertThat(e.field()).isEqualTo("body"))
                .hasMessageContaining("17 bytes");
        assertThat(factory.create(request("t", "\ud83d\ude00".repeat(4), 0L, null), NOW, "")
                        .body())
                .as("four 4-byte emoji are 16 bytes")
                .hasSize(8);
    }

    @Test
    void a_rejected_batch_names_the_job_at_fault_by_its_index_and_the_id_it_was_given() {
        List<PushRequest> batch = List.of(
                request("t", "b", 0L, null).withId("order-1"),
                request("t", "b", 0L, null),
                request("t", "b", -1L, null).withId("order-3"));

        assertThatThrownBy(() -> factory.createAll(batch, NOW, null))
                .isInstanceOfSatisfying(InvalidField.class, e -> assertThat(e.data())
                        .isEqualTo(new FieldError("[2].delay", 2, "order-3")));
        assertThatThrownBy(() -> factory.createAll(List.of(request("t", "b", -1L, null)), NOW, null))
                .as("a job without an id: only its index (no id is generated for a refused push)")
                .isInstanceOfSatisfying(
                        InvalidField.class, e -> assertThat(e.data()).isEqualTo(new FieldError("[0].delay", 0, null)));
        assertThatThrownBy(() ->
                        factory.createAll(List.of(request("t", "b", -1L, null).withId("o-9")), NOW, ""))
                .as("a single push: the field and its id, no index")
                .isInstanceOfSatisfying(
                        InvalidField.class, e -> assertThat(e.data()).isEqualTo(new FieldError("delay", null, "o-9")));
        assertThatThrownBy(() -> factory.createAll(
                        List.of(
                                request("t", "b", 0L, null),
                                request("t", "b", 0L, null).withId("bad id")),
                        NOW,
                        null))
                .as("the id at fault is not echoed as the job's id")
                .isInstanceOfSatisfying(
                        InvalidField.class, e -> assertThat(e.data()).isEqualTo(new FieldError("[1].id", 1, null)));
        assertThat(claims).hasValue(0);
    }

    @Test
    void fields_of_a_batch_element_are_named_with_its_index() {
        rejects(request("t", null, 0L, null), "[3].", "[3].body");
        rejects(null, "[2].", "[2]");
        rejects(null, "", "body");
    }

    private static PushRequest mykit(Long delay, Long executeAt, Integer status, Long ttl, Long createTime) {
        return new PushRequest(
                null, "t", null, null, "b", delay, executeAt, null, null, null, null, status, ttl, createTime);
    }

    @Test
    void mykit_delay_counts_from_create_time_and_a_time_already_past_is_now() {
        assertThat(factory.create(mykit(10_000L, null, 0, 12L, NOW - 4_000), NOW, "")
                        .executeAt())
                .isEqualTo(NOW + 6_000);
        assertThat(factory.create(mykit(1_000L, null, null, null, NOW - 4_000), NOW, "")
                        .executeAt())
                .isEqualTo(NOW);
        assertThat(factory.create(mykit(1_000L, null, 0, 0L, null), NOW, "").executeAt())
                .as("without createTime the delay counts from now")
                .isEqualTo(NOW + 1_000);
    }

    @Test
    void mykit_delay_fields_are_checked() {
        rejects(mykit(1_000L, null, 1, null, null), "status");
        rejects(mykit(1_000L, null, null, -1L, null), "ttl");
        rejects(mykit(null, NOW + 5_000, null, null, NOW), "createTime");
        rejects(mykit(1_000L, null, null, null, NOW - Duration.ofDays(2).toMillis()), "createTime");
        rejects(mykit(1_000L, null, null, null, -5L), "createTime");
        long skew = JobFactory.CREATE_TIME_SKEW.toMillis();
        rejects(mykit(1_000L, null, null, null, NOW + skew + 1), "createTime");
        assertThat(factory.create(mykit(1_000L, null, null, null, NOW + skew), NOW, "")
                        .executeAt())
                .as("a client clock ahead by up to the skew is taken")
                .isEqualTo(NOW + skew + 1_000);
        long maxDelay = Duration.ofDays(1).toMillis();
        rejects(mykit(maxDelay, null, null, null, NOW + 1), "delay");
        assertThat(factory.create(mykit(maxDelay, null, null, null, NOW), NOW, "")
                        .executeAt())
                .isEqualTo(NOW + maxDelay);
    }

    @Test
    void mykit_delay_create_time_is_kept_as_given() {
        assertThat(factory.create(mykit(10_000L, null, 0, 12L, NOW - 4_000), NOW, "")
                        .createTime())
                .isEqualTo(NOW - 4_000);
        assertThat(factory.create(mykit(10_000L, null, 0, 12L, null), NOW, "").createTime())
                .as("without createTime the job is created now")
                .isEqualTo(NOW);
    }
}
