package io.delayqueue.queue.journal;

import java.util.List;

/** The journal's side of the tier protocol: pages of a shard's far jobs, the journal tier's size, and shards of old rows filled in. A role of {@link Journal}. */
public interface TierJournal {
    /**
     * The (due time, id) of the {@code DELAY} jobs of one shard due at or before {@code dueAtMost}, in that order,
     * strictly after {@code after}: one page of the tier loader's keyset walk, read from the {@code (shard, status,
     * due_at, id)} index alone. Reads only rows committed when the query began. The loader reads whole ({@link
     * JournalLookups#findAll}) only the rows Redis lacks: most rows of a page were pushed near, into Redis, just
     * before the horizon reached them.
     */
    List<JobCursor> delayedKeysOfShard(int shard, JobCursor after, long dueAtMost, int limit);

    /**
     * How many jobs are {@code DELAY} with a due time after {@code dueAfter}: the journal tier's size when
     * {@code dueAfter} is the horizon. A range count over the {@code (status, due_at)} index, which takes time
     * on a large table: callers cache it, off any request path.
     */
    long countDelayedDueAfter(long dueAfter);

    /**
     * Fills in the shard of up to {@code limit} rows written before the journal recorded shards (a bounded
     * batch; rows of other writers meanwhile are left as they are); idempotent.
     *
     * @return rows that lacked a shard when the batch was read (fewer than {@code limit}: none left)
     */
    default int assignMissingShards(int limit) {
        return 0;
    }
}
