package io.delayqueue.config;

import io.delayqueue.queue.engine.handover.ScannerSettings;
import java.time.Duration;

/** The per-shard timers. */
public class ScannerProperties {
    /** Most due jobs one scan moves in one Redis call. */
    private int batchSize = ScannerSettings.DEFAULT_BATCH_SIZE;

    /** Longest a scanner sleeps when its shard holds nothing due sooner. */
    private Duration maxSleep = ScannerSettings.DEFAULT_MAX_SLEEP;

    /**
     * How long before its due time a push-topic job is taken from Redis (0 to take none early); it is
     * handed over at its due time all the same.
     */
    private Duration lead = ScannerSettings.DEFAULT_LEAD;

    /**
     * How far back the journal's transitions are replayed onto a new Redis master (a promoted replica, a restarted
     * Redis) before its shards are scanned: at least the longest a replica may lag behind its master and still be
     * promoted.
     */
    private Duration replayWindow = ScannerSettings.DEFAULT_REPLAY_WINDOW;

    /** The scanner's settings; throws {@link IllegalArgumentException} naming a value it cannot work with. */
    public ScannerSettings toSettings() {
        return new ScannerSettings(batchSize, maxSleep, lead, replayWindow);
    }

    public Duration getReplayWindow() {
        return replayWindow;
    }

    public void setReplayWindow(Duration replayWindow) {
        this.replayWindow = replayWindow;
    }

    public Duration getLead() {
        return lead;
    }

    public void setLead(Duration lead) {
        this.lead = lead;
    }

    public int getBatchSize() {
        return batchSize;
    }

    public void setBatchSize(int batchSize) {
        this.batchSize = batchSize;
    }

    public Duration getMaxSleep() {
        return maxSleep;
    }

    public void setMaxSleep(Duration maxSleep) {
        this.maxSleep = maxSleep;
    }
}
