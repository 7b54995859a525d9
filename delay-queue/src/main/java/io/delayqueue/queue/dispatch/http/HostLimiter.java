package io.delayqueue.queue.dispatch.http;

import io.delayqueue.queue.dispatch.DispatchRejectedException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * At most {@code perHost} callbacks open at once to one host (a key: the connection pool's route, {@link
 * HttpCallbackDispatcher#route}, so that the pool never holds more callbacks than this lets through): the client then keeps at most
 * that many keep-alive connections to it and reuses them, instead of opening one per job. A callback beyond that
 * waits, in order, and starts as soon as one to the same host completes; other hosts are not held up. A callback
 * that waited longer than {@code maxQueueWait} is not started but turned away ({@link DispatchRejectedException}:
 * nothing was sent, the engine puts the job back without counting an attempt), since its reservation could expire
 * before it completes. Every callback bounds its own duration (the client's timeouts), so a slot always frees.
 *
 * <p>Thread-safe: the counts and queues are guarded by this object's monitor; sends start outside it.
 */
final class HostLimiter {
    private final int perHost;
    private final long maxQueueWaitNanos;
    private final LongSupplier nanoTime;
    private final Map<String, Host> hosts = new HashMap<>();

    private static final class Host {
        int open;
        final ArrayDeque<Pending> queue = new ArrayDeque<>();
    }

    private record Pending(Supplier<CompletableFuture<Void>> send, CompletableFuture<Void> result, long queuedAt) {}

    HostLimiter(int perHost, long maxQueueWaitNanos, LongSupplier nanoTime) {
        if (perHost < 1) {
            throw new IllegalArgumentException("delay.http.max-connections-per-host must be at least 1");
        }
        this.perHost = perHost;
        this.maxQueueWaitNanos = maxQueueWaitNanos;
        this.nanoTime = nanoTime;
    }

    /** Runs {@code send} now if {@code host} has a free slot, else once it has; the result completes with it. */
    CompletableFuture<Void> submit(String host, Supplier<CompletableFuture<Void>> send) {
        Pending pending = new Pending(send, new CompletableFuture<>(), nanoTime.getAsLong());
        synchronized (this) {
            Host h = hosts.computeIfAbsent(host, k -> new Host());
            if (h.open >= perHost) {
                h.queue.add(pending);
                return pending.result();
            }
            h.open++;
        }
        start(host, pending);
        return pending.result();
    }

    private void start(String host, Pending pending) {
        CompletableFuture<Void> sent;
        try {
            sent = pending.send().get();
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        sent.whenComplete((ok, error) -> {
            Pending next = done(host);
            if (error == null) {
                pending.result().complete(null);
            } else {
                pending.result().completeExceptionally(error);
            }
            if (next != null) {
                start(host, next);
            }
        });
    }

    /** A callback to {@code host} completed: the next one to start (the slot passes to it), or none. */
    private Pending done(String host) {
        List<Pending> tooLate = new ArrayList<>(0);
        Pending next = null;
        synchronized (this) {
            Host h = hosts.get(host);
            long now = nanoTime.getAsLong();
            while (next == null && !h.queue.isEmpty()) {
                Pending p = h.queue.poll();
                if (now - p.queuedAt() > maxQueueWaitNanos) {
                    tooLate.add(p);
                } else {
                    next = p;
                }
            }
            if (next == null && --h.open == 0) {
                hosts.remove(host);
            }
        }
        for (Pending p : tooLate) {
            p.result()
                    .completeExceptionally(new DispatchRejectedException("callback to " + host + " waited "
                            + TimeUnit.NANOSECONDS.toMillis(now() - p.queuedAt())
                            + " ms for a connection; not sent"));
        }
        return next;
    }

    private long now() {
        return nanoTime.getAsLong();
    }

    /** Callbacks open to {@code host} now. */
    synchronized int open(String host) {
        Host h = hosts.get(host);
        return h == null ? 0 : h.open;
    }

    /** Callbacks waiting for a slot of {@code host} now. */
    synchronized int queued(String host) {
        Host h = hosts.get(host);
        return h == null ? 0 : h.queue.size();
    }
}
