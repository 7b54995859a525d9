package io.delayqueue.bench;

import io.delayqueue.common.Job;
import io.delayqueue.queue.dispatch.Dispatcher;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The benchmark's in-process receiver (routing name {@value #NAME}): records each job into {@link HandOvers}
 * and confirms it at once, so that what is measured is the engine's hand-over, not a broker's.
 */
final class CountingDispatcher implements Dispatcher {
    static final String NAME = "bench-counting";
    private final HandOvers handOvers;

    CountingDispatcher(HandOvers handOvers) {
        this.handOvers = handOvers;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public CompletionStage<Void> dispatch(Job job) {
        handOvers.record(job.executeAt());
        return CompletableFuture.completedFuture(null);
    }
}
