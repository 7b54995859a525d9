package io.delayqueue.queue.store;

/**
 * Hears the store's round trips, for metrics. Called on the thread that made the call, right after it: an
 * implementation must be quick and must not throw or block.
 */
public interface StoreListener {
    StoreListener NONE = (operation, nanos, failed) -> {};

    /**
     * One round trip to the store ended.
     *
     * @param operation what ran, one of a small fixed set (for Redis: the name of the Lua script, such as {@code
     *     push} or {@code move_due}; a pipeline of runs of one script is one round trip)
     * @param nanos how long the round trip took, a resend after a redirect or a lost script cache included
     * @param failed whether it ended in an error
     */
    void roundTrip(String operation, long nanos, boolean failed);
}
