package io.delayqueue.queue.engine;

/**
 * What a restore did.
 *
 * @param scanned non-final jobs read from the journal
 * @param restored jobs put back into Redis
 * @param alreadyPresent jobs Redis still held (left untouched)
 * @param skippedExpired jobs whose due time had passed, skipped because {@code expire=false}
 */
public record RestoreReport(long scanned, long restored, long alreadyPresent, long skippedExpired) {
    RestoreReport plus(RestoreReport o) {
        return new RestoreReport(
                scanned + o.scanned,
                restored + o.restored,
                alreadyPresent + o.alreadyPresent,
                skippedExpired + o.skippedExpired);
    }
}
