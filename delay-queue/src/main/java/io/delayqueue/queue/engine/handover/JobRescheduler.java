package io.delayqueue.queue.engine.handover;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.engine.EngineListener;
import io.delayqueue.queue.journal.JobEvent;
import io.delayqueue.queue.journal.Transition;
import io.delayqueue.queue.journal.TransitionJournal;
import io.delayqueue.queue.store.Attempt;
import io.delayqueue.queue.store.HandOverStore;
import io.delayqueue.queue.store.Outcome;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link DispatchPipeline}'s jobs that were not delivered, back to {@code DELAY}: jobs not sent (no room in
 * their lane, turned away by their dispatcher, their shard's ownership lost) are put back without counting an
 * attempt; a failed send is scheduled again on its topic's retry ladder, or goes {@code DEAD} once its attempts
 * are used up. Each journals what it applied and tells the {@link DispatchPipeline.ScheduleListener} when the job
 * is due again. A write the store refuses is logged and dropped: the job comes back when its reservation expires.
 *
 * <p>Threading: called on the scanner threads (put-backs before a send) and on the threads that complete the
 * sends (outcomes), concurrently; it holds no state but its policies and counters and is thread-safe.
 */
final class JobRescheduler {
    private static final Logger log = LoggerFactory.getLogger(JobRescheduler.class);

    private final HandOverStore store;
    private final RetryPolicy defaultRetryPolicy;
    private final Map<String, RetryPolicy> topicRetryPolicies;
    private final DispatchPipeline.ScheduleListener scheduled;
    private final EngineListener listener;
    private final TransitionJournal journal;
    private final Clock clock;
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong deferred = new AtomicLong();
    private final AtomicLong stale = new AtomicLong();

    JobRescheduler(
            HandOverStore store,
            RetrySettings retry,
            TransitionJournal journal,
            Clock clock,
            DispatchPipeline.ScheduleListener scheduled,
            EngineListener listener) {
        this.store = store;
        this.defaultRetryPolicy = new RetryPolicy(retry.backoff());
        Map<String, RetryPolicy> byTopic = new HashMap<>();
        retry.topics().forEach((topic, topicRetry) -> {
            if (topicRetry.backoff() != null) {
                byTopic.put(topic, new RetryPolicy(topicRetry.backoff()));
            }
        });
        this.topicRetryPolicies = Map.copyOf(byTopic);
        this.scheduled = scheduled;
        this.listener = listener;
        this.journal = journal;
        this.clock = clock;
    }

    /** Sends that failed since start. */
    long failed() {
        return failed.get();
    }

    /** Jobs put back unsent since start. */
    long deferred() {
        return deferred.get();
    }

    /** Put-backs and retries ignored since start because their attempt was over (see {@link Attempt}). */
    long stale() {
        return stale.get();
    }

    /** Puts unsent jobs back to {@code DELAY} without counting an attempt. */
    void putBack(int shard, Map<Attempt, Long> retryAtByAttempt, String reason) {
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

    /** A send of {@code job} failed: counts it and schedules the next attempt (or {@code DEAD}). */
    void sendFailed(int shard, Job job, Throwable cause) {
        failed.incrementAndGet();
        listener.sendFailed(job.topic());
        scheduleRetry(shard, job, cause);
    }

    private void scheduleRetry(int shard, Job job, Throwable cause) {
        int attempts = job.attempts() + 1;
        long now = clock.millis();
        long retryAt = now
                + topicRetryPolicies
                        .getOrDefault(job.topic(), defaultRetryPolicy)
                        .backoffMillis(attempts);
        try {
            Outcome outcome = store.retry(new Attempt(job.id(), job.attempts()), retryAt);
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
}
