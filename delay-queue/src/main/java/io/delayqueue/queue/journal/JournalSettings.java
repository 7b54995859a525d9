package io.delayqueue.queue.journal;

import static io.delayqueue.queue.SettingChecks.require;
import static io.delayqueue.queue.SettingChecks.requireBetween;
import static io.delayqueue.queue.SettingChecks.requireNotNegative;
import static io.delayqueue.queue.SettingChecks.requirePositive;

import java.time.Duration;

/**
 * The journal ({@code delay.journal.*}): how its writer commits, and how the engine reconciles, restores from
 * and purges it. The {@code DEFAULT_*} constants are the one source of the defaults.
 *
 * @param mode {@code SYNC}: a push is answered once its row is committed; {@code ASYNC}; {@code OFF}
 * @param lag longest a transition other than a push or delete waits before it is written
 * @param maxRowsPerCommit most rows one group commit writes
 * @param commitTimeout longest a push or delete waits for its commit
 * @param queueCapacity rows waiting for the database beyond which pushes are refused and other transitions are
 *     not journaled (Redis holds them; the reconciler writes final states back)
 * @param createWriters threads (and connections) that commit new jobs
 * @param reconcileInterval how often the reconciler looks for overdue jobs that Redis lost
 * @param reconcileGrace how long past its due time a job must be before the reconciler checks Redis for it
 * @param pageSize jobs read per page by restore, the reconciler and the tier loader
 * @param retention how long a final job and its history stay after their last update; {@code 0}: forever
 * @param purgeBatchSize jobs deleted per purge statement and transaction
 * @param purgeInterval how often retention looks for final jobs past it
 * @param purgePause least pause between two purge batches
 * @param queueCapacityBytes memory the rows waiting for the database may hold (estimated), the second bound of the
 *     backlog
 */
public record JournalSettings(
        JournalMode mode,
        Duration lag,
        int maxRowsPerCommit,
        Duration commitTimeout,
        int queueCapacity,
        int createWriters,
        Duration reconcileInterval,
        Duration reconcileGrace,
        int pageSize,
        Duration retention,
        int purgeBatchSize,
        Duration purgeInterval,
        Duration purgePause,
        long queueCapacityBytes) {

    public static final JournalMode DEFAULT_MODE = JournalMode.SYNC;
    public static final Duration DEFAULT_LAG = Duration.ofMillis(200);
    public static final int DEFAULT_MAX_ROWS_PER_COMMIT = 10_000;
    public static final Duration DEFAULT_COMMIT_TIMEOUT = Duration.ofSeconds(10);
    public static final int DEFAULT_QUEUE_CAPACITY = 1_000_000;
    /**
     * 256 MB: the memory the rows waiting for the database may hold (their bodies above all), whatever their count; a
     * million rows of 64 KB bodies would be 64 GB.
     */
    public static final long DEFAULT_QUEUE_CAPACITY_BYTES = 256L * 1024 * 1024;
    /** Two, so that one commit's disk flush overlaps the next. */
    public static final int DEFAULT_CREATE_WRITERS = 2;

    public static final Duration DEFAULT_RECONCILE_INTERVAL = Duration.ofSeconds(5);
    public static final Duration DEFAULT_RECONCILE_GRACE = Duration.ofSeconds(30);
    public static final int DEFAULT_PAGE_SIZE = 1000;
    /**
     * How long the journal keeps a final job ({@code FINISHED}, {@code DELETED}) and its history after its last
     * update; {@link Duration#ZERO} keeps them forever. At least {@code delay.retention}: the journal must not
     * forget a job Redis still holds (and whose client id it still answers for).
     */
    public static final Duration DEFAULT_RETENTION = Duration.ofDays(7);
    /** Jobs deleted per purge statement and transaction (their log rows, about three each, with them). */
    public static final int DEFAULT_PURGE_BATCH_SIZE = 500;

    public static final Duration DEFAULT_PURGE_INTERVAL = Duration.ofMinutes(1);
    /**
     * The least pause between two purge batches; a batch is followed by a pause four times as long as it took when
     * that is longer (a loaded database makes batches slow).
     */
    public static final Duration DEFAULT_PURGE_PAUSE = Duration.ofMillis(50);

    public static final JournalSettings DEFAULTS = new JournalSettings(
            DEFAULT_MODE,
            DEFAULT_LAG,
            DEFAULT_MAX_ROWS_PER_COMMIT,
            DEFAULT_COMMIT_TIMEOUT,
            DEFAULT_QUEUE_CAPACITY,
            DEFAULT_CREATE_WRITERS,
            DEFAULT_RECONCILE_INTERVAL,
            DEFAULT_RECONCILE_GRACE,
            DEFAULT_PAGE_SIZE,
            DEFAULT_RETENTION,
            DEFAULT_PURGE_BATCH_SIZE,
            DEFAULT_PURGE_INTERVAL,
            DEFAULT_PURGE_PAUSE,
            DEFAULT_QUEUE_CAPACITY_BYTES);

    public JournalSettings {
        require(mode != null, "delay.journal.mode must be sync, async or off");
        requireNotNegative(lag, "delay.journal.lag");
        require(maxRowsPerCommit >= 1, "delay.journal.max-rows-per-commit must be at least 1");
        requirePositive(commitTimeout, "delay.journal.commit-timeout");
        require(queueCapacity >= 1, "delay.journal.queue-capacity must be at least 1");
        require(createWriters >= 1, "delay.journal.create-writers must be at least 1");
        requirePositive(reconcileInterval, "delay.journal.reconcile-interval");
        requireNotNegative(reconcileGrace, "delay.journal.reconcile-grace");
        requireBetween(pageSize, 1, 10_000, "delay.journal.page-size");
        require(
                retention != null && !retention.isNegative(),
                "delay.journal.retention must not be negative (0 keeps final jobs forever)");
        requireBetween(purgeBatchSize, 1, 10_000, "delay.journal.purge-batch-size");
        requirePositive(purgeInterval, "delay.journal.purge-interval");
        requireNotNegative(purgePause, "delay.journal.purge-pause");
        require(queueCapacityBytes >= 1024, "delay.journal.queue-capacity-bytes must be at least 1KB");
    }

    /** These settings with the writer's part replaced (the order of the parameters is the record's). */
    public JournalSettings withWriter(
            JournalMode mode,
            Duration lag,
            int maxRowsPerCommit,
            Duration commitTimeout,
            int queueCapacity,
            int createWriters) {
        return new JournalSettings(
                mode,
                lag,
                maxRowsPerCommit,
                commitTimeout,
                queueCapacity,
                createWriters,
                reconcileInterval,
                reconcileGrace,
                pageSize,
                retention,
                purgeBatchSize,
                purgeInterval,
                purgePause,
                queueCapacityBytes);
    }

    /** These settings with the reconciler's part replaced (the tier loader and restore read pages too). */
    public JournalSettings withReconcile(Duration reconcileInterval, Duration reconcileGrace, int pageSize) {
        return new JournalSettings(
                mode,
                lag,
                maxRowsPerCommit,
                commitTimeout,
                queueCapacity,
                createWriters,
                reconcileInterval,
                reconcileGrace,
                pageSize,
                retention,
                purgeBatchSize,
                purgeInterval,
                purgePause,
                queueCapacityBytes);
    }

    /** These settings with the backlog's bound in bytes replaced. */
    public JournalSettings withQueueCapacityBytes(long queueCapacityBytes) {
        return new JournalSettings(
                mode,
                lag,
                maxRowsPerCommit,
                commitTimeout,
                queueCapacity,
                createWriters,
                reconcileInterval,
                reconcileGrace,
                pageSize,
                retention,
                purgeBatchSize,
                purgeInterval,
                purgePause,
                queueCapacityBytes);
    }

    /** These settings with the retention part replaced. */
    public JournalSettings withRetention(
            Duration retention, int purgeBatchSize, Duration purgeInterval, Duration purgePause) {
        return new JournalSettings(
                mode,
                lag,
                maxRowsPerCommit,
                commitTimeout,
                queueCapacity,
                createWriters,
                reconcileInterval,
                reconcileGrace,
                pageSize,
                retention,
                purgeBatchSize,
                purgeInterval,
                purgePause,
                queueCapacityBytes);
    }
}
