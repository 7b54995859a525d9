package io.delayqueue.queue.store;

import io.delayqueue.common.Job;
import io.delayqueue.queue.journal.JobCursor;
import java.util.List;

/** The store's steps of the tier protocol: the load intent, loading journal pages, admitting far pushes; {@link io.delayqueue.queue.engine.tier.TierProtocol} owns their order. A role of {@link JobStore}. */
public interface TierStore {
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
     * @param jobs the rows read, or those of them the store lacked when checked ({@link #absent}): a row the store
     *     holds is never loaded
     * @param to every row up to this was read: the cursor moves there
     * @param readAt when the read began (engine clock)
     */
    record TierPage(TierMark readUnder, JobCursor from, List<Job> jobs, JobCursor to, long readAt) {}

    /**
     * Which of {@code ids} (all of {@code shard}) the store lacks in any state: the loader reads whole only the
     * rows of those, and {@link #loadTier} checks each again. Changes nothing.
     */
    List<String> absent(int shard, List<String> ids);

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
}
