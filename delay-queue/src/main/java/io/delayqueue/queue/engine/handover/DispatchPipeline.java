package io.delayqueue.queue.engine.handover;

import io.delayqueue.common.Job;
import io.delayqueue.queue.dispatch.DispatchRejectedException;
import io.delayqueue.queue.dispatch.Dispatcher;
import io.delayqueue.queue.engine.EngineConfig;
import io.delayqueue.queue.engine.EngineListener;
import io.delayqueue.queue.engine.handover.DispatchLanes.Waiter;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.store.Attempt;
import io.delayqueue.queue.store.JobStore;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
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
 * expire; a scanner that found none sleeps until a send settles and wakes it. Below that, {@link DispatchLanes}
 * caps the sends one topic has open: a job of a topic at its limit waits, in due order, and is sent as soon as one
 * of the topic's sends settles. What one topic and one dispatcher hold (open or waiting) is capped too, so a dead
 * or hung receiver cannot take the capacity every other topic needs: a job that finds no room even to wait is put
 * back ({@code DELAY}, no attempt counted) for a while that doubles with how late it already is, and so is a job
 * that waited longer than {@link DispatchSettings#laneWait()} (its receiver stalled), and one that a dispatcher
 * turns away ({@link DispatchRejectedException}). A job counts as handed over (lateness, {@link
 * EngineListener#handedOver}) when it is handed to its dispatcher, once per send, never when it is put back.
 *
 * <p>Composed of {@link DispatchLanes} (the limits and the waiting jobs), {@link AcknowledgementBatcher} (the
 * batched acknowledgements: if one cannot be written, Redis down, it is kept and written later; should the
 * reservation expire first, the job is delivered again: at least once, never lost) and {@link JobRescheduler}
 * (put-backs of unsent jobs, retries of failed sends). This class owns the global capacity, the routing of each
 * job to its dispatcher, the sends themselves and the wait for them at close.
 *
 * <p>Threading: {@link #dispatch} and {@link #putBackUnsent} run on the scanner threads (and the caller's of
 * {@link DueJobMover#runDueJobs}); outcomes are settled, and the waiting jobs they make room for are sent, on
 * whatever thread completes a send (a trampoline keeps a dispatcher that completes at once from recursing); waits
 * that expire are put back on the {@link LaneWaitTimer}'s thread; the counters and {@link #flushNow} on any
 * thread.
 */
public final class DispatchPipeline implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(DispatchPipeline.class);

    /** Shortest put-back of a job that found no room. */
    public static final long BUSY_RETRY_MIN_MS = 20;
    /** Longest put-back of a job that found no room. */
    public static final long BUSY_RETRY_MAX_MS = 5_000;

    /** Told when a job of a shard is due again at {@code dueAt}, so that its scanner wakes up in time. */
    @FunctionalInterface
    public interface ScheduleListener {
        void onScheduled(int shard, long dueAt);
    }

    private final TopicRoutes routes;
    private final Map<String, Dispatcher> dispatchers;
    private final DispatchLanes lanes;
    private final AcknowledgementBatcher acknowledgements;
    private final JobRescheduler rescheduler;
    private final LatenessRecorder lateness;
    private final EngineListener listener;
    private final Clock clock;
    private final DispatchCapacity capacity;
    private final LaneWaitTimer laneWaits;

    private final AtomicLong dispatched = new AtomicLong();
    /** Consumers' finishes ignored because their attempt was over (counted by {@link PullPath}). */
    private final AtomicLong stale = new AtomicLong();
    /** Jobs handed to the pipeline whose outcome is not settled yet (sent or waiting for a slot). */
    private final Set<CompletableFuture<?>> unsettled = ConcurrentHashMap.newKeySet();
    /** Waiters to start on this thread: a send that completes at once starts the next one here, not recursively. */
    private final ThreadLocal<ArrayDeque<Waiter>> trampoline = new ThreadLocal<>();

    public DispatchPipeline(
            JobStore store,
            TopicRoutes routes,
            Map<String, Dispatcher> dispatchers,
            EngineConfig config,
            Journal journal,
            Clock clock,
            ScheduleListener scheduled,
            EngineListener listener,
            LatenessRecorder lateness,
            Runnable capacityFreed) {
        this.routes = routes;
        this.dispatchers = Map.copyOf(dispatchers);
        this.lanes = DispatchLanes.sizedFor(config, routes.pushDispatchers().size());
        // flushes hold this pipeline's monitor: holding it keeps them back (AcknowledgementFlushTest does)
        this.acknowledgements = new AcknowledgementBatcher(store, journal, clock, this);
        this.rescheduler = new JobRescheduler(store, config.retry(), journal, clock, scheduled, listener);
        this.lateness = lateness;
        this.listener = listener;
        this.clock = clock;
        this.capacity = new DispatchCapacity(config.dispatch().maxInFlight(), capacityFreed);
        this.laneWaits = new LaneWaitTimer(lanes, config.dispatch().laneWait(), this::putBackExpired);
    }

    /** Takes up to {@code wanted} slots of in-flight capacity without blocking; see {@link DispatchCapacity}. */
    int takeCapacity(int wanted) {
        return capacity.take(wanted);
    }

    void returnCapacity(int n) {
        capacity.release(n);
    }

    public long dispatched() {
        return dispatched.get();
    }

    public long failed() {
        return rescheduler.failed();
    }

    /** Jobs put back unsent since start because their topic or dispatcher had no room. */
    public long deferred() {
        return rescheduler.deferred();
    }

    /** Outcomes ignored since start because their attempt was over (see {@link Attempt}). */
    public long stale() {
        return stale.get() + acknowledgements.stale() + rescheduler.stale();
    }

    void countStale() {
        stale.incrementAndGet();
    }

    public DispatchLanes lanes() {
        return lanes;
    }

    /**
     * Dispatches jobs that the caller holds one capacity slot each for. Never blocks: a job whose topic is at its
     * in-flight limit waits for a slot, one that finds no room even to wait is put back at once. The result
     * completes when every job has an outcome (not when the acknowledgements are written).
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
        List<CompletableFuture<?>> outcomes = new ArrayList<>(jobs.size());
        List<Waiter> toSend = new ArrayList<>(jobs.size());
        Map<Attempt, Long> noRoom = new LinkedHashMap<>();
        long now = clock.millis();
        boolean waiting = false;
        for (int i = 0; i < jobs.size(); i++) {
            Job job = jobs.get(i);
            if (!stillOwned.getAsBoolean()) {
                putBackUnsent(shard, jobs.subList(i, jobs.size()), "the shard's ownership was lost");
                break;
            }
            String name = routes.dispatcherOf(job.topic());
            if (!dispatchers.containsKey(name)) {
                returnCapacity(1);
                settle(
                        shard,
                        job,
                        new IllegalStateException("no dispatcher named '" + name + "' for topic " + job.topic()));
                continue;
            }
            Waiter waiter = new Waiter(name, shard, job, stillOwned, System.nanoTime(), new CompletableFuture<>());
            DispatchLanes.Admission admission = lanes.admit(waiter);
            if (admission == DispatchLanes.Admission.FULL) {
                returnCapacity(1);
                noRoom.put(attemptOf(job), now + busyRetryDelay(job, now));
                continue;
            }
            unsettled.add(waiter.settled());
            waiter.settled().whenComplete((ok, error) -> unsettled.remove(waiter.settled()));
            outcomes.add(waiter.settled());
            if (admission == DispatchLanes.Admission.SEND) {
                toSend.add(waiter);
            } else {
                waiting = true;
            }
        }
        if (!noRoom.isEmpty()) {
            rescheduler.putBack(shard, noRoom, "topic or dispatcher at its in-flight limit");
        }
        sendAll(toSend);
        if (waiting) {
            laneWaits.armed();
        }
        return CompletableFuture.allOf(outcomes.toArray(CompletableFuture<?>[]::new));
    }

    /**
     * Puts back jobs the caller holds one capacity slot each for and will not send (this instance stopped owning
     * their shard since it moved them): due again at once, no attempt counted.
     */
    void putBackUnsent(int shard, List<Job> jobs, String reason) {
        returnCapacity(jobs.size());
        long now = clock.millis();
        Map<Attempt, Long> retryAt = new LinkedHashMap<>();
        jobs.forEach(job -> retryAt.put(attemptOf(job), now));
        rescheduler.putBack(shard, retryAt, reason);
    }

    private static Attempt attemptOf(Job job) {
        return new Attempt(job.id(), job.attempts());
    }

    /** Starts {@code waiters}, each holding a slot of its lane, on this thread, one after the other. */
    private void sendAll(List<Waiter> waiters) {
        if (waiters.isEmpty()) {
            return;
        }
        ArrayDeque<Waiter> queue = trampoline.get();
        if (queue != null) {
            queue.addAll(waiters);
            return;
        }
        queue = new ArrayDeque<>(waiters);
        trampoline.set(queue);
        try {
            Waiter next;
            while ((next = queue.poll()) != null) {
                send(next);
            }
        } finally {
            trampoline.remove();
        }
    }

    private void send(Waiter waiter) {
        Job job = waiter.job();
        if (!waiter.stillOwned().getAsBoolean()) {
            DispatchLanes.Released released =
                    lanes.release(waiter.dispatcher(), job.topic(), laneWaits.expiredBefore());
            putBackUnsent(waiter.shard(), List.of(job), "the shard's ownership was lost");
            waiter.settled().complete(null);
            handle(released);
            return;
        }
        long now = clock.millis();
        if (lateness.handedOver(now, job.executeAt())) {
            listener.restoredHandedOver(job.topic());
        } else {
            listener.handedOver(job.topic(), now - job.executeAt());
        }
        CompletionStage<Void> sent;
        try {
            sent = dispatchers.get(waiter.dispatcher()).dispatch(job);
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        sent.whenComplete((ok, error) -> settleSend(waiter, error));
    }

    private void settleSend(Waiter waiter, Throwable error) {
        DispatchLanes.Released released =
                lanes.release(waiter.dispatcher(), waiter.job().topic(), laneWaits.expiredBefore());
        returnCapacity(1);
        try {
            settle(waiter.shard(), waiter.job(), error);
        } finally {
            waiter.settled().complete(null);
        }
        handle(released);
    }

    /** Sends the waiters a settled send made room for; puts back those that waited too long. */
    private void handle(DispatchLanes.Released released) {
        putBackExpired(released.expired());
        sendAll(released.toSend());
    }

    private void putBackExpired(List<Waiter> expired) {
        putBackWaiters(expired, true, "waited too long for a slot of its topic");
    }

    /** Puts back waiting jobs taken out of their lanes: due again at once, or after the busy back-off. */
    private void putBackWaiters(List<Waiter> waiters, boolean backOff, String reason) {
        if (waiters.isEmpty()) {
            return;
        }
        returnCapacity(waiters.size());
        long now = clock.millis();
        Map<Integer, Map<Attempt, Long>> byShard = new TreeMap<>();
        for (Waiter w : waiters) {
            byShard.computeIfAbsent(w.shard(), s -> new LinkedHashMap<>())
                    .put(attemptOf(w.job()), backOff ? now + busyRetryDelay(w.job(), now) : now);
        }
        try {
            byShard.forEach((shard, retryAt) -> rescheduler.putBack(shard, retryAt, reason));
        } finally {
            waiters.forEach(w -> w.settled().complete(null));
        }
    }

    /**
     * A job that found no room waits as long as it is already late (at least {@link #BUSY_RETRY_MIN_MS}, at
     * most {@link #BUSY_RETRY_MAX_MS}): put back again and again, it is looked at after 20, 40, 80 ... ms,
     * so a backlog behind a hung receiver costs a few moves per job, not one per scan.
     */
    public static long busyRetryDelay(Job job, long now) {
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

    /** Jobs handed to dispatchers, or waiting for a slot, whose outcome is not settled yet. */
    int unsettled() {
        return unsettled.size();
    }

    /**
     * Waits up to {@code wait} for the sends in flight to be settled, then writes every acknowledgement.
     * Call it once nothing dispatches any more (the scanners stopped). A send still unconfirmed after the wait
     * stays {@code RESERVED} and is delivered again once its reservation expires (at least once, never lost);
     * its outcome, should it come later, is dropped.
     */
    public void close(Duration wait) {
        laneWaits.close();
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
        // jobs still waiting for a slot were never sent: due again at once, for whichever instance owns them next
        putBackWaiters(lanes.drainWaiters(), false, "the engine stopped before a slot of its topic was free");
        close();
    }

    @Override
    public void close() {
        acknowledgements.close();
    }
}
