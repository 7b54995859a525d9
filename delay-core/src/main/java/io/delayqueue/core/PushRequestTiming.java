package io.delayqueue.core;

import io.delayqueue.controller.DirectPushFilter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.http.Outcome;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;

/**
 * Times the pushes {@link DirectPushFilter} answers into Spring's request timer, {@code http.server.requests}
 * with the tags Spring's observation gives a request its exception handler answered ({@code error} and {@code
 * exception} none, the method, {@code uri} {@code /push}, the status and its outcome): the dashboard's push
 * latency panels read the same series as before. The filter answers them before the observation's filter runs.
 * One timer per status, looked up once.
 */
final class PushRequestTiming implements DirectPushFilter.Timing {
    private final MeterRegistry registry;
    private final ConcurrentMap<Integer, Timer> byStatus = new ConcurrentHashMap<>();

    PushRequestTiming(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void answered(int status, long nanos) {
        byStatus.computeIfAbsent(status, s -> postTimer(registry, DirectPushFilter.PATH, s))
                .record(nanos, TimeUnit.NANOSECONDS);
    }

    /**
     * Spring's request timer of a {@code POST} on {@code uri} answered {@code status} by a handler or the exception
     * handler: the tags Spring's observation gives it.
     */
    static Timer postTimer(MeterRegistry registry, String uri, int status) {
        return Timer.builder("http.server.requests")
                .tags("error", "none", "exception", "none", "method", "POST")
                .tag("outcome", Outcome.forStatus(status).name())
                .tag("status", Integer.toString(status))
                .tag("uri", uri)
                .register(registry);
    }
}
