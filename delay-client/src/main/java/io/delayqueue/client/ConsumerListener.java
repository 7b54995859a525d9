package io.delayqueue.client;

import java.time.Duration;

/**
 * What a {@link PullConsumer} did, for logs and metrics. Called on the consumer's threads: keep it quick and never
 * throw (what it throws is ignored).
 */
public interface ConsumerListener {
    /** {@code job}'s handler returned normally after {@code took}; its finish follows. */
    default void onHandled(Job job, Duration took) {}

    /** {@code job}'s handler threw {@code error}: the job is left to come back after its ttr. */
    default void onHandlerFailed(Job job, Throwable error) {}

    /**
     * The finish of {@code job} ended with {@code outcome}: {@link FinishOutcome.Outcome#STALE} when the handler
     * outlived the reservation (the job was handed over again), {@link FinishOutcome.Outcome#UNKNOWN} when the
     * service could not be reached before the reservation ran out (the job comes back after its ttr).
     */
    default void onFinished(Job job, FinishOutcome outcome) {}

    /** A reserve failed ({@code GET /get/{topic}}); the consumer waits and polls again. */
    default void onReserveFailed(DelayQueueClientException error) {}
}
