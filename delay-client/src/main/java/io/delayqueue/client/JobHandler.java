package io.delayqueue.client;

/**
 * Handles one reserved job of a {@link PullConsumer}. Returning normally finishes the job (in a batch, with the
 * reservation's {@code attempts}). Throwing leaves it unfinished: it comes back after its {@code ttr}, its {@code
 * attempts} counted, and is {@code DEAD} once they reach its {@code maxAttempts}. Throwing is also how a handler
 * says "retry later": the service has no call that hands a reservation back early, so the job returns after its ttr
 * in either case (push with a ttr as long as the wait you want).
 *
 * <p>Runs on the consumer's worker threads, up to its concurrency at once; may be interrupted when the consumer is
 * closed and the handler outlives the grace.
 */
@FunctionalInterface
public interface JobHandler {
    void handle(Job job) throws Exception;
}
