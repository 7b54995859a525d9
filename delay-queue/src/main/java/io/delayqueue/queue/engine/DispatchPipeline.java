package io.delayqueue.queue.engine;

import io.delayqueue.common.Job;
import io.delayqueue.queue.dispatch.DispatchRejectedException;
import io.delayqueue.queue.dispatch.Dispatcher;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.store.Attempt;
import io.delayqueue.queue.store.JobStore;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends due jobs of push topics to their dispatcher and settles the outcome: a confirmed send is
 * acknowledged ({@code FINISHED}) in batches, one script call per shard for whatever has accumulated; a
 * failed send is scheduled again on its topic's retry ladder (or goes {@code DEAD}).
 *
 * <p>At most {@code maxInFlight} jobs are between their move and their outcome: scanners take capacity
 * before they move jobs, so a slow receiver slows the moves instead of piling up reservations that would
 * expire. Below that, {@link DispatchLanes} caps what one dispatcher and one topic may hold, so a dead or
 * hung broker cannot take the capacity every other topic needs. A job that finds its lane full is not
 * sent: it is put back ({@code DELAY}, no attempt counted) for a while that doubles with how late it
 * already is, so a backlog behind a hung receiver is looked at less and less often instead of spinning the
 * scanners. The same happens when a dispatcher turns a job away ({@link DispatchRejectedException}).
 *
 * <p>Composed of {@link DispatchLanes} (the per-dispatcher and per-topic limits), {@link AcknowledgementBatcher}
 * (the batched acknowledgements: if one cannot be written, Redis down, it is kept and written later; should the
 * reservation expire first, the job is delivered again: at least once, never lost) and {@link JobRescheduler}
 * (put-backs of unsent jobs, retries of failed sends). This class owns the global capacity, the routing of each
 * job to its dispatcher, the sends themselves and the wait for them at close.
 *
 * <p>Threading: {@link #dispatch} and {@link #putBackUnsent} run on the scanner threads (and the caller's of
 * {@link DueJobMover#runDueJobs}); outcomes are settled on whatever thread completes a send; the counters and
 * {@link #flushNow} on any thread.
 */
final class DispatchPipeline implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(DispatchPipeline.class);

    /** Shortest put-back of a job that found no room. */
    static final long BUSY_RETRY_MIN_MS = 20;
    /** Longest put-back of a job that found no room. */
    static final long BUSY_RETRY_MAX_MS = 5_000;

    /** Told when a job of a shard is due again at {@code dueAt}, so that its scanner wakes up in time. */
    @FunctionalInterface
    interface ScheduleListener {
        void onScheduled(int shard, long dueAt);
    }

    private final TopicRoutes routes;
    private final Map<String, Dispatcher> dispatchers;
    private final DispatchLanes lanes;
    private final AcknowledgementBatcher acknowledgements;
    private final JobRescheduler rescheduler;
    private final Clock clock;
    private final Semaphore capacity;
    private final AtomicLong dispatched = new AtomicLong();
    /** Consumers' finishes ignored because their attempt was over (counted by {@link PullPath}). */
    private final AtomicLong stale = new AtomicLong();
    /** Sends not settled yet: each completes once its outcome is settled (acknowledgement queued, retry written). */
    private final Set<CompletableFuture<?>> unsettled = ConcurrentHashMap.newKeySet();

    DispatchPipeline(
            JobStore store,
            TopicRoutes routes,
            Map<String, Dispatcher> dispatchers,
            EngineConfig config,
            Journal journal,
            Clock clock,
            ScheduleListener scheduled,
            EngineListener listener) {
        this.routes = routes;
        this.dispatchers = Map.copyOf(dispatchers);
        this.lanes = new DispatchLanes(
                DispatchLanes.perDispatcherShare(
                        config.dispatch().maxInFlight(),
                        config.scanner().batchSize(),
                        routes.pushDispatchers().size()),
                config.dispatch().maxInFlightPerTopic());
        // flushes hold this pipeline's monitor: holding it keeps them back (AcknowledgementFlushTest does)
        this.acknowledgements = new AcknowledgementBatcher(store, journal, clock, this);
        this.rescheduler = new JobRescheduler(store, config.retry(), journal, clock, scheduled, listener);
        this.clock = clock;
        this.capacity = new Semaphore(config.dispatch().maxInFlight());
    }

    /** Takes up to {@code wanted} slots of in-flight capacity without blocking; returns how many. */
    int takeCapacity(int wanted) {
        while (true) {
            int n = Math.min(wanted, capacity.availablePermits());
            if (n <= 0) {
                return 0;
            }
            if (capacity.tryAcquire(n)) {
                return n;
            }
        }
    }

    void returnCapacity(int n) {
        if (n > 0) {
            capacity.release(n);
        }
    }

    long dispatched() {
        return dispatched.get();
    }

    long failed() {
        return rescheduler.failed();
    }

    /** Jobs put back unsent since start because their topic or dispatcher had no room. */
    long deferred() {
        return rescheduler.deferred();
    }

    /** Outcomes ignored since start because their attempt was over (see {@link Attempt}). */
    long stale() {
        return stale.get() + acknowledgements.stale() + rescheduler.stale();
    }

    void countStale() {
        stale.incrementAndGet();
    }

    DispatchLanes lanes() {
        return lanes;
    }

    /**
     * Dispatches jobs that the caller holds one capacity slot each for. Never blocks: a job whose topic or
     * dispatcher is at its in-flight limit is put back at once. The result completes when every send has
     * an outcome (not when the acknowledgements are written).
     */
    CompletableFuture<Void> dispatch(int shard, List<Job> jobs) {
        return dispatch(shard, jobs, () -> true);
    }

    /**
     * {@link #dispatch(int, List)}, asking {@code stillOwned} before each send: once this instance no longer owns
     * the shard (it may have been paused since it moved the jobs, and another instance took the shard over), the
     * jobs not sent yet are put back for the new owner instead.
     */
    CompletableFuture<Void> dispatch(int shard, List<Job> jobs, BooleanSupplier stillOwned) {
        if (jobs.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        List<CompletableFuture<?>> sends = new ArrayList<>(jobs.size());
        Map<Attempt, Long> noRoom = new LinkedHashMap<>();
        long now = clock.millis();
        for (int i = 0; i < jobs.size(); i++) {
            Job job = jobs.get(i);
            if (!stillOwned.getAsBoolean()) {
                putBackUnsent(shard, jobs.subList(i, jobs.size()), "the shard's ownership was lost");
                break;
            }
            String name = routes.dispatcherOf(job.topic());
            Dispatcher dispatcher = dispatchers.get(name);
            if (dispatcher == null) {
                capacity.release();
                settle(
                        shard,
                        job,
                        new IllegalStateException("no dispatcher named '" + name + "' for topic " + job.topic()));
                continue;
            }
            if (!lanes.tryAcquire(name, job.topic())) {
                capacity.release();
                noRoom.put(attemptOf(job), now + busyRetryDelay(job, now));
                continue;
            }
            CompletableFuture<Void> settled = send(dispatcher, job)
                    .toCompletableFuture()
                    .handle((ok, error) -> {
                        lanes.release(name, job.topic());
                        capacity.release();
                        settle(shard, job, error);
                        return null;
                    });
            unsettled.add(settled);
            settled.whenComplete((ok, error) -> unsettled.remove(settled));
            sends.add(settled);
        }
        if (!noRoom.isEmpty()) {
            rescheduler.putBack(shard, noRoom, "topic or dispatcher at its in-flight limit");
        }
        return CompletableFuture.allOf(sends.toArray(CompletableFuture<?>[]::new));
    }

    /**
     * Puts back jobs the caller holds one capacity slot each for and will not send (this instance stopped owning
     * their shard since it moved them): due again at once, no attempt counted.
     */
    void putBackUnsent(int shard, List<Job> jobs, String reason) {
        capacity.release(jobs.size());
        long now = clock.millis();
        Map<Attempt, Long> retryAt = new LinkedHashMap<>();
        jobs.forEach(job -> retryAt.put(attemptOf(job), now));
        rescheduler.putBack(shard, retryAt, reason);
    }

    private static Attempt attemptOf(Job job) {
        return new Attempt(job.id(), job.attempts());
    }

    private static CompletionStage<Void> send(Dispatcher dispatcher, Job job) {
        try {
            return dispatcher.dispatch(job);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * A job that found no room waits as long as it is already late (at least {@link #BUSY_RETRY_MIN_MS}, at
     * most {@link #BUSY_RETRY_MAX_MS}): put back again and again, it is looked at after 20, 40, 80 ... ms,
     * so a backlog behind a hung receiver costs a few moves per job, not one per scan.
     */
    static long busyRetryDelay(Job job, long now) {
        return Math.max(BUSY_RETRY_MIN_MS, Math.min(BUSY_RETRY_MAX_MS, now - job.executeAt()));
    }

    private void settle(int shard, Job job, Throwable error) {
        if (error == null) {
            dispatched.incrementAndGet();
            acknowledgements.add(shard, attemptOf(job));
            return;
        }
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (cause instanceof DispatchRejectedException) {
            long now = clock.millis();
            rescheduler.putBack(shard, Map.of(attemptOf(job), now + busyRetryDelay(job, now)), cause.getMessage());
        } else {
            rescheduler.sendFailed(shard, job, cause);
        }
    }

    /** Writes every pending acknowledgement; {@code false} when the store failed (they are kept). */
    boolean flushNow() {
        return acknowledgements.flushNow();
    }

    /** Sends handed to dispatchers whose outcome is not settled yet. */
    int unsettled() {
        return unsettled.size();
    }

    /**
     * Waits up to {@code wait} for the sends in flight to be settled, then writes every acknowledgement.
     * Call it once nothing dispatches any more (the scanners stopped). A send still unconfirmed after the wait
     * stays {@code RESERVED} and is delivered again once its reservation expires (at least once, never lost);
     * its outcome, should it come later, is dropped.
     */
    void close(Duration wait) {
        List<CompletableFuture<?>> inFlight = List.copyOf(unsettled);
        if (!inFlight.isEmpty()) {
            log.info("waiting up to {} for {} sends in flight to be confirmed", wait, inFlight.size());
            try {
                CompletableFuture.allOf(inFlight.toArray(CompletableFuture<?>[]::new))
                        .get(wait.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                log.warn(
                        "{} sends were not confirmed within {}; they are delivered again once their reservations"
                                + " expire",
                        unsettled.size(),
                        wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException e) {
                // settling never throws; nothing to wait for
            }
        }
        close();
    }

    @Override
    public void close() {
        acknowledgements.close();
    }
}
