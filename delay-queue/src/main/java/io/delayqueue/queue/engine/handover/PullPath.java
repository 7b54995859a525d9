package io.delayqueue.queue.engine.handover;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.Job;
import io.delayqueue.common.JobIds;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.engine.DelayQueueEngine;
import io.delayqueue.queue.engine.EngineConfig;
import io.delayqueue.queue.engine.push.JobFactory;
import io.delayqueue.queue.journal.JobEvent;
import io.delayqueue.queue.journal.Transition;
import io.delayqueue.queue.journal.TransitionJournal;
import io.delayqueue.queue.store.Attempt;
import io.delayqueue.queue.store.HandOverStore;
import io.delayqueue.queue.store.NewMasterException;
import io.delayqueue.queue.store.Outcome;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The engine's pull side: reserves ready jobs of pull topics, one or many per call (a batch answered in due
 * order), the shards taken in turn, and settles consumers' finishes, one or many per call, each journaled. Waiting
 * for a job is {@link PullWaiters}'s.
 * Each takes room in the journal's backlog for its transitions before Redis is touched: while there is none (the
 * database away) it is refused with 503, nothing changed; once taken, what it did is journaled, never dropped.
 *
 * <p>Thread-safe: called on the consumers' threads and on the pull waiters'.
 */
public final class PullPath {
    private final EngineConfig config;
    private final HandOverStore store;
    private final TransitionJournal journal;
    private final Clock clock;
    private final DispatchPipeline pipeline;
    private final TopicRoutes routes;
    private final AtomicInteger reserveRotation = new AtomicInteger();

    public PullPath(
            EngineConfig config,
            HandOverStore store,
            TransitionJournal journal,
            Clock clock,
            DispatchPipeline pipeline,
            TopicRoutes routes) {
        this.config = config;
        this.store = store;
        this.journal = journal;
        this.clock = clock;
        this.pipeline = pipeline;
        this.routes = routes;
    }

    /** The arguments of {@link DelayQueueEngine#reserve(String, int, long)}: a 400 naming the field that is bad. */
    public void checkReserve(String topic, int count, long timeoutMs) {
        if (topic == null || !JobFactory.TOPIC.matcher(topic).matches()) {
            throw new DelayQueueException.InvalidField("topic", "must match [A-Za-z0-9._-]{1,64}");
        }
        if (!routes.isPull(topic)) {
            throw new DelayQueueException.InvalidField(
                    "topic",
                    topic + " is not a pull topic (it is dispatched to '" + routes.dispatcherOf(topic)
                            + "'); set delay.dispatch.topics." + topic + "=pull");
        }
        if (count < 1 || count > PullSettings.MAX_COUNT) {
            throw new DelayQueueException.InvalidField("count", "must be between 1 and " + PullSettings.MAX_COUNT);
        }
        long max = config.pull().maxTimeout().toMillis();
        if (timeoutMs < 0 || timeoutMs > max) {
            throw new DelayQueueException.InvalidField("timeout", "must be between 0 and " + max + " ms");
        }
    }

    /**
     * Reserves up to {@code count} ready jobs of {@code topic} for their TTR, those ready now: one reserve script
     * per shard, the shards taken in turn from a rotating start until {@code count} are reserved. A shard whose
     * call fails is passed over: the jobs of the others are answered, and the failure is thrown only when no job
     * was reserved. (A call that failed after its script ran leaves its jobs reserved for nobody: they come back
     * at their TTR, as any unfinished reservation does.)
     *
     * <p>The jobs are answered in due order ({@link Job#executeAt}, ties in the order reserved): each shard's
     * script reserves its oldest ready jobs first, and the shards' jobs are merged here, without another call. The
     * order holds within the answer only: when {@code count} is reached before every shard gave all its ready
     * jobs, a ready job of another shard, due earlier than some answered, waits for a later call (reserving more to
     * pick the earliest would leave the jobs not answered reserved for nobody until their TTR).
     */
    public List<Job> tryReserve(String topic, int count) {
        // room in the journal's backlog first (its database away: 503 before anything is reserved, never a wait for
        // room): a reserve answered to a consumer is journaled, never dropped
        try (TransitionJournal.Room room = journal.takeRoom(count)) {
            return tryReserve(topic, count, room);
        }
    }

    private List<Job> tryReserve(String topic, int count, TransitionJournal.Room room) {
        int shards = config.shards();
        int start = Math.floorMod(reserveRotation.getAndIncrement(), shards);
        long now = clock.millis();
        List<Job> reserved = new ArrayList<>(Math.min(count, 16));
        DelayQueueException.Unavailable failure = null;
        for (int i = 0; i < shards && reserved.size() < count; i++) {
            try {
                reserved.addAll(store.reserve(topic, (start + i) % shards, now, count - reserved.size()));
            } catch (DelayQueueException.Unavailable e) {
                failure = e;
            } catch (NewMasterException e) {
                // a new Redis master not replayed onto yet (the fail-over protocol): nothing of the shard is
                // reserved until its owner made it agree with the journal; the others are answered
            }
        }
        if (reserved.isEmpty() && failure != null) {
            throw failure;
        }
        if (!reserved.isEmpty()) {
            reserved.sort(Comparator.comparingLong(Job::executeAt));
            // the time of the reply, not of the request: a job this reserve took may have been made READY by the
            // scanner while the call was under way, and its history orders the two by their times
            long reservedAt = Math.max(now, clock.millis());
            List<Transition> transitions = new ArrayList<>(reserved.size());
            for (Job job : reserved) {
                transitions.add(Transition.of(
                        job.id(), JobEvent.RESERVED, JobStatus.READY, JobStatus.RESERVED, reservedAt, null));
            }
            room.record(transitions);
        }
        return reserved;
    }

    /**
     * {@link DelayQueueEngine#finishAll}, its arguments checked: one finish script per shard, all shards in one
     * round trip, each job finished journaled as a single finish is.
     */
    public List<FinishOutcome> finishAll(List<Attempt> attempts) {
        if (attempts == null || attempts.isEmpty() || attempts.size() > PullSettings.MAX_COUNT) {
            throw new DelayQueueException.InvalidField(
                    "jobs", "must hold between 1 and " + PullSettings.MAX_COUNT + " jobs to finish");
        }
        try (TransitionJournal.Room room = journal.takeRoom(attempts.size())) {
            return finishAll(attempts, room);
        }
    }

    private List<FinishOutcome> finishAll(List<Attempt> attempts, TransitionJournal.Room room) {
        long now = clock.millis();
        List<Outcome> outcomes = store.finishAttempts(attempts, now);
        List<FinishOutcome> answers = new ArrayList<>(attempts.size());
        List<Transition> finished = new ArrayList<>();
        for (int i = 0; i < attempts.size(); i++) {
            String id = attempts.get(i).id();
            Outcome outcome = outcomes.get(i);
            FinishOutcome.Result result;
            if (outcome == null) {
                result = FinishOutcome.Result.UNKNOWN;
            } else {
                result = switch (outcome.result()) {
                    case APPLIED -> FinishOutcome.Result.FINISHED;
                    case NOT_FOUND -> FinishOutcome.Result.NOT_FOUND;
                    case STALE -> FinishOutcome.Result.STALE;
                    case CONFLICT -> outcome.status() == JobStatus.FINISHED
                            ? FinishOutcome.Result.FINISHED
                            : FinishOutcome.Result.NOT_RESERVED;
                };
                if (outcome.applied()) {
                    finished.add(Transition.of(
                            id,
                            JobEvent.FINISHED,
                            JobStatus.RESERVED,
                            JobStatus.FINISHED,
                            now,
                            "finished by consumer"));
                } else if (outcome.result() == Outcome.Result.STALE) {
                    pipeline.countStale();
                }
            }
            answers.add(new FinishOutcome(id, result, outcome == null ? null : outcome.status()));
        }
        if (!finished.isEmpty()) {
            room.record(finished);
        }
        return answers;
    }

    /** {@link DelayQueueEngine#finish(String, Integer)}, its arguments checked. */
    public void finish(String id, Integer attempts) {
        try (TransitionJournal.Room room = journal.takeRoom(1)) {
            finish(id, attempts, room);
        }
    }

    private void finish(String id, Integer attempts, TransitionJournal.Room room) {
        long now = clock.millis();
        Attempt attempt = attempts == null ? Attempt.any(id) : new Attempt(id, attempts);
        Outcome outcome = store.finishAttempts(JobIds.shardOf(id, config.shards()), List.of(attempt), now)
                .get(0);
        switch (outcome.result()) {
            case APPLIED -> room.record(List.of(Transition.of(
                    id, JobEvent.FINISHED, JobStatus.RESERVED, JobStatus.FINISHED, now, "finished by consumer")));
            case NOT_FOUND -> throw new DelayQueueException.JobNotFound(id);
            case STALE -> {
                pipeline.countStale();
                throw new DelayQueueException.StateConflict(
                        id,
                        outcome.status(),
                        "its reservation of attempt " + attempts + " is over (it expired and the job was handed"
                                + " over again); the finish was ignored");
            }
            case CONFLICT -> {
                if (outcome.status() != JobStatus.FINISHED) {
                    throw new DelayQueueException.StateConflict(
                            id, outcome.status(), "only a RESERVED job can be finished");
                }
            }
        }
    }
}
