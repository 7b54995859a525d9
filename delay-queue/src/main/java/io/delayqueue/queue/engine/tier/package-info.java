/**
 * The tier protocol: how a far job (due beyond {@code delay.tier.horizon}) gets from the journal into Redis ahead of
 * its due time. Owner: {@link TierProtocol}; {@link TierLoader} pages the journal and calls it.
 */
package io.delayqueue.queue.engine.tier;
