package io.delayqueue.queue.engine.tier;

/**
 * Pending jobs per tier, for {@code /stats}.
 *
 * @param horizonMs jobs due further ahead than this are kept in the journal only ({@code 0}: tiers are off, and
 *     every job is in Redis)
 * @param redisPending {@code DELAY} jobs in Redis
 * @param journalPending {@code DELAY} jobs in the journal due beyond now + horizon, as last counted (a count over
 *     a range of the journal, taken in the background at most every few seconds, never on the request's thread);
 *     {@code null} until the first count is in
 * @param journalCountedAt when that count was taken (epoch ms), {@code null} with it
 */
public record TierStats(long horizonMs, long redisPending, Long journalPending, Long journalCountedAt) {}
