package io.delayqueue.queue.engine.retention;

import io.delayqueue.queue.coordination.Coordinator;
import io.delayqueue.queue.engine.EngineListener;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.journal.PurgedRows;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Journal retention ({@code delay.journal.retention}): deletes final jobs ({@code FINISHED}, {@code DELETED})
 * last updated more than the retention ago, with their log rows, so that the journal stops growing once it
 * holds the retention's worth of jobs.
 *
 * <p>A pass deletes batch after batch ({@link Journal#purgeFinished}, one short transaction of at most {@code
 * batchSize} jobs each) until a batch finds fewer than {@code batchSize} jobs. Between two batches it pauses at least
 * {@code pause}, and {@link #PAUSE_PER_BATCH_TIME} times as long as the batch took: the purge holds a connection
 * (and the database's locks on its rows) at most a fifth of the time, and a loaded database, which makes batches
 * slow, gets longer pauses, so pushes keep their commits. No batch starts while the journal's writers lag more
 * than {@link #YIELD_TO_LAG_MS} behind.
 *
 * <p>Who purges: the owner of shard 0, i.e. the standalone instance, the leader (master-slave), or in cluster
 * mode the one member that holds shard 0 now. Ownership is checked before every batch; should two instances
 * overlap during a hand-over, each batch deletes by key, guarded by status and update time, so a row goes once and
 * the other batch finds it gone. {@code DEAD} jobs are never purged: see docs/operating.md (Journal retention).
 *
 * <p>Threading: passes are serialized ({@code synchronized}); the engine runs them on a thread of their own,
 * apart from the reconciler, so a long pass never holds back the healing of Redis.
 */
public final class JournalPurger {
    private static final Logger log = LoggerFactory.getLogger(JournalPurger.class);
    /** The shard whose owner purges. */
    static final int PURGING_SHARD = 0;
    /** The pause after a batch, in multiples of the time the batch took. */
    static final int PAUSE_PER_BATCH_TIME = 4;
    /**
     * While the journal's writers are further behind than this ({@link Journal#lagMillis()}), no batch starts: the
     * purge waits as long again and looks once more, so pushes and transitions get the database first.
     */
    static final long YIELD_TO_LAG_MS = 1_000;

    /** Waits between batches; a test records the pauses instead. */
    @FunctionalInterface
    public interface Pauser {
        void pause(long millis) throws InterruptedException;
    }

    private final Journal journal;
    private final Coordinator coordinator;
    private final Clock clock;
    private final Duration retention;
    private final int batchSize;
    private final long pauseMs;
    private final Pauser pauser;
    /** {@link System#nanoTime()}, or a test's. */
    private final LongSupplier nanoTime;

    private final EngineListener listener;

    public JournalPurger(
            Journal journal,
            Coordinator coordinator,
            Clock clock,
            Duration retention,
            int batchSize,
            Duration pause,
            Pauser pauser,
            LongSupplier nanoTime,
            EngineListener listener) {
        this.journal = journal;
        this.coordinator = coordinator;
        this.clock = clock;
        this.retention = retention;
        this.batchSize = batchSize;
        this.pauseMs = pause.toMillis();
        this.pauser = pauser;
        this.nanoTime = nanoTime;
        this.listener = listener;
    }

    /** Whether passes do anything: a retention is set. */
    public boolean enabled() {
        return !retention.isZero();
    }

    /**
     * One pass: batches until one comes back short, this instance stops owning {@link #PURGING_SHARD}, or {@code
     * keepGoing} turns false (the engine closes). The cutoff is fixed at the start of the pass.
     */
    public synchronized PurgeReport purgeOnce(BooleanSupplier keepGoing) {
        if (!enabled()) {
            return PurgeReport.NONE;
        }
        long startedAt = clock.millis();
        long updatedBefore = startedAt - retention.toMillis();
        long jobs = 0;
        long logRows = 0;
        int batches = 0;
        long startNanos = nanoTime.getAsLong();
        int yields = 0;
        while (keepGoing.getAsBoolean() && coordinator.owns(PURGING_SHARD)) {
            if (journal.lagMillis() > YIELD_TO_LAG_MS) {
                yields++;
                try {
                    pauser.pause(YIELD_TO_LAG_MS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
                continue;
            }
            long batchStart = nanoTime.getAsLong();
            PurgedRows purged = journal.purgeFinished(updatedBefore, batchSize);
            long tookMs = (nanoTime.getAsLong() - batchStart) / 1_000_000;
            batches++;
            jobs += purged.jobs();
            logRows += purged.logRows();
            if (purged.jobs() > 0 || purged.logRows() > 0) {
                listener.journalPurged(purged.jobs(), purged.logRows());
            }
            if (purged.selected() < batchSize || purged.jobs() == 0) {
                // the last ones; or all of a full batch changed since selected (nothing to gain by going on now)
                break;
            }
            try {
                pauser.pause(Math.max(pauseMs, PAUSE_PER_BATCH_TIME * tookMs));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        long tookMs = (nanoTime.getAsLong() - startNanos) / 1_000_000;
        if (jobs > 0) {
            log.info(
                    "journal retention: purged {} final jobs and {} log rows last updated before {} ({} ago), in {}"
                            + " batches, {} ms ({} s waiting for the journal's writers to catch up)",
                    jobs,
                    logRows,
                    Instant.ofEpochMilli(updatedBefore),
                    retention,
                    batches,
                    tookMs,
                    yields * YIELD_TO_LAG_MS / 1000);
        } else {
            log.debug("journal retention: nothing to purge before {}", Instant.ofEpochMilli(updatedBefore));
        }
        return new PurgeReport(jobs, logRows, batches);
    }
}
