package io.delayqueue.config;

import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.journal.JournalSettings;
import java.time.Duration;
import org.springframework.util.unit.DataSize;

/** The MySQL journal (spring.datasource.*), from which the queue is restored after Redis is lost. */
public class JournalProperties {
    /** {@code sync}: a push is answered once its row is committed; {@code async}; {@code off}. */
    private JournalMode mode = JournalSettings.DEFAULT_MODE;

    /** Longest a transition other than a push or delete waits before it is written. */
    private Duration lag = JournalSettings.DEFAULT_LAG;

    /** Most rows one group commit writes. */
    private int maxRowsPerCommit = JournalSettings.DEFAULT_MAX_ROWS_PER_COMMIT;

    /**
     * Longest a push (counted from its arrival, its wait for a combined round included) or a delete waits for
     * its commit: then 503 when no commit of it had started (nothing written), 504 when one had (it may land).
     */
    private Duration commitTimeout = JournalSettings.DEFAULT_COMMIT_TIMEOUT;

    /** Threads (and connections) that commit new jobs, so one commit's disk flush overlaps the next. */
    private int createWriters = JournalSettings.DEFAULT_CREATE_WRITERS;

    /**
     * Rows waiting for the database beyond which pushes, deletes and consumers' calls are refused with 503 and the
     * scanners' transitions are not journaled (Redis holds them; the reconciler writes final states back).
     */
    private int queueCapacity = JournalSettings.DEFAULT_QUEUE_CAPACITY;

    /** Memory the rows waiting for the database may hold (estimated), bounded as {@code queue-capacity} is. */
    private DataSize queueCapacityBytes = DataSize.ofBytes(JournalSettings.DEFAULT_QUEUE_CAPACITY_BYTES);

    /** How often the reconciler looks for overdue jobs that Redis lost. */
    private Duration reconcileInterval = JournalSettings.DEFAULT_RECONCILE_INTERVAL;

    /** How long past its due time a job must be before the reconciler checks Redis for it. */
    private Duration reconcileGrace = JournalSettings.DEFAULT_RECONCILE_GRACE;

    /** Jobs read per page by restore and the reconciler. */
    private int pageSize = JournalSettings.DEFAULT_PAGE_SIZE;

    /** Restore from the journal at start-up; unset means "when Redis is the embedded one". */
    private Boolean restoreOnStart;

    /**
     * How long a finished or deleted job and its history stay in the journal after their last update; 0 keeps
     * them forever. Must be 0 or at least {@code delay.retention}. Dead jobs are kept until requeued.
     */
    private Duration retention = JournalSettings.DEFAULT_RETENTION;

    /** Jobs deleted per retention batch (one short transaction each, with their log rows). */
    private int purgeBatchSize = JournalSettings.DEFAULT_PURGE_BATCH_SIZE;

    /** How often retention looks for final jobs past it (on the instance that owns shard 0). */
    private Duration purgeInterval = JournalSettings.DEFAULT_PURGE_INTERVAL;

    /** Least pause between two retention batches; each is followed by at least four times as long as it took. */
    private Duration purgePause = JournalSettings.DEFAULT_PURGE_PAUSE;

    /**
     * The journal's settings, for its writer and for the engine's reconciler, restore and retention; throws
     * {@link IllegalArgumentException} naming a value they cannot work with.
     */
    public JournalSettings toSettings() {
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
                queueCapacityBytes.toBytes());
    }

    public JournalMode getMode() {
        return mode;
    }

    public void setMode(JournalMode mode) {
        this.mode = mode;
    }

    public Duration getLag() {
        return lag;
    }

    public void setLag(Duration lag) {
        this.lag = lag;
    }

    public int getMaxRowsPerCommit() {
        return maxRowsPerCommit;
    }

    public void setMaxRowsPerCommit(int maxRowsPerCommit) {
        this.maxRowsPerCommit = maxRowsPerCommit;
    }

    public Duration getCommitTimeout() {
        return commitTimeout;
    }

    public void setCommitTimeout(Duration commitTimeout) {
        this.commitTimeout = commitTimeout;
    }

    public int getCreateWriters() {
        return createWriters;
    }

    public void setCreateWriters(int createWriters) {
        this.createWriters = createWriters;
    }

    public int getQueueCapacity() {
        return queueCapacity;
    }

    public void setQueueCapacity(int queueCapacity) {
        this.queueCapacity = queueCapacity;
    }

    public DataSize getQueueCapacityBytes() {
        return queueCapacityBytes;
    }

    public void setQueueCapacityBytes(DataSize queueCapacityBytes) {
        this.queueCapacityBytes = queueCapacityBytes;
    }

    public Duration getReconcileInterval() {
        return reconcileInterval;
    }

    public void setReconcileInterval(Duration reconcileInterval) {
        this.reconcileInterval = reconcileInterval;
    }

    public Duration getReconcileGrace() {
        return reconcileGrace;
    }

    public void setReconcileGrace(Duration reconcileGrace) {
        this.reconcileGrace = reconcileGrace;
    }

    public int getPageSize() {
        return pageSize;
    }

    public void setPageSize(int pageSize) {
        this.pageSize = pageSize;
    }

    public Boolean getRestoreOnStart() {
        return restoreOnStart;
    }

    public void setRestoreOnStart(Boolean restoreOnStart) {
        this.restoreOnStart = restoreOnStart;
    }

    public Duration getRetention() {
        return retention;
    }

    public void setRetention(Duration retention) {
        this.retention = retention;
    }

    public int getPurgeBatchSize() {
        return purgeBatchSize;
    }

    public void setPurgeBatchSize(int purgeBatchSize) {
        this.purgeBatchSize = purgeBatchSize;
    }

    public Duration getPurgeInterval() {
        return purgeInterval;
    }

    public void setPurgeInterval(Duration purgeInterval) {
        this.purgeInterval = purgeInterval;
    }

    public Duration getPurgePause() {
        return purgePause;
    }

    public void setPurgePause(Duration purgePause) {
        this.purgePause = purgePause;
    }
}
