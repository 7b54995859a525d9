package io.delayqueue.queue.engine;

/**
 * Hears what the engine does to jobs, per topic, for metrics. Called on the engine's own threads (pushing
 * callers, scanners, dispatch completions), often for every job: an implementation must be quick and must not
 * throw or block. Every method does nothing by default.
 */
public interface EngineListener {
    EngineListener NONE = new EngineListener() {};

    /** A new job was accepted (journaled, and stored or to be stored by the reconciler). */
    default void pushed(String topic) {}

    /** A job was handed over (to its dispatcher, or onto its pull topic's ready list), this late. */
    default void handedOver(String topic, long latenessMs) {}

    /**
     * A job of {@code topic} handed over that was due before the engine started or before a restore put it back
     * into Redis: counted apart from the hand-over lateness.
     */
    default void restoredHandedOver(String topic) {}

    /** A dispatcher did not confirm a send. */
    default void sendFailed(String topic) {}

    /**
     * A caller's push (one job, or a batch) was answered after this long, from the call to its answer (journal
     * commit and Redis included): {@code succeeded} when every job of it is durable, false when it was refused or
     * its outcome is unknown.
     */
    default void pushAnswered(long latencyNanos, boolean succeeded) {}

    /**
     * A reservation expired before it was settled: a pull consumer did not finish within the job's TTR, or a
     * dispatcher did not confirm a send within the dispatch timeout. The job is delivered again at once, or is
     * dead (then {@link #dead} follows) when that was its last attempt.
     */
    default void ttrExpired(String topic) {}

    /**
     * A job whose send failed was scheduled again on its retry ladder (an expired reservation is told by {@link
     * #ttrExpired} instead).
     */
    default void retried(String topic) {}

    /** A job ran out of attempts and is a dead letter. */
    default void dead(String topic) {}

    /**
     * A job was deleted, by a delete or clearAll: its {@code DELETED} is committed and confirmed in Redis (a
     * confirmation Redis missed is told when the reconciler makes it).
     */
    default void deleted(String topic) {}

    /**
     * Journal retention deleted final jobs' rows ({@code delay_queue_job}) and their log rows ({@code
     * delay_queue_job_log}); told once per batch.
     */
    default void journalPurged(int jobRows, int logRows) {}
}
