package io.delayqueue.core;

import io.delayqueue.controller.DirectPushFilter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.http.Outcome;
import io.micrometer.observation.ObservationPredicate;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import org.springframework.http.server.observation.ServerRequestObservationContext;

/**
 * Times the pushes {@link DirectPushFilter} answers into Spring's request timer, {@code http.server.requests}
 * with the tags Spring's observation gives a request its exception handler answered ({@code error} and {@code
 * exception} none, the method, {@code uri} {@code /push}, the status and its outcome): the dashboard's push
 * latency panels read the same series as before. Those requests are left out of the observation ({@link
 * #notObserved}). One timer per status, looked up once.
 */
final class PushRequestTiming implements DirectPushFilter.Timing {
    private final MeterRegistry registry;
    private final ConcurrentMap<Integer, Timer> byStatus = new ConcurrentHashMap<>();

    PushRequestTiming(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Observes every request but those {@link DirectPushFilter} answers, which it times itself. */
    static ObservationPredicate notObserved() {
        return (name, context) -> !(context instanceof ServerRequestObservationContext request
                && request.getCarrier() != null
                && DirectPushFilter.answers(request.getCarrier()));
    }

    @Override
    public void answered(int status, long nanos) {
        byStatus.computeIfAbsent(status, this::timer).record(nanos, TimeUnit.NANOSECONDS);
    }

    private Timer timer(int status) {
        return Timer.builder("http.server.requests")
                .tags("error", "none", "exception", "none", "method", "POST")
                .tag("outcome", Outcome.forStatus(status).name())
                .tag("status", Integer.toString(status))
                .tag("uri", DirectPushFilter.PATH)
                .register(registry);
    }
}
