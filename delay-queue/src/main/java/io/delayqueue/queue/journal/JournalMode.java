package io.delayqueue.queue.journal;

/** How much durability a push buys ({@code delay.journal.mode}). */
public enum JournalMode {
    /** A push is answered after its job row is committed; a delete after its DELETED row is. */
    SYNC,
    /** Everything is written in batches within the journal's lag; a crash may lose the last moments. */
    ASYNC,
    /** No journal: nothing survives the loss of Redis. */
    OFF
}
