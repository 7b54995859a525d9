package io.delayqueue.queue.testing;

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
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A dispatcher that records every job it is handed (with the monotonic and the wall-clock time) and
 * confirms it, or fails the send while {@link #failSends(boolean)} is on. The end-to-end tests register
 * it as a bean under the routing name {@value #NAME}.
 */
public final class RecordingDispatcher implements Dispatcher {
    /** The routing name of {@link #RecordingDispatcher()}. */
    public static final String NAME = "recording";

    /**
     * One call of {@link #dispatch}: {@code atNanos} is {@link System#nanoTime()} and {@code wallMs}
     * {@link System#currentTimeMillis()} when the dispatcher got the job.
     */
    public record Delivery(Job job, long atNanos, long wallMs, boolean failed) {
        public String id() {
            return job.id();
        }

        public String topic() {
            return job.topic();
        }

        public long executeAt() {
            return job.executeAt();
        }

        public int attempts() {
            return job.attempts();
        }

        /** How late the hand-over was, in wall-clock ms after the due time. */
        public long latenessMs() {
            return wallMs - job.executeAt();
        }
    }

    private final String name;
    private final AtomicBoolean fail = new AtomicBoolean();
    private final List<Delivery> deliveries = new ArrayList<>();

    /** A dispatcher named {@value #NAME}. */
    public RecordingDispatcher() {
        this(NAME);
    }

    public RecordingDispatcher(String name) {
        this.name = name;
    }

    public void failSends(boolean failing) {
        fail.set(failing);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public CompletionStage<Void> dispatch(Job job) {
        boolean failing = fail.get();
        synchronized (this) {
            deliveries.add(new Delivery(job, System.nanoTime(), System.currentTimeMillis(), failing));
            notifyAll();
        }
        return failing
                ? CompletableFuture.failedFuture(new IllegalStateException("receiver refused " + job.id()))
                : CompletableFuture.completedFuture(null);
    }

    /** Every call so far, failed ones included, oldest first. */
    public synchronized List<Delivery> deliveries() {
        return List.copyOf(deliveries);
    }

    /** Deliveries of the given jobs only, oldest first, as a snapshot. */
    public synchronized List<Delivery> deliveriesOf(Set<String> ids) {
        List<Delivery> out = new ArrayList<>();
        for (Delivery d : deliveries) {
            if (ids.contains(d.id())) {
                out.add(d);
            }
        }
        return out;
    }

    /** Ids of every job handed over so far (failed sends included), oldest first. */
    public synchronized List<String> ids() {
        List<String> ids = new ArrayList<>(deliveries.size());
        deliveries.forEach(d -> ids.add(d.id()));
        return ids;
    }

    public synchronized int count() {
        return deliveries.size();
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
