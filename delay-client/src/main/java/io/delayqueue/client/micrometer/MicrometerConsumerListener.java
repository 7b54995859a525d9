package io.delayqueue.client.micrometer;

import io.delayqueue.client.ConsumerListener;
import io.delayqueue.client.DelayQueueClientException;
import io.delayqueue.client.FinishOutcome;
import io.delayqueue.client.Job;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;

/**
 * Counts what a {@link io.delayqueue.client.PullConsumer} did into a Micrometer registry, tagged by {@code topic}:
 * {@code delay.client.handled} (handlers that returned), {@code delay.client.failed} (handlers that threw), {@code
 * delay.client.finished} by {@code outcome} ({@code FINISHED}, {@code STALE}, ..., {@code UNKNOWN} for finishes
 * that did not reach the service) and {@code delay.client.reserve.errors}. Loaded only when Micrometer is on the
 * class path.
 */
public final class MicrometerConsumerListener implements ConsumerListener {
    private final Counter handled;
    private final Counter failed;
    private final Counter reserveErrors;
    private final Map<FinishOutcome.Outcome, Counter> finished = new EnumMap<>(FinishOutcome.Outcome.class);

    public MicrometerConsumerListener(MeterRegistry registry, String topic) {
        handled = Counter.builder("delay.client.handled")
                .description("jobs whose handler returned")
                .tag("topic", topic)
                .register(registry);
        failed = Counter.builder("delay.client.failed")
                .description("jobs whose handler threw (they come back after their ttr)")
                .tag("topic", topic)
                .register(registry);
        reserveErrors = Counter.builder("delay.client.reserve.errors")
                .description("reserves that failed")
                .tag("topic", topic)
                .register(registry);
        for (FinishOutcome.Outcome o : FinishOutcome.Outcome.values()) {
            finished.put(
                    o,
                    Counter.builder("delay.client.finished")
                            .description("finishes of handled jobs, by outcome")
                            .tag("topic", topic)
                            .tag("outcome", o.name())
                            .register(registry));
        }
    }

    /** Counting into Micrometer's global registry (which Spring Boot's registry joins by default). */
    public static ConsumerListener global(String topic) {
        return new MicrometerConsumerListener(Metrics.globalRegistry, topic);
    }

    @Override
    public void onHandled(Job job, Duration took) {
        handled.increment();
    }

    @Override
    public void onHandlerFailed(Job job, Throwable error) {
        failed.increment();
    }

    @Override
    public void onFinished(Job job, FinishOutcome outcome) {
        finished.get(outcome.outcome()).increment();
    }

    @Override
    public void onReserveFailed(DelayQueueClientException error) {
        reserveErrors.increment();
    }
}
