package io.delayqueue.queue.dispatch;

import io.delayqueue.common.Job;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * The bounded pool of a dispatcher whose client blocks until the receiver confirmed (a synchronous
 * RocketMQ or JMS send): a fixed number of threads and a queue of fixed capacity. {@link #submit} never
 * blocks its caller (a shard scanner): when the queue is full the send is turned away at once with a
 * {@link DispatchRejectedException}, and a send that waited in the queue longer than {@code maxQueueWait}
 * is turned away instead of started, since its reservation could expire (and the job be delivered a
 * second time) before it completes. Either way nothing was sent and no attempt is counted.
 *
 * <p>Each send must bound its own duration (the client's send timeout); {@link #maxQueueWait(Duration,
 * Duration)} derives the queue wait that keeps queue wait plus send within the engine's dispatch timeout.
 */
public final class BlockingSendPool implements AutoCloseable {
    /** A send that returns normally only once the receiver confirmed the job. */
    @FunctionalInterface
    public interface BlockingSend {
        void send(Job job) throws Exception;
    }

    private final String name;
    private final int queueCapacity;
    private final long maxQueueWaitNanos;
    private final Duration closeTimeout;
    private final LongSupplier nanoTime;
    private final ArrayBlockingQueue<Runnable> queue;
    private final ThreadPoolExecutor executor;

    /**
     * @param name the dispatcher's name, for threads and messages
     * @param closeTimeout how long {@link #close()} waits for sends already running
     */
    public BlockingSendPool(String name, int threads, int queueCapacity, Duration maxQueueWait, Duration closeTimeout) {
        this(name, threads, queueCapacity, maxQueueWait, closeTimeout, System::nanoTime);
    }

    /** @param nanoTime the source of {@link System#nanoTime()}, replaceable in tests */
    BlockingSendPool(
            String name,
            int threads,
            int queueCapacity,
            Duration maxQueueWait,
            Duration closeTimeout,
            LongSupplier nanoTime) {
        if (threads < 1 || queueCapacity < 1) {
            throw new IllegalArgumentException(name + ": threads and queue capacity must be at least 1");
        }
        if (maxQueueWait.isNegative() || maxQueueWait.isZero()) {
            throw new IllegalArgumentException(name + ": max queue wait must be positive");
        }
        this.name = name;
        this.queueCapacity = queueCapacity;
        this.maxQueueWaitNanos = maxQueueWait.toNanos();
        this.closeTimeout = closeTimeout;
        this.nanoTime = nanoTime;
        this.queue = new ArrayBlockingQueue<>(queueCapacity);
        AtomicInteger count = new AtomicInteger();
        this.executor = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS, queue, r -> {
            Thread t = new Thread(r, "delay-" + name + "-" + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * How long a send may wait in the queue: what the dispatch timeout leaves after the longest send and a
     * second for the acknowledgement. Throws when nothing is left, naming both settings.
     */
    public static Duration maxQueueWait(Duration dispatchTimeout, Duration sendTimeout) {
        Duration left = dispatchTimeout.minus(sendTimeout).minusSeconds(1);
        if (left.isNegative() || left.isZero()) {
            throw new IllegalArgumentException("the send timeout (" + sendTimeout
                    + ") must be well below delay.dispatch.timeout (" + dispatchTimeout
                    + "): a send still running when its reservation expires delivers the job twice");
        }
        return left;
    }

    /** Runs {@code send} on the pool; the result completes when it returned or threw. */
    public CompletableFuture<Void> submit(Job job, BlockingSend send) {
        Task task = new Task(job, send);
        try {
            executor.execute(task);
        } catch (RejectedExecutionException e) {
            task.result.completeExceptionally(new DispatchRejectedException(
                    executor.isShutdown()
                            ? name + " is closing"
                            : name + " has " + queueCapacity + " sends queued already"));
        }
        return task.result;
    }

    /** Sends waiting for a thread. */
    public int queued() {
        return queue.size();
    }

    /**
     * Turns away the sends still queued (the engine puts them back unsent), then waits up to the close
     * timeout for the running ones.
     */
    @Override
    public void close() {
        executor.shutdown();
        List<Runnable> pending = new ArrayList<>();
        queue.drainTo(pending);
        for (Runnable r : pending) {
            ((Task) r).result.completeExceptionally(new DispatchRejectedException(name + " is closing"));
        }
        try {
            if (!executor.awaitTermination(closeTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    private final class Task implements Runnable {
        final Job job;
        final BlockingSend send;
        final long queuedAt = nanoTime.getAsLong();
        final CompletableFuture<Void> result = new CompletableFuture<>();

        Task(Job job, BlockingSend send) {
            this.job = job;
            this.send = send;
        }

        @Override
        public void run() {
            long waited = nanoTime.getAsLong() - queuedAt;
            if (waited > maxQueueWaitNanos) {
                result.completeExceptionally(new DispatchRejectedException(name + ": job " + job.id() + " waited "
                        + TimeUnit.NANOSECONDS.toMillis(waited) + " ms for a thread; not sent"));
                return;
            }
            try {
                send.send(job);
                result.complete(null);
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        }
    }
}
