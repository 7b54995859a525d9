package io.delayqueue.client;

/**
 * What a finish did to one reserved job ({@code POST /jobs/finish}'s outcome per job).
 *
 * @param id the job
 * @param outcome what happened
 * @param status the job's status now, when the service knows it
 */
public record FinishOutcome(String id, Outcome outcome, String status) {
    public enum Outcome {
        /** Finished now, or before (a retried finish). */
        FINISHED,
        /**
         * The reservation named is over: it expired and the job was handed over again (409 for a single finish).
         * Nothing changed; the job's current holder finishes it.
         */
        STALE,
        /** No such job (or final longer ago than the service's retention). */
        NOT_FOUND,
        /** The job is not reserved ({@link FinishOutcome#status()} says what it is); nothing changed. */
        NOT_RESERVED,
        /**
         * Unknown: Redis failed on the job's shard, or the service could not be reached within the retry policy.
         * Finishing again is safe; unfinished, the job comes back after its ttr.
         */
        UNKNOWN
    }
}
