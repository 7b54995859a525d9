package io.delayqueue.queue.engine.handover;

import io.delayqueue.common.Job;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

/**
 * Long-poll consumers of pull topics, served without holding a thread per consumer. A waiting consumer is
 * served as soon as its topic is signalled (a scanner made jobs of it ready), oldest first, with up to the number
 * of jobs it asked for; each reservation goes to exactly one consumer. Topics with waiters are also re-checked every {@code recheck},
 * for jobs made ready by another instance.
 */
public final class PullWaiters implements AutoCloseable {
    private static final int WAITING = 0;
    private static final int SERVING = 1;
    private static final int DONE = 2;

    /** Reserves up to a number of ready jobs of a topic now, none when none is ready. */
    private final BiFunction<String, Integer, List<Job>> tryReserve;

    private final Map<String, Topic> topics = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timer;
    private final ExecutorService servers;
    private volatile boolean closed;

    public PullWaiters(BiFunction<String, Integer, List<Job>> tryReserve, long recheckMs) {
        this.tryReserve = tryReserve;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "delay-pull-timer"));
        this.servers = Executors.newFixedThreadPool(2, r -> daemon(r, "delay-pull"));
        timer.scheduleWithFixedDelay(this::recheckAll, recheckMs, recheckMs, TimeUnit.MILLISECONDS);
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    private static final class Waiter {
        final CompletableFuture<List<Job>> future = new CompletableFuture<>();
        final AtomicInteger state = new AtomicInteger(WAITING);
        final int count;
        final long deadlineNanos;

        Waiter(int count, long deadlineNanos) {
            this.count = count;
            this.deadlineNanos = deadlineNanos;
        }
    }

    private static final class Topic {
        final Deque<Waiter> waiters = new ArrayDeque<>();
        boolean running;
        boolean again;
    }

    /**
     * Reserves up to {@code count} jobs of {@code topic}, waiting up to {@code timeoutMs} for one to become ready:
     * answered with the jobs ready now, else with those of the first reservation that finds any, else empty at the
     * timeout. A future already complete when returned was answered on the caller's thread.
     */
    public CompletableFuture<List<Job>> await(String topic, int count, long timeoutMs) {
        List<Job> now = tryReserve.apply(topic, count);
        if (!now.isEmpty() || timeoutMs <= 0) {
            return CompletableFuture.completedFuture(now);
        }
        Waiter w = new Waiter(count, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs));
        Topic t = topics.computeIfAbsent(topic, k -> new Topic());
        synchronized (t) {
            t.waiters.addLast(w);
        }
        timer.schedule(() -> expire(t, w), timeoutMs, TimeUnit.MILLISECONDS);
        signal(topic);
        return w.future;
    }

    /** Jobs of {@code topic} may have become ready. */
    public void signal(String topic) {
        Topic t = topics.get(topic);
        if (t == null) {
            return;
        }
        synchronized (t) {
            if (t.running) {
                // checked first: the server may hold the only waiter out of the queue right now, and must
                // look again after putting it back
                t.again = true;
                return;
            }
            if (t.waiters.isEmpty()) {
                return;
            }
            t.running = true;
        }
        servers.execute(() -> serve(t, topic));
    }

    private void serve(Topic t, String topic) {
        while (true) {
            synchronized (t) {
                t.again = false;
            }
            serveWaiting(t, topic);
            synchronized (t) {
                if (!t.again || t.waiters.isEmpty()) {
                    t.running = false;
                    return;
                }
            }
        }
    }

    private void serveWaiting(Topic t, String topic) {
        while (true) {
            Waiter w;
            synchronized (t) {
                w = t.waiters.pollFirst();
            }
            if (w == null) {
                return;
            }
            if (!w.state.compareAndSet(WAITING, SERVING)) {
                continue;
            }
            List<Job> jobs;
            try {
                jobs = tryReserve.apply(topic, w.count);
            } catch (RuntimeException e) {
                w.state.set(DONE);
                w.future.completeExceptionally(e);
                continue;
            }
            if (!jobs.isEmpty()) {
                w.state.set(DONE);
                w.future.complete(jobs);
                continue;
            }
            if (System.nanoTime() - w.deadlineNanos >= 0) {
                w.state.set(DONE);
                w.future.complete(List.of());
                continue;
            }
            synchronized (t) {
                if (closed) {
                    // close() already answered the queued waiters and stopped the expiry timer
                    w.state.set(DONE);
                    w.future.complete(List.of());
                    return;
                }
                w.state.set(WAITING);
                t.waiters.addFirst(w);
            }
            return;
        }
    }

    private void expire(Topic t, Waiter w) {
        if (w.state.compareAndSet(WAITING, DONE)) {
            synchronized (t) {
                t.waiters.remove(w);
            }
            w.future.complete(List.of());
        } else if (w.state.get() == SERVING) {
            // being served right now: the server completes it, or puts it back and we look again shortly
            timer.schedule(() -> expire(t, w), 1, TimeUnit.MILLISECONDS);
        }
    }

    private void recheckAll() {
        topics.forEach((topic, t) -> signal(topic));
    }

    public int waiting() {
        int n = 0;
        for (Topic t : topics.values()) {
            synchronized (t) {
                n += t.waiters.size();
            }
        }
        return n;
    }

    @Override
    public void close() {
        closed = true;
        timer.shutdownNow();
        servers.shutdown();
        for (Topic t : topics.values()) {
            synchronized (t) {
                for (Waiter w : t.waiters) {
                    if (w.state.compareAndSet(WAITING, DONE)) {
                        w.future.complete(List.of());
                    }
                }
                t.waiters.clear();
            }
        }
    }
}
