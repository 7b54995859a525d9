package io.delayqueue.e2e.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.common.JobStatus;
import io.delayqueue.sample.SampleConsumer.Delivery;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;

/** What a real consumer received, as a thread-safe log; {@link #record()} is its listener. */
public final class Deliveries {
    private final ConcurrentLinkedQueue<Delivery> received = new ConcurrentLinkedQueue<>();

    public Consumer<Delivery> record() {
        return received::add;
    }

    /** Every delivery of the given jobs, in arrival order. */
    public List<Delivery> of(Collection<String> ids) {
        java.util.Set<String> wanted = ids instanceof java.util.Set<String> s ? s : new java.util.HashSet<>(ids);
        List<Delivery> out = new ArrayList<>();
        for (Delivery d : received) {
            if (wanted.contains(d.jobId())) {
                out.add(d);
            }
        }
        return out;
    }

    /** How many times each of the given jobs arrived (absent: never). */
    public Map<String, Integer> countById(Collection<String> ids) {
        Map<String, Integer> counts = new HashMap<>();
        for (Delivery d : of(ids)) {
            counts.merge(d.jobId(), 1, Integer::sum);
        }
        return counts;
    }

    /** How many of the given jobs arrived at least once. */
    public int distinct(Collection<String> ids) {
        return countById(ids).size();
    }

    /** The earliest time the broker stored each of the given jobs. */
    public Map<String, Long> firstStoredAt(Collection<String> ids) {
        Map<String, Long> first = new HashMap<>();
        for (Delivery d : of(ids)) {
            first.merge(d.jobId(), d.storedAt(), Math::min);
        }
        return first;
    }

    /**
     * Waits, at most {@code atMost}, until each of the {@code jobs} jobs in {@code ids} reached the consumer and
     * the journal has it {@code FINISHED}; a timeout says how many of each there were.
     */
    public void awaitEveryJobFinished(
            String what, Duration atMost, Collection<String> ids, int jobs, RecordingJournal journal) {
        await(what).atMost(atMost).untilAsserted(() -> assertThat(
                        distinct(ids) == jobs && journal.count(ids, JobStatus.FINISHED) == jobs)
                .as(() -> what + " (received " + distinct(ids) + " of " + jobs + ", finished "
                        + journal.count(ids, JobStatus.FINISHED) + ")")
                .isTrue());
    }
}
