package io.delayqueue.queue.engine;

import io.delayqueue.queue.engine.restore.Reconciler;
import io.delayqueue.queue.engine.retention.DeadLetterPurger;
import io.delayqueue.queue.engine.retention.JournalPurger;
import io.delayqueue.queue.engine.retention.PurgeReport;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.journal.JournalMode;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The two timed passes over the journal: the {@link Reconciler}'s, every reconcile interval, and journal
 * retention's ({@link JournalPurger}), every purge interval when a retention is set; neither runs without a
 * journal. Each has a single daemon thread of its own ({@code delay-reconciler}, {@code delay-journal-purge}), so a
 * long purge never holds back the healing of Redis; a pass that fails is logged and the next one runs as planned.
 * {@link #reconcileNow()} and {@link #purgeJournalNow} run one pass on the caller's thread. Dead-letter retention
 * ({@link DeadLetterPurger}) runs every purge interval too, when it is set, on a thread of its own ({@code
 * delay-dead-purge}), with or without a journal; {@link #purgeDeadLettersNow} runs one pass by hand.
 */
final class JournalTimers {
    private static final Logger log = LoggerFactory.getLogger(JournalTimers.class);

    private final EngineConfig config;
    private final Journal journal;
    private final Reconciler reconciler;
    private final JournalPurger purger;
    private final DeadLetterPurger deadPurger;
    private ScheduledExecutorService reconcileTimer;
    private ScheduledExecutorService purgeTimer;
    private ScheduledExecutorService deadPurgeTimer;

    JournalTimers(
            EngineConfig config,
            Journal journal,
            Reconciler reconciler,
            JournalPurger purger,
            DeadLetterPurger deadPurger) {
        this.config = config;
        this.journal = journal;
        this.reconciler = reconciler;
        this.purger = purger;
        this.deadPurger = deadPurger;
    }

    /**
     * Starts the reconciler's timer, and journal retention's when a retention is set (neither without a journal).
     *
     * @param running whether the engine still runs: a purge pass stops between batches once it does not
     */
    void start(BooleanSupplier running) {
        long purgeEvery = config.journal().purgeInterval().toMillis();
        if (deadPurger.enabled()) {
            deadPurgeTimer = every("delay-dead-purge", purgeEvery, () -> purgeDeadLettersQuietly(running));
        }
        if (journal.mode() != JournalMode.OFF) {
            reconcileTimer = every(
                    "delay-reconciler", config.journal().reconcileInterval().toMillis(), this::reconcileQuietly);
            if (purger.enabled()) {
                purgeTimer = every("delay-journal-purge", purgeEvery, () -> purgeJournalQuietly(running));
            }
        }
    }

    /** A daemon thread named {@code name} that runs {@code pass} every {@code everyMs}, the first after one wait. */
    private static ScheduledExecutorService every(String name, long everyMs, Runnable pass) {
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
        timer.scheduleWithFixedDelay(pass, everyMs, everyMs, TimeUnit.MILLISECONDS);
        return timer;
    }

    /** Stops the timers; a purge batch under way is left to commit (for a few seconds at most). */
    void stop() {
        if (reconcileTimer != null) {
            reconcileTimer.shutdownNow();
        }
        for (ScheduledExecutorService timer : java.util.Arrays.asList(purgeTimer, deadPurgeTimer)) {
            if (timer == null) {
                continue;
            }
            // interrupts a pause; a batch under way (one short purge transaction, or one batch of dead-letter deletes)
            // is let commit or undo before the journal's connections close
            timer.shutdownNow();
            try {
                timer.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void purgeJournalQuietly(BooleanSupplier running) {
        try {
            purger.purgeOnce(running);
        } catch (RuntimeException e) {
            log.warn("journal retention pass failed: {}", e.toString());
        }
    }

    private void purgeDeadLettersQuietly(BooleanSupplier running) {
        try {
            deadPurger.purgeOnce(running);
        } catch (RuntimeException e) {
            log.warn("dead-letter retention pass failed: {}", e.toString());
        }
    }

    /** One pass of dead-letter retention; it stops between topics once {@code open} is false. */
    long purgeDeadLettersNow(BooleanSupplier open) {
        return deadPurger.purgeOnce(open);
    }

    /** One pass of journal retention; it stops between batches once {@code open} is false. */
    PurgeReport purgeJournalNow(BooleanSupplier open) {
        return purger.purgeOnce(open);
    }

    private void reconcileQuietly() {
        try {
            reconciler.reconcileOnce();
        } catch (RuntimeException e) {
            log.warn("reconciler pass failed: {}", e.toString());
        }
    }

    /** One reconciler pass. */
    long reconcileNow() {
        return reconciler.reconcileOnce();
    }
}
