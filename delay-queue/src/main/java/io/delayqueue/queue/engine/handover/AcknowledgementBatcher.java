package io.delayqueue.queue.engine.handover;

import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.journal.JobEvent;
import io.delayqueue.queue.journal.Transition;
import io.delayqueue.queue.journal.TransitionJournal;
import io.delayqueue.queue.store.Attempt;
import io.delayqueue.queue.store.HandOverStore;
import io.delayqueue.queue.store.Outcome;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The acknowledgements of the {@link DispatchPipeline}: each confirmed send is queued here and written
 * ({@code FINISHED}) in batches, one script call per shard for whatever has accumulated. If an acknowledgement
 * cannot be written (Redis down) it is kept and written by a later flush; should the reservation expire first,
 * the job is delivered again: at least once, never lost.
 *
 * <p>Threading: {@link #add} runs on any thread (the sends' completions) and never blocks. Flushes run on one
 * daemon thread of its own ({@code delay-ack}), retried every 200 ms while the store fails, and on the threads of
 * the callers of {@link #flushNow} ({@link DueJobMover#runDueJobs}, close); they hold the monitor given as {@code
 * flushLock}, one at a time. That monitor is the pipeline's, so a caller holding the pipeline's monitor (a test)
 * holds every flush back.
 */
final class AcknowledgementBatcher {
    private static final Logger log = LoggerFactory.getLogger(AcknowledgementBatcher.class);

    private final HandOverStore store;
    private final TransitionJournal journal;
    private final Clock clock;
    private final Object flushLock;
    private final ConcurrentLinkedQueue<Ack> acks = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean flushScheduled = new AtomicBoolean();
    private final ScheduledExecutorService ackExecutor;
    private final AtomicLong stale = new AtomicLong();

    private record Ack(int shard, Attempt attempt) {}

    AcknowledgementBatcher(HandOverStore store, TransitionJournal journal, Clock clock, Object flushLock) {
        this.store = store;
        this.journal = journal;
        this.clock = clock;
        this.flushLock = flushLock;
        this.ackExecutor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "delay-ack");
            t.setDaemon(true);
            return t;
        });
    }

    /** Queues the acknowledgement of a confirmed send and asks for a flush. */
    void add(int shard, Attempt attempt) {
        acks.add(new Ack(shard, attempt));
        requestFlush();
    }

    /** Acknowledgements ignored since start because their attempt was over (see {@link Attempt}). */
    long stale() {
        return stale.get();
    }

    private void requestFlush() {
        if (flushScheduled.compareAndSet(false, true)) {
            try {
                ackExecutor.execute(this::flushScheduled);
            } catch (RejectedExecutionException closed) {
                flushScheduled.set(false);
            }
        }
    }

    private void flushScheduled() {
        flushScheduled.set(false);
        if (!flushNow()) {
            if (flushScheduled.compareAndSet(false, true)) {
                ackExecutor.schedule(this::flushScheduled, 200, TimeUnit.MILLISECONDS);
            }
        }
    }

    /** Writes every pending acknowledgement; {@code false} when the store failed (they are kept). */
    boolean flushNow() {
        synchronized (flushLock) {
            return flushPending();
        }
    }

    private boolean flushPending() {
        Map<Integer, List<Attempt>> byShard = new TreeMap<>();
        Ack ack;
        while ((ack = acks.poll()) != null) {
            byShard.computeIfAbsent(ack.shard(), s -> new ArrayList<>()).add(ack.attempt());
        }
        if (byShard.isEmpty()) {
            return true;
        }
        long now = clock.millis();
        List<Map.Entry<Integer, List<Attempt>>> shards = new ArrayList<>(byShard.entrySet());
        for (int k = 0; k < shards.size(); k++) {
            var entry = shards.get(k);
            List<Attempt> sent = entry.getValue();
            List<Outcome> outcomes;
            try {
                outcomes = store.finishAttempts(entry.getKey(), sent, now);
            } catch (RuntimeException e) {
                // kept, this shard's and those of the shards not written yet: an acknowledgement dropped here
                // would leave its delivered job RESERVED, to be delivered again when the reservation expires
                int kept = 0;
                for (var unwritten : shards.subList(k, shards.size())) {
                    int shard = unwritten.getKey();
                    unwritten.getValue().forEach(attempt -> acks.add(new Ack(shard, attempt)));
                    kept += unwritten.getValue().size();
                }
                log.warn("could not acknowledge {} dispatched jobs, will retry: {}", kept, e.toString());
                return false;
            }
            List<Transition> finished = new ArrayList<>(sent.size());
            for (int i = 0; i < sent.size(); i++) {
                Outcome outcome = outcomes.get(i);
                if (outcome.applied()) {
                    finished.add(Transition.of(
                            sent.get(i).id(), JobEvent.FINISHED, JobStatus.RESERVED, JobStatus.FINISHED, now, null));
                } else if (outcome.result() == Outcome.Result.STALE) {
                    stale.incrementAndGet();
                }
            }
            journal.recordTransitions(finished);
        }
        return true;
    }

    /**
     * Stops the flush thread (waiting a few seconds for a flush under way), then writes what is left. A send
     * confirmed after this is queued but no longer flushed by the thread.
     */
    void close() {
        ackExecutor.shutdown();
        try {
            ackExecutor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        flushNow();
    }
}
