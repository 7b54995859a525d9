package io.delayqueue.queue.engine;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.Job;
import io.delayqueue.common.JobIds;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.journal.JobEvent;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.journal.Transition;
import io.delayqueue.queue.store.Attempt;
import io.delayqueue.queue.store.JobStore;
import io.delayqueue.queue.store.Outcome;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The engine's pull side: reserves ready jobs of pull topics, the shards taken in turn, and settles consumers'
 * finishes, each journaled. Waiting for a job is {@link PullWaiters}'s; the argument checks are the facade's.
 *
 * <p>Thread-safe: called on the consumers' threads and on the pull waiters'.
 */
final class PullPath {
    private final EngineConfig config;
    private final JobStore store;
    private final Journal journal;
    private final Clock clock;
    private final DispatchPipeline pipeline;
    private final AtomicInteger reserveRotation = new AtomicInteger();

    PullPath(EngineConfig config, JobStore store, Journal journal, Clock clock, DispatchPipeline pipeline) {
        this.config = config;
        this.store = store;
        this.journal = journal;
        this.clock = clock;
        this.pipeline = pipeline;
    }

    /** Reserves the next ready job of {@code topic} for its TTR, if one is ready now. */
    Optional<Job> tryReserve(String topic) {
        int shards = config.shards();
        int start = Math.floorMod(reserveRotation.getAndIncrement(), shards);
        long now = clock.millis();
        for (int i = 0; i < shards; i++) {
            int shard = (start + i) % shards;
            Optional<Job> job = store.reserve(topic, shard, now);
            if (job.isPresent()) {
                journal.recordTransitions(List.of(Transition.of(
                        job.get().id(), JobEvent.RESERVED, JobStatus.READY, JobStatus.RESERVED, now, null)));
                return job;
            }
        }
        return Optional.empty();
    }

    /** {@link DelayQueueEngine#finish(String, Integer)}, its arguments checked. */
    void finish(String id, Integer attempts) {
        long now = clock.millis();
        Attempt attempt = attempts == null ? Attempt.any(id) : new Attempt(id, attempts);
        Outcome outcome = store.finishAttempts(JobIds.shardOf(id, config.shards()), List.of(attempt), now)
                .get(0);
        switch (outcome.result()) {
            case APPLIED -> journal.recordTransitions(List.of(Transition.of(
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
