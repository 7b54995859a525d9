package io.delayqueue.queue.engine;

import io.delayqueue.queue.engine.restore.Reconciler;
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
 * {@link #reconcileNow()} and {@link #purgeJournalNow} run one pass on the caller's thread.
 */
final class JournalTimers {
    private static final Logger log = LoggerFactory.getLogger(JournalTimers.class);

    private final EngineConfig config;
    private final Journal journal;
    private final Reconciler reconciler;
    private final JournalPurger purger;
    private ScheduledExecutorService reconcileTimer;
    private ScheduledExecutorService purgeTimer;

    JournalTimers(EngineConfig config, Journal journal, Reconciler reconciler, JournalPurger purger) {
        this.config = config;
        this.journal = journal;
        this.reconciler = reconciler;
        this.purger = purger;
    }

    /**
     * Starts the reconciler's timer, and journal retention's when a retention is set (neither without a journal).
     *
     * @param running whether the engine still runs: a purge pass stops between batches once it does not
     */
    void start(BooleanSupplier running) {
        if (journal.mode() != JournalMode.OFF) {
            reconcileTimer = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "delay-reconciler");
                t.setDaemon(true);
                return t;
            });
            long every = config.journal().reconcileInterval().toMillis();
            reconcileTimer.scheduleWithFixedDelay(this::reconcileQuietly, every, every, TimeUnit.MILLISECONDS);
            if (purger.enabled()) {
                purgeTimer = Executors.newSingleThreadScheduledExecutor(r -> {
                    Thread t = new Thread(r, "delay-journal-purge");
                    t.setDaemon(true);
                    return t;
                });
                long purgeEvery = config.journal().purgeInterval().toMillis();
                purgeTimer.scheduleWithFixedDelay(
                        () -> purgeJournalQuietly(running), purgeEvery, purgeEvery, TimeUnit.MILLISECONDS);
            }
        }
    }

    /** Stops the timers; a purge batch under way is left to commit (for a few seconds at most). */
    void stop() {
        if (reconcileTimer != null) {
            reconcileTimer.shutdownNow();
        }
        if (purgeTimer != null) {
            // interrupts a pause; a batch under way is one short transaction: let it commit before the journal's
            // connections close
            purgeTimer.shutdownNow();
            try {
                purgeTimer.awaitTermination(5, TimeUnit.SECONDS);
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
