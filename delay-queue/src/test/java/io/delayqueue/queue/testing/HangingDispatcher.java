package io.delayqueue.queue.testing;

import io.delayqueue.common.Job;
import io.delayqueue.queue.dispatch.Dispatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A dispatcher whose receiver hangs: every send stays open (neither confirmed nor failed) until {@link
 * #recover()}, which confirms the open ones and every later send at once. Remembers how many sends were
 * open at the same time, at most.
 */
public final class HangingDispatcher implements Dispatcher {
    private final String name;
    private final List<CompletableFuture<Void>> open = new ArrayList<>();
    private final List<String> ids = new ArrayList<>();
    private boolean hanging = true;
    private int maxOpen;

    public HangingDispatcher(String name) {
        this.name = name;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public synchronized CompletionStage<Void> dispatch(Job job) {
        ids.add(job.id());
        if (!hanging) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> send = new CompletableFuture<>();
        open.add(send);
        maxOpen = Math.max(maxOpen, open.size());
        return send;
    }

    /** The receiver is back: confirms every open send and every later one. */
    public void recover() {
        List<CompletableFuture<Void>> toConfirm;
        synchronized (this) {
            hanging = false;
            toConfirm = new ArrayList<>(open);
            open.clear();
        }
        toConfirm.forEach(f -> f.complete(null));
    }

    public synchronized int open() {
        return open.size();
    }

    public synchronized int maxOpen() {
        return maxOpen;
    }

    /** Every job handed over so far, in order (a job handed over twice appears twice). */
    public synchronized List<String> ids() {
        return List.copyOf(ids);
    }
}
