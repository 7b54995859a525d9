package io.delayqueue.queue.store;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.journal.JobCursor;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The hot-path store of pending jobs: a job pool plus, per shard, a delay bucket, ready lists and dead
 * lists. Every method is one atomic state transition in the store (a Lua script for Redis); callers never
 * read-modify-write job state.
 *
 * <p>All times are epoch milliseconds from the engine's clock, passed in, so a store never reads a clock
 * of its own. Methods throw {@link io.delayqueue.common.DelayQueueException.Unavailable} when the store
 * cannot be reached.
 */
public interface JobStore extends AutoCloseable {

    /** Number of shards; a job's shard is {@link io.delayqueue.common.JobIds#shardOf}. */
    int shards();

    /** Who hears each round trip of the store's state transitions (metrics), from now on. */
    default void setListener(StoreListener listener) {}

    /**
     * A node number for generated ids ({@link io.delayqueue.common.JobIds.Generator}) that no other live
     * instance of this queue holds, in {@code [0, JobIds.NODES)}. Each call claims a new one. Numbers come
     * round again after {@code JobIds.NODES} claims, and a store that lost its state may hand out a number a
     * live instance holds; a store makes the second unlikely by starting at a random number.
     */
    int claimIdNode();

    /**
     * Adds jobs in state {@code DELAY} at their {@code executeAt}. Results are in the order of {@code
     * jobs}: {@code true} when the job was created, {@code false} when a job with its id already exists
     * (which is left untouched: pushing an id twice yields one job), {@code null} when its shard's call failed
     * (the jobs of the other shards are stored all the same). Throws when no shard took its jobs.
     */
    List<Boolean> push(List<Job> jobs);

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
     * Begins to cancel a {@code DELAY} or {@code READY} job: it is {@code DELETED} at once, so nothing delivers
     * it, but the delete stays pending until {@link #confirmDeletes} (the journal committed it) or {@link
     * #undoDeletes} (the journal refused it) settles it; a pending delete is never purged. A job already pending
     * deletion is {@link Outcome.Result#APPLIED} again and held once more: the caller's commit settles it as well,
     * and undoing it lets go of the caller's hold only; a confirmed one is a {@link Outcome.Result#CONFLICT} with
     * status {@code DELETED}.
     *
     * @param tombstone when the store lacks the job: the job (as the journal holds it) to write as a pending
     *     {@code DELETED} tombstone, so that no restore or late push brings it into the store alive; {@code null}
     *     to answer {@link Outcome.Result#NOT_FOUND} instead
     */
    Outcome beginDelete(String id, long now, Job tombstone);

    /**
     * The journal committed these pending deletes of one shard: they are final.
     *
     * @return the topic of each delete that was pending (and is confirmed now), one entry per job
     */
    List<String> confirmDeletes(int shard, List<String> ids, long now);

    /**
     * The journal refused these pending deletes of one shard: the caller lets go of its hold of each, and each that
     * no other delete holds is put back as it was before its delete began (a tombstone is removed). One that another
     * delete still holds stays {@code DELETED}, pending that delete's commit.
     *
     * @return the ids put back, each with the due time it is back at ({@code null} for a tombstone)
     */
    Map<String, Long> undoDeletes(int shard, List<String> ids);

    /**
     * Undoes (as {@link #undoDeletes}, every hold at once) those of these pending deletes whose latest begin was
     * before {@code begunBefore}: their deletes were abandoned. One begun again since is left pending.
     *
     * @return the ids put back, each with the due time it is back at ({@code null} for a tombstone)
     */
    Map<String, Long> undoAbandonedDeletes(int shard, List<String> ids, long begunBefore);

    /**
     * Where the deployment has replicas: whether enough of them took every write made to {@code shard} so far (the
     * wait is bounded); true at once where there are none to wait for.
     */
    default boolean awaitReplicas(int shard) {
        return true;
    }

    /** Up to {@code limit} ids of one shard whose delete began before {@code begunBefore} and is still pending. */
    List<String> pendingDeletes(int shard, long begunBefore, int limit);

    /** Those of {@code ids} whose delete is pending. */
    Set<String> pendingDeletesAmong(List<String> ids);

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

    /** The oldest (by last due time) {@code limit} dead jobs of {@code topic} in one shard. */
    List<Job> listDead(String topic, int shard, int limit);

    /** How many dead jobs {@code topic} has in one shard. */
    long countDead(String topic, int shard);

    /**
     * How many dead jobs each of {@code topics} has over every shard. The default asks {@link #countDead(String,
     * int)} shard by shard; a store over the network reads them all in one round trip.
     */
    default Map<String, Long> countDead(Collection<String> topics) {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (String topic : topics) {
            long total = 0;
            for (int shard = 0; shard < shards(); shard++) {
                total += countDead(topic, shard);
            }
            counts.put(topic, total);
        }
        return counts;
    }

    /**
     * Requeues dead jobs of {@code topic} by id: each goes back to {@code DELAY}, due at {@code now}, with its
     * attempts counted from zero. A job that is not a dead job of the topic is left alone ({@link
     * Outcome.Result#CONFLICT} with its status, or {@link Outcome.Result#NOT_FOUND}). Outcomes in the order of
     * {@code ids}.
     */
    List<Outcome> requeueDead(String topic, int shard, List<String> ids, long now);

    /**
     * Requeues the oldest {@code limit} dead jobs of {@code topic} in one shard, as {@link #requeueDead(String,
     * int, List, long)} does.
     */
    Requeued requeueOldestDead(String topic, int shard, int limit, long now);

    /**
     * What {@link #requeueOldestDead} did.
     *
     * @param ids the jobs requeued, oldest first
     * @param more whether the dead set may hold more (the call looked at as many entries as it was allowed)
     */
    record Requeued(List<String> ids, boolean more) {}

    /** The job as stored now, with its current status, attempts and due time. */
    Optional<Job> find(String id);

    /** Current statuses of the given jobs; ids not in the store are absent from the result. */
    Map<String, JobStatus> statuses(List<String> ids);

    /**
     * Begins to delete (as {@link #beginDelete}) up to {@code limit} jobs of one shard that have not been handed
     * over ({@code DELAY} jobs from rank {@code offset} of the bucket on, then {@code READY} ones), for {@code
     * clearAll}; the caller confirms or undoes them once the journal answered.
     */
    ClearBatch clear(int shard, int offset, int limit, long now);

    /**
     * @param deleted ids now {@code DELETED}, pending
     * @param reservedKept {@code RESERVED} bucket entries passed over (add them to the next offset)
     * @param scanned bucket entries looked at
     */
    record ClearBatch(List<String> deleted, int reservedKept, int scanned) {}

    /** Counts of one shard. */
    ShardStats stats(int shard);

    // ---- tiers: jobs due beyond the horizon live in the journal only, and are loaded ahead of time ----

    /**
     * Raises the load intent of {@code shard} to {@code intent} (never lowers it): the shard's owner promises to
     * load every job of the shard due up to it, and only then reads the journal. The intent carries a token naming
     * the life of the shard's watermark: {@code token} when the watermark had none (first raise, or Redis lost it),
     * else the one it had. Fenced as {@link #moveDue}.
     *
     * @return the intent now (at least {@code intent}), its token and how far the shard is loaded
     * @throws StaleEpochException when another instance took the shard over
     */
    TierMark raiseTierIntent(int shard, long intent, String token, long epoch);

    /**
     * The tier watermark of a shard.
     *
     * @param intent the highest load intent raised (epoch ms; 0: none since Redis lost its data)
     * @param token names the life of the watermark: a page read under it is loaded only while it is still there
     * @param loaded every {@code DELAY} job of the shard up to this (due time, id) is in the store or was; {@code
     *     null}: nothing loaded yet, the loader starts from the first job
     */
    record TierMark(long intent, String token, JobCursor loaded) {}

    /**
     * A page of journaled {@code DELAY} jobs of a shard, in (due time, id) order, as the loader read it.
     *
     * @param readUnder the watermark the page was read under (its intent is the highest due time read)
     * @param from the read began after this ({@link JobCursor#START}: from the first row)
     * @param jobs the rows read
     * @param to every row up to this was read: the cursor moves there
     * @param readAt when the read began (engine clock)
     */
    record TierPage(TierMark readUnder, JobCursor from, List<Job> jobs, JobCursor to, long readAt) {}

    /**
     * Loads a page of journaled {@code DELAY} jobs of {@code shard}: each beyond the loaded cursor and absent from
     * the store in any state (a tombstone, a deleted or finished job not yet purged all keep it out) is added as
     * {@link #push} adds it; then the cursor moves to the page's end (never back). Refused whole ({@link
     * TierLoad#outcome}) when the page was read more than {@code maxAgeMs} before {@code now}, when the watermark
     * it was read under is gone (its token, or an intent as high), or when the cursor is gone and the page does
     * not start from the first row. Fenced as {@link #moveDue}.
     *
     * @throws StaleEpochException when another instance took the shard over
     */
    TierLoad loadTier(int shard, TierPage page, long now, long maxAgeMs, long epoch);

    /**
     * What {@link #loadTier} did.
     *
     * @param outcome loaded, or why nothing was done
     * @param loaded ids of the jobs added to the store
     * @param earliestDue the earliest due time among them ({@code Long.MAX_VALUE}: none)
     */
    record TierLoad(LoadOutcome outcome, List<String> loaded, long earliestDue) {}

    /** Whether {@link #loadTier} loaded a page, or why it refused it. */
    enum LoadOutcome {
        /** the page was loaded (its new jobs added, the cursor moved) */
        LOADED,
        /** read too long ago: a tombstone it should have met may be purged already */
        STALE,
        /** the watermark it was read under is gone: a push committed since may be missing from it */
        INTENT_LOST,
        /** the cursor is gone and the page does not start from the first row */
        CURSOR_LOST
    }

    /**
     * Adds far jobs whose rows were just committed, each only if its due time is within its shard's load intent
     * (else the shard's loader will load it) and the store lacks its id. Results in the order of {@code jobs},
     * {@code null} where the shard's call failed; throws when every shard failed.
     */
    List<Admission> admit(List<Job> jobs);

    /** What {@link #admit} did with one job. */
    enum Admission {
        /** added to the store */
        ADMITTED,
        /** the store holds the id already (loaded meanwhile, or deleted) */
        PRESENT,
        /** beyond the load intent: the shard's loader loads it ahead of its due time */
        LEFT_TO_LOADER
    }

    @Override
    void close();
}
