package io.delayqueue.client;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Consumes a pull topic: one poller thread reserves jobs in batches ({@code GET /get/{topic}?count=&timeout=}, a
 * long poll) for as many handlers as are free, {@code concurrency} worker threads run the {@link JobHandler} on
 * each, and one finisher thread finishes the handled jobs in batches ({@code POST /jobs/finish} with each
 * reservation's {@code attempts}, so a finish that comes after the reservation ran out is {@code STALE} and
 * changes nothing). Delivery is at least once: a job whose handler threw, or whose finish did not reach the service
 * within its ttr, comes back and is handled again.
 *
 * <p>While the service cannot be reached (restarting, say) the poller waits as the client's {@link RetryPolicy}
 * backs off and polls again, and the finisher repeats its finishes while their reservations last.
 *
 * <p>Lifecycle: {@link Builder#start()} starts it, {@link #close()} stops it: no new poll, the poll under way (at
 * most the poll timeout) is answered and its jobs handled, running handlers get the grace to return, and the jobs
 * they handled are finished before {@code close} returns. Handlers still running after the grace are interrupted
 * and their jobs come back after their ttr.
 */
public final class PullConsumer implements AutoCloseable {
    public static final int DEFAULT_CONCURRENCY = 1;
    public static final int DEFAULT_BATCH_SIZE = 10;
    /** The service's {@code delay.pull.max-timeout} is 30 s by default. */
    public static final Duration DEFAULT_POLL_TIMEOUT = Duration.ofSeconds(5);

    public static final Duration DEFAULT_SHUTDOWN_GRACE = Duration.ofSeconds(30);

    private static final Logger LOG = System.getLogger(PullConsumer.class.getName());

    private enum State {
        STARTED,
        CLOSED
    }

    /** A job reserved, with when its reservation runs out (System.nanoTime). */
    private record Reservation(Job job, long expiresAt) {}

    private final DelayQueueClient client;
    private final String topic;
    private final JobHandler handler;
    private final int concurrency;
    private final int batchSize;
    private final Duration pollTimeout;
    private final Duration grace;
    private final List<ConsumerListener> listeners;

    private final AtomicReference<State> state = new AtomicReference<>(State.STARTED);
    private final Semaphore freeHandlers;
    private final BlockingQueue<Reservation> handled = new LinkedBlockingQueue<>();
    private final ExecutorService workers;
    private final Thread poller;
    private final Thread finisher;
    private volatile boolean finisherStopping;

    private PullConsumer(Builder b) {
        this.client = b.client;
        this.topic = b.topic;
        this.handler = b.handler;
        this.concurrency = b.concurrency;
        this.batchSize = b.batchSize;
        this.pollTimeout = b.pollTimeout;
        this.grace = b.grace;
        this.listeners = List.copyOf(b.listeners);
        this.freeHandlers = new Semaphore(concurrency);
        this.workers = Executors.newFixedThreadPool(concurrency, threads("delay-consumer-" + topic + "-worker-"));
        this.poller = threads("delay-consumer-" + topic + "-poller-").newThread(this::pollUntilClosed);
        this.finisher = threads("delay-consumer-" + topic + "-finisher-").newThread(this::finishUntilStopped);
        poller.start();
        finisher.start();
    }

    public String topic() {
        return topic;
    }

    public boolean isRunning() {
        return state.get() == State.STARTED;
    }

    private void pollUntilClosed() {
        int failures = 0;
        while (state.get() == State.STARTED) {
            int wanted = takeFreeHandlers();
            if (wanted == 0) {
                continue;
            }
            List<Job> jobs;
            try {
                jobs = client.reserve(topic, wanted, pollTimeout);
                failures = 0;
            } catch (DelayQueueClientException e) {
                freeHandlers.release(wanted);
                failures++;
                notify(l -> l.onReserveFailed(e));
                LOG.log(
                        e.isRetryable() ? Level.DEBUG : Level.WARNING,
                        "reserve of {0} failed ({1} in a row): {2}",
                        topic,
                        failures,
                        e.getMessage());
                if (state.get() == State.STARTED) {
                    LockSupport.parkNanos(client.retryPolicy().backoffNanos(failures));
                }
                continue;
            }
            freeHandlers.release(wanted - jobs.size());
            long reservedAt = System.nanoTime();
            for (Job job : jobs) {
                Reservation r = new Reservation(job, reservedAt + TimeUnit.MILLISECONDS.toNanos(job.ttr()));
                try {
                    workers.execute(() -> handle(r));
                } catch (RejectedExecutionException closedPastGrace) {
                    // close() gave up waiting for this poll: the job comes back after its ttr
                    freeHandlers.release();
                }
            }
        }
    }

    /** Waits for a free handler (while started), then takes up to the batch size of them; 0 when closed. */
    private int takeFreeHandlers() {
        try {
            if (!freeHandlers.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                return 0;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            state.set(State.CLOSED);
            return 0;
        }
        int taken = 1;
        while (taken < batchSize && freeHandlers.tryAcquire()) {
            taken++;
        }
        return taken;
    }

    private void handle(Reservation r) {
        long start = System.nanoTime();
        try {
            handler.handle(r.job());
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            notify(l -> l.onHandled(r.job(), took));
            handled.add(r);
        } catch (Throwable e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            notify(l -> l.onHandlerFailed(r.job(), e));
            LOG.log(
                    Level.DEBUG,
                    "handler of {0} threw on job {1}: it comes back after its ttr",
                    topic,
                    r.job().id());
        } finally {
            freeHandlers.release();
        }
    }

    private void finishUntilStopped() {
        List<Reservation> retry = new ArrayList<>();
        int failedRounds = 0;
        while (true) {
            List<Reservation> batch = new ArrayList<>(retry);
            retry.clear();
            try {
                if (batch.isEmpty()) {
                    Reservation first = handled.poll(50, TimeUnit.MILLISECONDS);
                    if (first == null) {
                        if (finisherStopping && handled.isEmpty()) {
                            return;
                        }
                        continue;
                    }
                    batch.add(first);
                }
            } catch (InterruptedException e) {
                return;
            }
            handled.drainTo(batch, DelayQueueClient.MAX_BATCH - batch.size());
            List<FinishOutcome> outcomes;
            try {
                outcomes = client.finishAll(batch.stream().map(Reservation::job).toList());
            } catch (DelayQueueClientException refused) {
                LOG.log(
                        Level.WARNING,
                        "finish of {0} jobs of {1} refused: {2}",
                        batch.size(),
                        topic,
                        refused.getMessage());
                batch.forEach(
                        r -> notifyFinished(r, new FinishOutcome(r.job().id(), FinishOutcome.Outcome.UNKNOWN, null)));
                continue;
            }
            long now = System.nanoTime();
            for (int i = 0; i < batch.size(); i++) {
                Reservation r = batch.get(i);
                FinishOutcome o = outcomes.get(i);
                if (o.outcome() == FinishOutcome.Outcome.UNKNOWN
                        && now - r.expiresAt() < 0
                        && !Thread.currentThread().isInterrupted()) {
                    retry.add(r);
                } else {
                    notifyFinished(r, o);
                }
            }
            if (!retry.isEmpty()) {
                failedRounds++;
                LockSupport.parkNanos(client.retryPolicy().backoffNanos(failedRounds));
            } else {
                failedRounds = 0;
            }
            if (Thread.currentThread().isInterrupted()) {
                retry.forEach(
                        r -> notifyFinished(r, new FinishOutcome(r.job().id(), FinishOutcome.Outcome.UNKNOWN, null)));
                return;
            }
        }
    }

    private void notifyFinished(Reservation r, FinishOutcome o) {
        if (o.outcome() != FinishOutcome.Outcome.FINISHED) {
            LOG.log(Level.DEBUG, "finish of job {0} of {1}: {2}", r.job().id(), topic, o.outcome());
        }
        notify(l -> l.onFinished(r.job(), o));
    }

    private void notify(java.util.function.Consumer<ConsumerListener> call) {
        for (ConsumerListener l : listeners) {
            try {
                call.accept(l);
            } catch (RuntimeException ignored) {
                // a listener's failure is its own
            }
        }
    }

    /**
     * Stops: no new poll; the poll under way is answered and its jobs handled; running handlers get the grace to
     * return; the jobs handled are finished before this returns (their finishes retried as the client's policy
     * allows). Handlers still running after the grace are interrupted. Idempotent.
     */
    @Override
    public void close() {
        if (!state.compareAndSet(State.STARTED, State.CLOSED)) {
            return;
        }
        long deadline = System.nanoTime() + grace.toNanos();
        try {
            poller.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            if (poller.isAlive()) {
                poller.interrupt();
            }
            workers.shutdown();
            if (!workers.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                LOG.log(
                        Level.WARNING,
                        "handlers of {0} still running after the grace of {1}: interrupted",
                        topic,
                        grace);
                workers.shutdownNow();
                workers.awaitTermination(1, TimeUnit.SECONDS);
            }
            finisherStopping = true;
            finisher.join(Math.max(1, client.retryPolicy().deadline().toMillis() + 1_000));
            if (finisher.isAlive()) {
                finisher.interrupt();
                finisher.join(1_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            workers.shutdownNow();
            finisher.interrupt();
        }
    }

    private static ThreadFactory threads(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /** Sets up a {@link PullConsumer}; {@link DelayQueueClient#consumer} makes one. */
    public static final class Builder {
        private final DelayQueueClient client;
        private final String topic;
        private final JobHandler handler;
        private int concurrency = DEFAULT_CONCURRENCY;
        private int batchSize = DEFAULT_BATCH_SIZE;
        private Duration pollTimeout = DEFAULT_POLL_TIMEOUT;
        private Duration grace = DEFAULT_SHUTDOWN_GRACE;
        private final List<ConsumerListener> listeners = new ArrayList<>();
        private boolean metrics = true;

        Builder(DelayQueueClient client, String topic, JobHandler handler) {
            this.client = Objects.requireNonNull(client, "client");
            this.topic = Objects.requireNonNull(topic, "topic");
            this.handler = Objects.requireNonNull(handler, "handler");
        }

        /** Handlers running at once (worker threads). */
        public Builder concurrency(int concurrency) {
            if (concurrency < 1) {
                throw new IllegalArgumentException("concurrency must be at least 1: " + concurrency);
            }
            this.concurrency = concurrency;
            return this;
        }

        /** The most jobs one poll reserves ({@code count}, 1 to 1000); never more than free handlers. */
        public Builder batchSize(int batchSize) {
            if (batchSize < 1 || batchSize > DelayQueueClient.MAX_BATCH) {
                throw new IllegalArgumentException("batchSize must be between 1 and 1000: " + batchSize);
            }
            this.batchSize = batchSize;
            return this;
        }

        /** How long a poll waits when no job is ready (at most the service's {@code delay.pull.max-timeout}). */
        public Builder pollTimeout(Duration timeout) {
            if (timeout.isNegative()) {
                throw new IllegalArgumentException("pollTimeout must not be negative: " + timeout);
            }
            this.pollTimeout = timeout;
            return this;
        }

        /** How long {@link PullConsumer#close()} lets running handlers finish. */
        public Builder shutdownGrace(Duration grace) {
            if (grace.isNegative()) {
                throw new IllegalArgumentException("shutdownGrace must not be negative: " + grace);
            }
            this.grace = grace;
            return this;
        }

        public Builder listener(ConsumerListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * Whether to count handled and failed jobs and finish outcomes in Micrometer's global registry when
         * Micrometer is on the class path (true by default; see {@code MicrometerConsumerListener} to count into
         * another registry).
         */
        public Builder metrics(boolean enabled) {
            this.metrics = enabled;
            return this;
        }

        public PullConsumer start() {
            if (metrics && MicrometerPresence.PRESENT) {
                listeners.add(io.delayqueue.client.micrometer.MicrometerConsumerListener.global(topic));
            }
            return new PullConsumer(this);
        }
    }

    /** Whether Micrometer is on the class path: its classes are touched only then. */
    private static final class MicrometerPresence {
        static final boolean PRESENT = present();

        private static boolean present() {
            try {
                Class.forName("io.micrometer.core.instrument.Metrics", false, PullConsumer.class.getClassLoader());
                return true;
            } catch (ClassNotFoundException | LinkageError e) {
                return false;
            }
        }
    }
}
