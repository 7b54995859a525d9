package io.delayqueue.queue.engine.restore;

/**
 * What a restore did.
 *
 * @param scanned non-final jobs read from the journal
 * @param restored jobs put back into Redis
 * @param alreadyPresent jobs Redis still held (left untouched)
 * @param skippedExpired jobs whose due time had passed, skipped because {@code expire=false}
 * @param inJournalTier far jobs left in the journal tier: their shard's owner loads them into Redis ahead of
 *     their due time
 */
public record RestoreReport(long scanned, long restored, long alreadyPresent, long skippedExpired, long inJournalTier) {
    public RestoreReport(long scanned, long restored, long alreadyPresent, long skippedExpired) {
        this(scanned, restored, alreadyPresent, skippedExpired, 0);
    }

    RestoreReport plus(RestoreReport o) {
        return new RestoreReport(
                scanned + o.scanned,
                restored + o.restored,
                alreadyPresent + o.alreadyPresent,
                skippedExpired + o.skippedExpired,
                inJournalTier + o.inJournalTier);
    }
}
