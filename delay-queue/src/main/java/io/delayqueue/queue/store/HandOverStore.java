package io.delayqueue.queue.store;

import io.delayqueue.common.Job;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The calls of the hand-over path: moving due jobs of an owned shard (fenced by the owner's epoch), reserving them for pull consumers, acknowledging, retrying and putting back sends. A role of {@link JobStore}. */
public interface HandOverStore {
    /**
     * Moves at most {@code limit} due entries of one shard's bucket: pull-topic jobs to their ready list,
     * push-topic jobs to {@code RESERVED} until {@code now + dispatchTimeoutMs} (returned for dispatch), and
     * expired reservations back to delivery or to {@code DEAD}.
     */
    default DueBatch moveDue(int shard, long now, int limit, DueRouting routing, long dispatchTimeoutMs) {
        return moveDue(shard, now, 0, limit, routing, dispatchTimeoutMs);
    }

    /**
     * {@link #moveDue(int, long, int, DueRouting, long)}, and also push-topic jobs due within {@code leadMs}
     * after {@code now}, {@code RESERVED} until their due time + {@code dispatchTimeoutMs}. The caller must not
     * hand such a job over before its due time ({@link Job#executeAt()}). Nothing else is moved early.
     */
    default DueBatch moveDue(int shard, long now, long leadMs, int limit, DueRouting routing, long dispatchTimeoutMs) {
        return moveDue(shard, now, leadMs, limit, routing, dispatchTimeoutMs, 0);
    }

    /**
     * {@link #moveDue(int, long, long, int, DueRouting, long)} fenced by the owner's epoch: refused, moving
     * nothing, when the shard's epoch is higher than {@code epoch} (another instance took the shard over since
     * this one took its epoch); a higher {@code epoch} than the store holds is stored. {@code 0}: unfenced.
     *
     * @throws StaleEpochException when refused
     */
    DueBatch moveDue(
            int shard, long now, long leadMs, int limit, DueRouting routing, long dispatchTimeoutMs, long epoch);

    /**
     * Takes a new owner epoch for {@code shard}, higher than every one taken before: an instance that becomes the
     * shard's owner takes one and carries it in its moves, which refuses the moves of every earlier owner.
     */
    long takeEpoch(int shard);

    /** Reserves the next {@code READY} job of {@code topic} in {@code shard} until {@code now + ttr}. */
    default Optional<Job> reserve(String topic, int shard, long now) {
        return reserve(topic, shard, now, 1).stream().findFirst();
    }

    /**
     * Reserves up to {@code limit} {@code READY} jobs of {@code topic} in {@code shard}, oldest first, in one
     * atomic step, each until {@code now +} its ttr. Each ready job is reserved by one call only.
     */
    List<Job> reserve(String topic, int shard, long now, int limit);

    /**
     * Acknowledges {@code RESERVED} jobs of one shard, each only while it is still in the given attempt (else
     * {@link Outcome.Result#STALE}); outcomes in the order of {@code attempts}.
     */
    List<Outcome> finishAttempts(int shard, List<Attempt> attempts, long now);

    /**
     * {@link #finishAttempts(int, List, long)} over jobs of any shards, one atomic step per shard. Outcomes in the
     * order of {@code attempts}; {@code null} where the call of the job's shard failed (it may or may not have
     * applied; finishing again is safe), the other shards' outcomes kept. Throws when every shard's call failed.
     */
    List<Outcome> finishAttempts(List<Attempt> attempts, long now);

    /** Acknowledges {@code RESERVED} jobs of one shard in whichever attempt they are; outcomes in order. */
    default List<Outcome> finish(int shard, List<String> ids, long now) {
        return finishAttempts(shard, ids.stream().map(Attempt::any).toList(), now);
    }

    /**
     * The send of {@code attempt} failed: counts it and schedules the {@code RESERVED} job again at {@code
     * retryAt}, or {@code DEAD}s it. A failure of an attempt the job has left behind counts nothing ({@link
     * Outcome.Result#STALE}).
     */
    Outcome retry(Attempt attempt, long retryAt);

    /** {@link #retry(Attempt, long)} of whichever attempt the job is in. */
    default Outcome retry(String id, long retryAt) {
        return retry(Attempt.any(id), retryAt);
    }

    /**
     * Puts back {@code RESERVED} jobs of one shard whose send was not attempted: {@code DELAY} again at the
     * given time, without counting an attempt. Their due time ({@code executeAt}) stays, so it still tells
     * how late they are. A job no longer in the given attempt is left alone ({@link Outcome.Result#STALE}).
     *
     * @param retryAtByAttempt job and attempt to the epoch ms at which it is due again
     * @return the outcome per job id
     */
    Map<String, Outcome> deferAttempts(int shard, Map<Attempt, Long> retryAtByAttempt);

    /** {@link #deferAttempts} of whichever attempt each job is in. */
    default Map<String, Outcome> defer(int shard, Map<String, Long> retryAtById) {
        Map<Attempt, Long> byAttempt = new LinkedHashMap<>();
        retryAtById.forEach((id, at) -> byAttempt.put(Attempt.any(id), at));
        return deferAttempts(shard, byAttempt);
    }

    /**
     * Makes {@code DELAY} jobs of one shard due at {@code now} (an operator's "run now"): their due time and bucket
     * score become {@code now}, their status and attempts stay; a job already due by then is left as it is. A job
     * that is not {@code DELAY} is left alone ({@link Outcome.Result#CONFLICT} with its status, or {@link
     * Outcome.Result#NOT_FOUND} when the store lacks it: a far job of the journal tier, for one). Outcomes in the
     * order of {@code ids}.
     */
    List<Outcome> runNow(int shard, List<String> ids, long now);
}
