package io.delayqueue.queue.engine;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.dispatch.DispatchRejectedException;
import io.delayqueue.queue.dispatch.Dispatcher;
import io.delayqueue.queue.journal.JobEvent;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.journal.Transition;
import io.delayqueue.queue.store.Attempt;
import io.delayqueue.queue.store.JobStore;
import io.delayqueue.queue.store.Outcome;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * <p>If an acknowledgement cannot be written (Redis down) it is kept and written later; should the
 * reservation expire first, the job is delivered again: at least once, never lost.
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

    private final JobStore store;
    private final TopicRoutes routes;
    private final Map<String, Dispatcher> dispatchers;
    private final RetryPolicy defaultRetryPolicy;
    private final Map<String, RetryPolicy> topicRetryPolicies;
    private final DispatchLanes lanes;
    private final ScheduleListener scheduled;
    private final EngineListener listener;
    private final Journal journal;
    private final Clock clock;
    private final Semaphore capacity;
    private final ConcurrentLinkedQueue<Ack> acks = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean flushScheduled = new AtomicBoolean();
    private final ScheduledExecutorService ackExecutor;
    private final AtomicLong dispatched = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong deferred = new AtomicLong();
    private final AtomicLong stale = new AtomicLong();
    /** Sends not settled yet: each completes once its outcome is settled (acknowledgement queued, retry written). */
    private final Set<CompletableFuture<?>> unsettled = ConcurrentHashMap.newKeySet();

    private record Ack(int shard, Attempt attempt) {}

    DispatchPipeline(
            JobStore store,
            TopicRoutes routes,
            Map<String, Dispatcher> dispatchers,
            EngineConfig config,
            Journal journal,
            Clock clock,
            ScheduleListener scheduled,
            EngineListener listener) {
        this.listener = listener;
        this.store = store;
        this.routes = routes;
        this.dispatchers = Map.copyOf(dispatchers);
        this.defaultRetryPolicy = new RetryPolicy(config.retry().backoff());
        Map<String, RetryPolicy> byTopic = new HashMap<>();
        config.retry().topics().forEach((topic, retry) -> {
            if (retry.backoff() != null) {
                byTopic.put(topic, new RetryPolicy(retry.backoff()));
            }
        });
        this.topicRetryPolicies = Map.copyOf(byTopic);
        this.lanes = new DispatchLanes(
                DispatchLanes.perDispatcherShare(
                        config.dispatch().maxInFlight(),
                        config.scanner().batchSize(),
                        routes.pushDispatchers().size()),
                config.dispatch().maxInFlightPerTopic());
        this.scheduled = scheduled;
        this.journal = journal;
        this.clock = clock;
        this.capacity = new Semaphore(config.dispatch().maxInFlight());
        this.ackExecutor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "delay-ack");
            t.setDaemon(true);
            return t;
        });
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
        return failed.get();
    }

    /** Jobs put back unsent since start because their topic or dispatcher had no room. */
    long deferred() {
        return deferred.get();
    }

    /** Outcomes ignored since start because their attempt was over (see {@link Attempt}). */
    long stale() {
        return stale.get();
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
            putBack(shard, noRoom, "topic or dispatcher at its in-flight limit");
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
        putBack(shard, retryAt, reason);
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
            acks.add(new Ack(shard, attemptOf(job)));
            requestFlush();
            return;
        }
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (cause instanceof DispatchRejectedException) {
            long now = clock.millis();
            putBack(shard, Map.of(attemptOf(job), now + busyRetryDelay(job, now)), cause.getMessage());
        } else {
            failed.incrementAndGet();
            listener.sendFailed(job.topic());
            scheduleRetry(shard, job, cause);
        }
    }

    /** Puts unsent jobs back to {@code DELAY} without counting an attempt. */
    private void putBack(int shard, Map<Attempt, Long> retryAtByAttempt, String reason) {
        long now = clock.millis();
        Map<String, Outcome> outcomes;
        try {
            outcomes = store.deferAttempts(shard, retryAtByAttempt);
        } catch (RuntimeException e) {
            log.warn(
                    "{} jobs were not sent ({}) and could not be put back ({}); they come back when their"
                            + " reservations expire",
                    retryAtByAttempt.size(),
                    reason,
                    e.toString());
            return;
        }
        Map<String, Long> retryAtById = new HashMap<>();
        retryAtByAttempt.forEach((attempt, at) -> retryAtById.put(attempt.id(), at));
        List<Transition> transitions = new ArrayList<>(outcomes.size());
        long earliest = Long.MAX_VALUE;
        for (var entry : outcomes.entrySet()) {
            if (entry.getValue().result() == Outcome.Result.STALE) {
                stale.incrementAndGet();
            }
            if (entry.getValue().applied()) {
                long at = retryAtById.get(entry.getKey());
                earliest = Math.min(earliest, at);
                transitions.add(new Transition(
                        entry.getKey(),
                        JobEvent.DEFERRED,
                        JobStatus.RESERVED,
                        JobStatus.DELAY,
                        now,
                        null,
                        at,
                        "not sent: " + reason));
            }
        }
        deferred.addAndGet(transitions.size());
        if (!transitions.isEmpty()) {
            journal.recordTransitions(transitions);
            scheduled.onScheduled(shard, earliest);
            log.debug("put back {} unsent jobs of shard {}: {}", transitions.size(), shard, reason);
        }
    }

    private void scheduleRetry(int shard, Job job, Throwable cause) {
        int attempts = job.attempts() + 1;
        long now = clock.millis();
        long retryAt = now
                + topicRetryPolicies
                        .getOrDefault(job.topic(), defaultRetryPolicy)
                        .backoffMillis(attempts);
        try {
            Outcome outcome = store.retry(attemptOf(job), retryAt);
            if (outcome.result() == Outcome.Result.STALE) {
                // the reservation had expired and the job was delivered again: this failure counts nothing
                stale.incrementAndGet();
                log.info(
                        "dispatch of job {} (topic {}) failed on attempt {} after that attempt was over ({}); ignored,"
                                + " the job is {}",
                        job.id(),
                        job.topic(),
                        attempts,
                        cause.toString(),
                        outcome.status());
                return;
            }
            if (outcome.applied()) {
                boolean dead = outcome.status() == JobStatus.DEAD;
                if (dead) {
                    listener.dead(job.topic());
                } else {
                    listener.retried(job.topic());
                }
                journal.recordTransitions(List.of(new Transition(
                        job.id(),
                        dead ? JobEvent.DEAD : JobEvent.RETRIED,
                        JobStatus.RESERVED,
                        outcome.status(),
                        now,
                        attempts,
                        dead ? null : retryAt,
                        "attempt " + attempts + ": " + cause)));
                if (outcome.status() == JobStatus.DELAY) {
                    scheduled.onScheduled(shard, retryAt);
                }
            }
            log.warn(
                    "dispatch of job {} (topic {}) failed on attempt {}: {}; now {}",
                    job.id(),
                    job.topic(),
                    attempts,
                    cause.toString(),
                    outcome.applied()
                            ? outcome.status() + (outcome.status() == JobStatus.DELAY ? " until " + retryAt : "")
                            : outcome);
        } catch (RuntimeException e) {
            log.warn(
                    "dispatch of job {} failed ({}) and its retry could not be recorded ({}); it comes back when its reservation expires",
                    job.id(),
                    cause.toString(),
                    e.toString());
        }
    }

    private void requestFlush() {
        if (flushScheduled.compareAndSet(false, true)) {
            try {
                ackExecutor.execute(this::flushScheduled);
            } catch (java.util.concurrent.RejectedExecutionException closed) {
                flushScheduled.set(false);
            }
        }
    }

    private void flushScheduled() {
        flushScheduled.set(false);
        if (!flushNow()) {
            if (flushScheduled.compareAndSet(false, true)) {
                ackExecutor.schedule(this::flushScheduled, 200, TimeUnit.MILLISECONDS);
            }
        }
    }

    /** Writes every pending acknowledgement; {@code false} when the store failed (they are kept). */
    synchronized boolean flushNow() {
        Map<Integer, List<Attempt>> byShard = new TreeMap<>();
        Ack ack;
        while ((ack = acks.poll()) != null) {
            byShard.computeIfAbsent(ack.shard(), s -> new ArrayList<>()).add(ack.attempt());
        }
        if (byShard.isEmpty()) {
            return true;
        }
        long now = clock.millis();
        List<Map.Entry<Integer, List<Attempt>>> shards = new ArrayList<>(byShard.entrySet());
        for (int k = 0; k < shards.size(); k++) {
            var entry = shards.get(k);
            List<Attempt> sent = entry.getValue();
            List<Outcome> outcomes;
            try {
                outcomes = store.finishAttempts(entry.getKey(), sent, now);
            } catch (RuntimeException e) {
                // kept, this shard's and those of the shards not written yet: an acknowledgement dropped here
                // would leave its delivered job RESERVED, to be delivered again when the reservation expires
                int kept = 0;
                for (var unwritten : shards.subList(k, shards.size())) {
                    int shard = unwritten.getKey();
                    unwritten.getValue().forEach(attempt -> acks.add(new Ack(shard, attempt)));
                    kept += unwritten.getValue().size();
                }
                log.warn("could not acknowledge {} dispatched jobs, will retry: {}", kept, e.toString());
                return false;
            }
            List<Transition> finished = new ArrayList<>(sent.size());
            for (int i = 0; i < sent.size(); i++) {
                Outcome outcome = outcomes.get(i);
                if (outcome.applied()) {
                    finished.add(Transition.of(
                            sent.get(i).id(), JobEvent.FINISHED, JobStatus.RESERVED, JobStatus.FINISHED, now, null));
                } else if (outcome.result() == Outcome.Result.STALE) {
                    stale.incrementAndGet();
                }
            }
            journal.recordTransitions(finished);
        }
        return true;
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
        ackExecutor.shutdown();
        try {
            ackExecutor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        flushNow();
    }
}
