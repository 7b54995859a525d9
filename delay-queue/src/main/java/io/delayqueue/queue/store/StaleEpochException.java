package io.delayqueue.queue.store;

/**
 * A move of due jobs was refused: the shard's owner epoch in the store is higher than the one the move
 * carried, so another instance took the shard over since this one took its epoch (this one is paused or cut
 * off and does not know yet). Nothing was moved.
 */
public final class StaleEpochException extends RuntimeException {
    private final int shard;
    private final long epoch;
    private final long current;

    public StaleEpochException(int shard, long epoch, long current) {
        super("shard " + shard + " has a newer owner: its epoch is " + current + ", this instance holds " + epoch);
        this.shard = shard;
        this.epoch = epoch;
        this.current = current;
    }

    public int shard() {
        return shard;
    }

    /** The epoch the refused move carried. */
    public long epoch() {
        return epoch;
    }

    /** The shard's epoch in the store. */
    public long current() {
        return current;
    }
}
