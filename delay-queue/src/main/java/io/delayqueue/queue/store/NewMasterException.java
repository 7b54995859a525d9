package io.delayqueue.queue.store;

/**
 * A move of due jobs was refused: the shard's Redis master is not the one the journal was last replayed onto (a
 * replica was promoted, Redis restarted, the shard's slot moved to another master), and may lack transitions the
 * journal holds. Nothing was moved; the shard's owner replays the journal onto it first ({@link FailoverStore}, the
 * fail-over protocol).
 */
public final class NewMasterException extends RuntimeException {
    private final int shard;

    public NewMasterException(int shard) {
        super("shard " + shard + " is on a Redis master the journal was not replayed onto yet", null, false, false);
        this.shard = shard;
    }

    public int shard() {
        return shard;
    }
}
