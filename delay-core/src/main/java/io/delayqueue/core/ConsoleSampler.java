package io.delayqueue.core;

import io.delayqueue.common.JobStatus;
import io.delayqueue.controller.ConsoleMetrics;
import io.delayqueue.queue.engine.DelayQueueEngine;
import io.delayqueue.queue.engine.EngineStats;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fills the web console's {@link ConsoleMetrics} every interval from the meters {@link DelayQueueMetrics} keeps
 * (pushes, hand-overs and restored hand-overs per second, as the change of their counters over the interval) and
 * from the engine's snapshot (lateness of the last minute, pending jobs per tier, the journal's lag, dead letters).
 *
 * <p>Threading: one daemon thread ({@code delay-console-sampler}) takes every sample; a sample that fails (Redis
 * down, say) keeps the rates and leaves the engine's figures out ({@code NaN}), and the next one tries again.
 */
final class ConsoleSampler implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ConsoleSampler.class);

    private final ConsoleMetrics ring;
    private final MeterRegistry registry;
    private final DelayQueueEngine engine;
    private final Clock clock;
    private final ScheduledExecutorService timer;
    private long lastAt = -1;
    private final double[] lastTotals = new double[3];

    ConsoleSampler(ConsoleMetrics ring, MeterRegistry registry, DelayQueueEngine engine, Clock clock) {
        this.ring = ring;
        this.registry = registry;
        this.engine = engine;
        this.clock = clock;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "delay-console-sampler");
            t.setDaemon(true);
            return t;
        });
    }

    public void start() {
        Duration every = Duration.ofMillis(ring.intervalMs());
        timer.scheduleAtFixedRate(this::sampleQuietly, 0, every.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void sampleQuietly() {
        try {
            sample();
        } catch (RuntimeException e) {
            log.debug("console sample failed: {}", e.toString());
        }
    }

    /** Takes one sample; the first one has no rates yet (nothing to compare with). */
    public void sample() {
        long now = clock.millis();
        double[] totals = {total("delay.jobs.pushed"), total("delay.jobs.handed.over"), total("delay.jobs.restored")};
        double[] values = new double[ConsoleMetrics.SERIES.size()];
        Arrays.fill(values, Double.NaN);
        if (lastAt >= 0 && now > lastAt) {
            double seconds = (now - lastAt) / 1000.0;
            for (int i = 0; i < totals.length; i++) {
                values[i] = Math.max(0, totals[i] - lastTotals[i]) / seconds;
            }
        }
        lastAt = now;
        System.arraycopy(totals, 0, lastTotals, 0, totals.length);
        try {
            EngineStats stats = engine.stats();
            values[3] = stats.lateness().p50();
            values[4] = stats.lateness().p99();
            values[5] = stats.tiers().redisPending();
            values[6] = stats.tiers().journalPending() == null
                    ? Double.NaN
                    : stats.tiers().journalPending();
            values[7] = stats.journal().lagMs();
            values[8] = stats.byStatus().getOrDefault(JobStatus.DEAD, 0L);
        } catch (RuntimeException e) {
            log.debug("console sample without the engine's figures: {}", e.toString());
        }
        ring.add(now, values);
    }

    private double total(String counter) {
        return registry.find(counter).counters().stream()
                .mapToDouble(Counter::count)
                .sum();
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
