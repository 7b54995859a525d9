package io.delayqueue.client;

/**
 * What {@code GET /reStore} did: journaled jobs looked at, put back into Redis, found there already, skipped as
 * already due ({@code expire=false}), and left in the journal tier (due beyond the horizon).
 */
public record RestoreReport(
        long scanned, long restored, long alreadyPresent, long skippedExpired, long inJournalTier) {}
