package io.delayqueue.e2e.support;

import io.delayqueue.common.Job;
import io.delayqueue.queue.dispatch.Dispatcher;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A dispatcher (routing name {@value #NAME}) that confirms every send at once and remembers each one: the
 * job id, its due time and the wall-clock time of the hand-over.
 */
public final class RecordingDispatcher implements Dispatcher {
    public static final String NAME = "recording";

    /** One hand-over. {@code wallMs} is {@link System#currentTimeMillis()} when the dispatcher got the job. */
    public record Delivery(String id, String topic, long executeAt, long wallMs, int attempts) {
        public long latenessMs() {
            return wallMs - executeAt;
        }
    }

    private final ConcurrentLinkedQueue<Delivery> deliveries = new ConcurrentLinkedQueue<>();

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public CompletionStage<Void> dispatch(Job job) {
        deliveries.add(
                new Delivery(job.id(), job.topic(), job.executeAt(), System.currentTimeMillis(), job.attempts()));
        return CompletableFuture.completedFuture(null);
    }

    public List<Delivery> deliveries() {
        return new ArrayList<>(deliveries);
    }

    public int size() {
        return deliveries.size();
    }

    /** Deliveries of the given jobs only, as a snapshot. */
    public List<Delivery> deliveriesOf(Set<String> ids) {
        List<Delivery> out = new ArrayList<>();
        for (Delivery d : deliveries) {
            if (ids.contains(d.id())) {
                out.add(d);
            }
        }
        return out;
    }

    /** How many times each job was handed over. */
    public static Map<String, Integer> countById(Collection<Delivery> deliveries) {
        Map<String, Integer> counts = new HashMap<>();
        for (Delivery d : deliveries) {
            counts.merge(d.id(), 1, Integer::sum);
        }
        return counts;
    }
}
