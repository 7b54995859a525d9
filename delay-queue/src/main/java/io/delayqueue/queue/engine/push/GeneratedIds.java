package io.delayqueue.queue.engine.push;

import io.delayqueue.common.JobIds;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntSupplier;

/**
 * Ids for jobs pushed without one: a {@link JobIds.Generator} whose node is claimed (from the store) on the
 * first id, not before, so that an engine can be built while Redis is down.
 *
 * <p>One claim at a time: callers that need an id while the claim runs wait for that claim, and share its
 * failure if it fails (so a Redis outage costs each caller one timeout, not one per caller ahead of it). A
 * failed claim is forgotten, and the next id claims again.
 */
final class GeneratedIds {
    private final IntSupplier claimNode;
    private final AtomicReference<CompletableFuture<JobIds.Generator>> claim = new AtomicReference<>();
    private volatile JobIds.Generator generator;

    /** @param claimNode claims a node number no other live instance holds; may throw (the id then fails) */
    GeneratedIds(IntSupplier claimNode) {
        this.claimNode = claimNode;
    }

    String next(long nowMillis) {
        JobIds.Generator g = generator;
        return (g != null ? g : claimed()).next(nowMillis);
    }

    private JobIds.Generator claimed() {
        while (true) {
            CompletableFuture<JobIds.Generator> running = claim.get();
            if (running != null) {
                try {
                    return running.join();
                } catch (CompletionException e) {
                    throw e.getCause() instanceof RuntimeException r ? r : e;
                }
            }
            CompletableFuture<JobIds.Generator> mine = new CompletableFuture<>();
            if (claim.compareAndSet(null, mine)) {
                try {
                    JobIds.Generator g = new JobIds.Generator(claimNode.getAsInt());
                    generator = g;
                    mine.complete(g);
                    return g;
                } catch (Throwable e) {
                    claim.set(null);
                    mine.completeExceptionally(e);
                    throw e;
                }
            }
        }
    }
}
