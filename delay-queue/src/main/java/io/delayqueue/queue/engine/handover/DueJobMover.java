package io.delayqueue.queue.engine.handover;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.coordination.Coordinator;
import io.delayqueue.queue.coordination.WakeUpChannel;
import io.delayqueue.queue.engine.DelayQueueEngine;
import io.delayqueue.queue.engine.EngineConfig;
import io.delayqueue.queue.engine.EngineListener;
import io.delayqueue.queue.engine.ShardFences;
import io.delayqueue.queue.engine.tier.TierLoader;
import io.delayqueue.queue.journal.JobEvent;
import io.delayqueue.queue.journal.Transition;
import io.delayqueue.queue.journal.TransitionJournal;
import io.delayqueue.queue.store.DueBatch;
import io.delayqueue.queue.store.HandOverStore;
import io.delayqueue.queue.store.NewMasterException;
import io.delayqueue.queue.store.StaleEpochException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's due-job mover: one {@link ShardScanner} thread per shard moves the shard's due jobs in the store
 * (under the shard's owner epoch), journals their transitions, and hands them over to the {@link
 * DispatchPipeline} at their due time (push topics, moved up to the scan lead early) or onto their pull topic's
 * ready list, under the owner epochs of its {@link ShardFences}, which the {@link TierLoader} carries too.
 *
 * <p>Threading: {@link #scanPass} runs on the shard's scanner thread; {@link #runDueJobs} on the caller's;
 * {@link #onScheduled} and the wake-ups on any thread.
 */
public final class DueJobMover {
    private static final Logger log = LoggerFactory.getLogger(DueJobMover.class);

    private final EngineConfig config;
    private final HandOverStore store;
    private final Coordinator coordinator;
    private final WakeUpChannel wakeUps;
    private final TransitionJournal journal;
    private final Clock clock;
    private final TopicRoutes routes;
    private final DispatchPipeline pipeline;
    private final PullWaiters pullWaiters;
    private final LatenessRecorder lateness;
    private final Supplier<EngineListener> listener;
    /**
     * Makes a shard whose Redis master is new agree with the journal (the fail-over protocol's {@code agree}); returns
     * once it does, throws when it could not.
     */
    private final IntConsumer newMaster;

    private final ShardScanner[] scanners;
    private final List<Thread> scannerThreads = new ArrayList<>();
    private final ShardFences fences;

    public DueJobMover(
            EngineConfig config,
            HandOverStore store,
            Coordinator coordinator,
            WakeUpChannel wakeUps,
            TransitionJournal journal,
            Clock clock,
            TopicRoutes routes,
            DispatchPipeline pipeline,
            PullWaiters pullWaiters,
            LatenessRecorder lateness,
            Supplier<EngineListener> listener,
            IntConsumer newMaster) {
        this.config = config;
        this.store = store;
        this.coordinator = coordinator;
        this.wakeUps = wakeUps;
        this.journal = journal;
        this.clock = clock;
        this.routes = routes;
        this.pipeline = pipeline;
        this.pullWaiters = pullWaiters;
        this.lateness = lateness;
        this.listener = listener;
        this.newMaster = newMaster;
        this.fences = new ShardFences(store, coordinator, config.shards());
        this.scanners = new ShardScanner[config.shards()];
        for (int s = 0; s < scanners.length; s++) {
            scanners[s] = new ShardScanner(
                    s, this::scanPass, clock, config.scanner().maxSleep().toMillis());
        }
    }

    /** Starts one scanner thread per shard. */
    public void startScanners() {
        for (ShardScanner scanner : scanners) {
            Thread t = new Thread(scanner, "delay-scanner-" + scannerThreads.size());
            t.setDaemon(true);
            scannerThreads.add(t);
            t.start();
        }
    }

    /** Stops the scanners and waits (a few seconds at most) for their threads to end. */
    public void stopScanners() {
        for (ShardScanner scanner : scanners) {
            scanner.stop();
        }
        for (Thread t : scannerThreads) {
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** {@link DelayQueueEngine#runDueJobs()}: a pass over the owned shards until none has a due job left. */
    public int runDueJobs() {
        int handedOver = 0;
        List<CompletableFuture<Void>> sends = new ArrayList<>();
        for (int s = 0; s < config.shards(); s++) {
            if (!coordinator.owns(s)) {
                continue;
            }
            while (true) {
                int capacity = pipeline.takeCapacity(config.scanner().batchSize());
                if (capacity == 0) {
                    CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new))
                            .join();
                    continue;
                }
                long epoch = fences.epochFor(s);
                if (epoch < 0) {
                    pipeline.returnCapacity(capacity);
                    break;
                }
                PassOutcome outcome;
                try {
                    outcome = movePass(s, capacity, 0, epoch);
                } catch (NewMasterException e) {
                    newMaster.accept(s);
                    continue;
                }
                handedOver += outcome.handedOver;
                sends.add(outcome.sends);
                if (outcome.batch.scanned() < capacity) {
                    break;
                }
            }
        }
        CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).join();
        pipeline.flushNow();
        return handedOver;
    }

    private record PassOutcome(DueBatch batch, int handedOver, CompletableFuture<Void> sends) {}

    /** One pass of a scanner thread; returns when the next pass is wanted. */
    private long scanPass(int shard) {
        if (!coordinator.tryBeginScan(shard)) {
            return clock.millis() + config.scanner().maxSleep().toMillis();
        }
        try {
            return scanOwnedShard(shard);
        } finally {
            coordinator.endScan(shard);
        }
    }

    private long scanOwnedShard(int shard) {
        long epoch = fences.epochFor(shard);
        if (epoch < 0) {
            return clock.millis() + config.scanner().maxSleep().toMillis();
        }
        int capacity = pipeline.takeCapacity(config.scanner().batchSize());
        if (capacity == 0) {
            // every in-flight slot is taken by jobs not yet settled: the pipeline wakes this scanner when one is
            return clock.millis() + config.scanner().maxSleep().toMillis();
        }
        DueBatch batch;
        try {
            batch = movePass(shard, capacity, config.scanner().lead().toMillis(), epoch).batch;
        } catch (StaleEpochException e) {
            // Another instance took the shard over since this one took its epoch (this one was paused or cut
            // off), or a stale owner's late take raised it: take a new epoch next time, which needs the
            // coordinator to confirm the ownership again first.
            fences.stale(shard);
            log.warn("{}; not moving its jobs", e.getMessage());
            return clock.millis() + config.scanner().maxSleep().toMillis();
        } catch (NewMasterException e) {
            // a promoted replica, a restarted Redis: nothing is moved before the journal's recent past is replayed
            // onto it (a failure is thrown to the scanner, which tries again after its back-off)
            newMaster.accept(shard);
            return Long.MIN_VALUE;
        }
        if (batch.scanned() >= capacity) {
            return Long.MIN_VALUE;
        }
        return batch.nextMoveAt().orElse(Long.MAX_VALUE);
    }

    /** The owner epochs of the shards, shared with the {@link TierLoader}. */
    public TierLoader.Fences fences() {
        return fences;
    }

    /**
     * One move of a shard's due jobs and their hand-over. With a lead, push-topic jobs due within it are moved
     * too, and this waits for each one's due time before handing it over.
     */
    private PassOutcome movePass(int shard, int capacity, long leadMs, long epoch) {
        long now = clock.millis();
        DueBatch batch;
        try {
            batch = store.moveDue(
                    shard,
                    now,
                    leadMs,
                    capacity,
                    routes.dueRouting(),
                    config.dispatch().timeout().toMillis(),
                    epoch);
        } catch (RuntimeException e) {
            pipeline.returnCapacity(capacity);
            throw e;
        }
        pipeline.returnCapacity(capacity - batch.toDispatch().size());
        List<Transition> transitions = new ArrayList<>();
        for (DueBatch.Moved m : batch.expired()) {
            listener.get().ttrExpired(m.topic());
            transitions.add(Transition.of(
                    m.id(), JobEvent.TTR_EXPIRED, JobStatus.RESERVED, JobStatus.DELAY, now, "reservation expired"));
        }
        for (DueBatch.Moved m : batch.madeDead()) {
            listener.get().dead(m.topic());
            transitions.add(Transition.of(
                    m.id(), JobEvent.DEAD, JobStatus.RESERVED, JobStatus.DEAD, now, Transition.MAX_ATTEMPTS_REACHED));
        }
        for (DueBatch.Moved m : batch.madeReady()) {
            if (lateness.handedOver(now, m.dueAt())) {
                listener.get().restoredHandedOver(m.topic());
            } else {
                listener.get().handedOver(m.topic(), now - m.dueAt());
            }
            transitions.add(Transition.of(m.id(), JobEvent.READY, JobStatus.DELAY, JobStatus.READY, now, null));
        }
        for (Job job : batch.toDispatch()) {
            transitions.add(Transition.of(
                    job.id(), JobEvent.RESERVED, JobStatus.DELAY, JobStatus.RESERVED, now, "dispatching"));
        }
        if (!transitions.isEmpty()) {
            journal.recordTransitions(transitions);
        }
        if (!batch.madeReady().isEmpty()) {
            List<String> readyTopics = batch.madeReady().stream()
                    .map(DueBatch.Moved::topic)
                    .distinct()
                    .toList();
            readyTopics.forEach(pullWaiters::signal);
            wakeUps.publishReady(readyTopics);
        }
        CompletableFuture<Void> sends = dispatchWhenDue(shard, batch.toDispatch(), now + leadMs, leadMs);
        return new PassOutcome(
                batch, batch.toDispatch().size() + batch.madeReady().size(), sends);
    }

    /**
     * Hands {@code jobs} over in due order, each at its due time or at once if that has passed; none waits
     * past {@code latest} (the move's time plus the lead), nor this call longer than the lead in all (a clock
     * that does not move, as in tests, must not hold the scanner).
     */
    private CompletableFuture<Void> dispatchWhenDue(int shard, List<Job> jobs, long latest, long leadMs) {
        long giveUpAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leadMs);
        List<Job> byDue = new ArrayList<>(jobs);
        byDue.sort(Comparator.comparingLong(Job::executeAt));
        List<CompletableFuture<Void>> sends = new ArrayList<>();
        int from = 0;
        while (from < byDue.size()) {
            long dueAt = Math.min(byDue.get(from).executeAt(), latest);
            waitUntil(dueAt, giveUpAt);
            long now = Math.max(clock.millis(), dueAt);
            int to = from;
            // lateness and the hand-over are counted by the pipeline, when each job is handed to its dispatcher
            while (to < byDue.size() && Math.min(byDue.get(to).executeAt(), latest) <= now) {
                to++;
            }
            sends.add(pipeline.dispatch(shard, byDue.subList(from, to), () -> coordinator.owns(shard)));
            from = to;
        }
        return sends.size() == 1 ? sends.get(0) : CompletableFuture.allOf(sends.toArray(CompletableFuture<?>[]::new));
    }

    /** Parks until the start of the millisecond {@code dueAt} by the clock, or until {@code giveUpAt} (nano time). */
    private void waitUntil(long dueAt, long giveUpAt) {
        while (true) {
            Instant now = clock.instant();
            long waitNanos = TimeUnit.MILLISECONDS.toNanos(dueAt - now.toEpochMilli()) - now.getNano() % 1_000_000;
            long left = giveUpAt - System.nanoTime();
            if (waitNanos <= 0 || left <= 0) {
                return;
            }
            LockSupport.parkNanos(this, Math.min(waitNanos, left));
        }
    }

    /**
     * A job of {@code shard} is due at {@code dueAt} (pushed, restored, retried, put back, requeued): wakes the
     * shard's scanner, here or, over the wake-up channel, on the instance that scans it.
     */
    public void onScheduled(int shard, long dueAt) {
        scanners[shard].onScheduled(dueAt);
        // a scanner elsewhere looks at its shard within max-sleep anyway: only sooner jobs need a wake-up
        if (dueAt < clock.millis() + config.scanner().maxSleep().toMillis() && !coordinator.owns(shard)) {
            wakeUps.publishScheduled(shard, dueAt);
        }
    }

    /** Wakes every scanner (the owned shards changed, or the wake-ups from other instances may have been missed). */
    public void wakeAllScanners() {
        for (ShardScanner scanner : scanners) {
            scanner.wakeNow();
        }
    }

    /** Another instance scheduled a job of {@code shard} due at {@code dueAt}: wakes its scanner if it is owned here. */
    public void scheduledElsewhere(int shard, long dueAt) {
        if (coordinator.owns(shard)) {
            scanners[shard].onScheduled(dueAt);
        }
    }
}
