package io.delayqueue.e2e.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.queue.testing.JournalDatabase;
import io.delayqueue.queue.testing.RecordingDispatcher;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * A fail-over to a replica that lags (issue 25), run against the real HTTP service on a Redis deployment with a
 * replica (Sentinel, Cluster): the replica is cut off from its master (it keeps trying and receives nothing); then
 * jobs are deleted (answered 200), pushed (answered 200) and handed over (journaled {@code FINISHED}) on the master
 * alone, and the master is killed with {@code kill -9}; the deployment promotes the lagging replica. No job answered
 * deleted may be handed over, the pushes the replica lacked must be handed over within 5 s of their due time or the
 * promotion, and no job whose hand-over was journaled may be handed over again. The service's reconciler grace must be
 * long (a minute), so that it cannot be what heals the queue: the fail-over protocol's replay must.
 */
public final class LaggingReplicaDrill {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int JOBS = 30;
    /** The most a job the new master lacked may be handed over after its due time or the promotion. */
    private static final long LATE_AT_MOST_MS = 5_000;

    /** The Redis deployment under the service: its master (of the jobs' shards) and that master's replica. */
    public interface Deployment {
        /** Waits until the replica has every write its master made so far. */
        void awaitReplicaInSync();

        /** Cuts the replica off from its master and waits until it says so. */
        void cutReplicaLink();

        /** Kills the master with {@code kill -9}. */
        void killMaster();

        /** Whether the replica was promoted to master (and the deployment routes to it). */
        boolean promoted();
    }

    private final Api api;
    private final RecordingDispatcher recorder;
    private final JournalDatabase journal;
    private final Deployment deployment;
    /** Which ids the drill's jobs may have: those of the shards on the master the drill kills. */
    private final Predicate<String> onTheMaster;

    private final String run = UUID.randomUUID().toString().substring(0, 8);
    private long ids;

    public LaggingReplicaDrill(
            Api api,
            RecordingDispatcher recorder,
            JournalDatabase journal,
            Deployment deployment,
            Predicate<String> onTheMaster) {
        this.api = api;
        this.recorder = recorder;
        this.journal = journal;
        this.deployment = deployment;
        this.onTheMaster = onTheMaster;
    }

    /** Runs the drill, prints its figures and asserts what must hold. */
    public void run(String name) {
        long pushedAt = System.currentTimeMillis();
        // due after the promotion: deleted once the replica is cut off
        List<String> deleted = push("deleted", 15_000);
        // due after those: by then every deleted job would have been handed over
        List<String> kept = push("kept", 17_000);
        deployment.awaitReplicaInSync();

        deployment.cutReplicaLink();
        SteadyPushes steady = new SteadyPushes();
        Thread steadyThread = new Thread(steady, "drill-steady-pushes");
        steadyThread.start();
        Map<String, Integer> deleteAnswers = new LinkedHashMap<>();
        for (String id : deleted) {
            deleteAnswers.put(id, api.delete("/jobs/" + id).status());
        }
        List<String> answeredDeleted = deleteAnswers.entrySet().stream()
                .filter(e -> e.getValue() == 200)
                .map(Map.Entry::getKey)
                .toList();
        Map<String, Long> lostDue = new HashMap<>();
        long lostPushedAt = System.currentTimeMillis();
        for (String id : push("lost", 4_000)) {
            lostDue.put(id, lostPushedAt + 4_000);
        }
        List<String> finished = push("finished", 0);
        await("the jobs due at once were handed over and journaled FINISHED")
                .atMost(WAIT)
                .until(() -> journaled(finished, "FINISHED") == finished.size());

        long killedAt = System.currentTimeMillis();
        deployment.killMaster();
        // a superset of the hand-overs journaled when the master died: every one of them is journaled before the
        // replay reads the journal, which comes after the promotion
        Set<String> finishedAtKill = journaledIds(steady.pushed(), "FINISHED");
        await("the replica was promoted").atMost(WAIT).until(deployment::promoted);
        long promotedAt = System.currentTimeMillis();
        await("steady pushes answered 200 after the promotion")
                .atMost(WAIT)
                .until(() -> steady.durableSince(promotedAt) >= 20);
        steady.stop = true;
        try {
            steadyThread.join(WAIT.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Set<String> durable = steady.durable();
        await("every steady push answered 200 or 202 was handed over")
                .atMost(WAIT)
                .until(() -> deliveredIds(durable).size() == durable.size());

        await("the pushes the new master lacked were handed over")
                .atMost(WAIT)
                .until(() -> deliveredIds(lostDue.keySet()).size() == lostDue.size());
        await("the jobs due after the deleted ones were handed over")
                .atMost(Duration.ofMillis(Math.max(0, pushedAt + 17_000 - System.currentTimeMillis()))
                        .plus(WAIT))
                .until(() -> deliveredIds(Set.copyOf(kept)).size() == kept.size());

        Map<String, Long> firstDelivery = recorder.deliveriesOf(lostDue.keySet()).stream()
                .collect(Collectors.toMap(
                        RecordingDispatcher.Delivery::id, RecordingDispatcher.Delivery::wallMs, Math::min));
        long latest = 0;
        for (var e : firstDelivery.entrySet()) {
            latest = Math.max(latest, e.getValue() - Math.max(lostDue.get(e.getKey()), promotedAt));
        }
        List<RecordingDispatcher.Delivery> finishedAgain = recorder.deliveriesOf(Set.copyOf(finished));
        Set<String> duplicated = RecordingDispatcher.countById(recorder.deliveriesOf(durable)).entrySet().stream()
                .filter(e -> e.getValue() > 1)
                .map(Map.Entry::getKey)
                .collect(Collectors.toSet());
        Set<String> duplicatedThoughJournaled =
                duplicated.stream().filter(finishedAtKill::contains).collect(Collectors.toSet());
        System.out.printf(
                "%s fail-over under steady pushes due at once: %d pushed (%d answered 200 or 202), all handed over;"
                        + " %d handed over twice, none of them journaled FINISHED when the master died (%d were)%n",
                name, steady.pushed().size(), durable.size(), duplicated.size(), finishedAtKill.size());
        System.out.printf(
                "%s fail-over to a lagging replica (promoted %d ms after the kill): %d of %d deletes answered 200, %d of"
                        + " them handed over; %d pushes"
                        + " the new master lacked handed over at most %d ms after their due time or the promotion;"
                        + " %d of %d jobs journaled FINISHED before the kill handed over again%n",
                name,
                promotedAt - killedAt,
                answeredDeleted.size(),
                deleted.size(),
                recorder.deliveriesOf(Set.copyOf(answeredDeleted)).size(),
                lostDue.size(),
                latest,
                finishedAgain.size() - finished.size(),
                finished.size());
        assertThat(answeredDeleted)
                .as("deletes answered 200 (the replica wait had seen no replica yet)")
                .isNotEmpty();
        assertThat(recorder.deliveriesOf(Set.copyOf(answeredDeleted)))
                .as("jobs whose delete was answered 200, handed over")
                .isEmpty();
        assertThat(latest)
                .as("ms after its due time or the promotion the last lost push was handed over")
                .isLessThanOrEqualTo(LATE_AT_MOST_MS);
        assertThat(finishedAgain)
                .as("jobs journaled FINISHED before the kill, handed over (again)")
                .hasSize(finished.size());
        assertThat(duplicatedThoughJournaled)
                .as("jobs handed over again although their hand-over was journaled when the master died")
                .isEmpty();
        assertThat(api.get("/actuator/health").status()).isEqualTo(200);
    }

    /**
     * Pushes jobs due at once, one call after another from before the kill until after the promotion: the load a
     * fail-over meets. A push answered 200 or 202 is durable (the journal holds it) and must be handed over.
     */
    private final class SteadyPushes implements Runnable {
        private final Map<String, Integer> answers = new ConcurrentHashMap<>();
        private final Map<String, Long> answeredAt = new ConcurrentHashMap<>();
        volatile boolean stop;

        @Override
        public void run() {
            while (!stop) {
                String id = nextId();
                try {
                    Api.Response r = api.postJson(
                            "/push", Map.of("id", id, "topic", "e2e.steady", "body", "steady", "delay", 0));
                    answers.put(id, r.status());
                    answeredAt.put(id, System.currentTimeMillis());
                } catch (UncheckedIOException e) {
                    answers.put(id, 0);
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        List<String> pushed() {
            return List.copyOf(answers.keySet());
        }

        Set<String> durable() {
            return answers.entrySet().stream()
                    .filter(e -> e.getValue() == 200 || e.getValue() == 202)
                    .map(Map.Entry::getKey)
                    .collect(Collectors.toSet());
        }

        long durableSince(long since) {
            return durable().stream()
                    .filter(id -> answeredAt.getOrDefault(id, 0L) >= since)
                    .count();
        }
    }

    /** An id of the shards on the master, not used yet. */
    private synchronized String nextId() {
        while (true) {
            String id = "drill-" + run + "-" + ids++;
            if (onTheMaster.test(id)) {
                return id;
            }
        }
    }

    /** Pushes {@value #JOBS} jobs of {@code topic} with ids of the shards on the master, due in {@code delayMs}. */
    private List<String> push(String topic, long delayMs) {
        List<String> pushed = new ArrayList<>();
        while (pushed.size() < JOBS) {
            String id = nextId();
            Api.Response r =
                    api.postJson("/push", Map.of("id", id, "topic", "e2e." + topic, "body", topic, "delay", delayMs));
            assertThat(r.status()).as("push: %s", r).isEqualTo(200);
            pushed.add(id);
        }
        return pushed;
    }

    private Set<String> deliveredIds(Set<String> of) {
        try {
            return recorder.deliveriesOf(of).stream()
                    .map(RecordingDispatcher.Delivery::id)
                    .collect(Collectors.toSet());
        } catch (UncheckedIOException e) {
            return Set.of();
        }
    }

    private Set<String> journaledIds(List<String> of, String status) {
        if (of.isEmpty()) {
            return Set.of();
        }
        return Set.copyOf(journal.queryStrings("SELECT id FROM delay_queue_job WHERE status = '" + status
                + "' AND id IN (" + of.stream().map(id -> "'" + id + "'").collect(Collectors.joining(",")) + ")"));
    }

    private long journaled(List<String> of, String status) {
        return journal.queryLong("SELECT COUNT(*) FROM delay_queue_job WHERE status = '" + status + "' AND id IN ("
                + of.stream().map(id -> "'" + id + "'").collect(Collectors.joining(",")) + ")");
    }
}
