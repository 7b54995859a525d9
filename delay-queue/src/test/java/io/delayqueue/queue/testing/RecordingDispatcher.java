package io.delayqueue.queue.testing;

import io.delayqueue.common.Job;
import io.delayqueue.queue.dispatch.Dispatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A dispatcher that records every job it is handed (with the wall-clock time) and confirms it, or fails
 * the send while {@link #failSends(boolean)} is on.
 */
public final class RecordingDispatcher implements Dispatcher {
    /** One call of {@link #dispatch}. */
    public record Delivery(Job job, long atNanos, boolean failed) {}

    private final String name;
    private final AtomicBoolean fail = new AtomicBoolean();
    private final List<Delivery> deliveries = new ArrayList<>();

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
            deliveries.add(new Delivery(job, System.nanoTime(), failing));
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

    /** Ids of every job handed over so far (failed sends included), oldest first. */
    public synchronized List<String> ids() {
        List<String> ids = new ArrayList<>(deliveries.size());
        deliveries.forEach(d -> ids.add(d.job().id()));
        return ids;
    }

    public synchronized int count() {
        return deliveries.size();
    }
}
