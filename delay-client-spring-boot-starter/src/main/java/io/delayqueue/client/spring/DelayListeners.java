package io.delayqueue.client.spring;

import io.delayqueue.client.DelayQueueClient;
import io.delayqueue.client.JobHandler;
import io.delayqueue.client.PullConsumer;
import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.SmartLifecycle;

/**
 * Runs a {@link PullConsumer} for each {@link DelayListener} method while the application runs: started once every
 * bean is ready (after the web server), closed when the application stops (before the web server; each within its
 * shutdown grace, all at once), so that the jobs their handlers finished are finished at the service.
 *
 * <p>Threading: {@link #start} and {@link #stop} are called by the container's thread.
 */
public class DelayListeners implements SmartLifecycle {
    private static final Log log = LogFactory.getLog(DelayListeners.class);

    private final DelayHandlerMethods methods;
    private final ObjectProvider<DelayQueueClient> client;
    private final DelayClientProperties.Listener defaults;
    private final List<PullConsumer> running = new ArrayList<>();

    public DelayListeners(
            DelayHandlerMethods methods, ObjectProvider<DelayQueueClient> client, DelayClientProperties properties) {
        this.methods = methods;
        this.client = client;
        this.defaults = properties.getListener();
    }

    /** The topics consumed, one per {@link DelayListener} method. */
    public List<String> topics() {
        return methods.listeners().stream().map(l -> l.annotation().topic()).toList();
    }

    @Override
    public synchronized void start() {
        if (!running.isEmpty()) {
            return;
        }
        DelayQueueClient queue = client.getObject();
        for (DelayHandlerMethods.Listener l : methods.listeners()) {
            int concurrency =
                    l.annotation().concurrency() > 0 ? l.annotation().concurrency() : defaults.getConcurrency();
            int batchSize = l.annotation().batchSize() > 0 ? l.annotation().batchSize() : defaults.getBatchSize();
            running.add(queue.consumer(l.annotation().topic(), handler(l))
                    .concurrency(concurrency)
                    .batchSize(batchSize)
                    .pollTimeout(defaults.getPollTimeout())
                    .shutdownGrace(defaults.getShutdownGrace())
                    .start());
            log.info("consuming pull topic '" + l.annotation().topic() + "' with " + l.name() + " (" + concurrency
                    + " at once, " + batchSize + " a batch)");
        }
    }

    private static JobHandler handler(DelayHandlerMethods.Listener l) {
        return job -> {
            try {
                l.method().invoke(l.bean(), l.takesJob() ? job : job.body());
            } catch (InvocationTargetException e) {
                throw AnnotatedMethods.thrownBy(e);
            }
        };
    }

    @Override
    public void stop() {
        List<PullConsumer> closing;
        synchronized (this) {
            closing = List.copyOf(running);
            running.clear();
        }
        // all at once: each takes up to its grace
        CompletableFuture.allOf(closing.stream()
                        .map(c -> CompletableFuture.runAsync(c::close))
                        .toArray(CompletableFuture[]::new))
                .join();
    }

    @Override
    public synchronized boolean isRunning() {
        return !running.isEmpty();
    }

    @Override
    public boolean isAutoStartup() {
        return defaults.isAutoStartup();
    }

    /**
     * The last phase: started after the web server and stopped before its graceful shutdown, so that handlers may
     * still call the application's own endpoints while they finish.
     */
    @Override
    public int getPhase() {
        return SmartLifecycle.DEFAULT_PHASE;
    }
}
