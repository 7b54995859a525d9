package io.delayqueue.queue.engine.tier;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.coordination.Coordinator;
import io.delayqueue.queue.engine.ShardFences;
import io.delayqueue.queue.journal.JobCursor;
import io.delayqueue.queue.journal.JobEvent;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.journal.Transition;
import io.delayqueue.queue.store.JobStore;
import io.delayqueue.queue.store.StaleEpochException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tiered storage: Redis holds the jobs due within the horizon ({@code delay.tier.horizon}), the journal alone
 * the later ones ("far" jobs), and this loader, on the owner of each shard (wherever the shard's scanner runs),
 * pages the shard's journal rows into Redis ahead of their due time.
 *
 * <p>Each shard has a watermark in Redis beside its jobs ({@link JobStore.TierMark}): {@code intent}, the due
 * time up to which the owner has promised to load, and {@code loaded}, the (due time, id) up to which it did.
 * It survives a failover of the owner (the new owner goes on from it) and is lost together with the jobs when
 * Redis loses its data (the loader then starts again from the first row, which reloads exactly the horizon).
 * A pass over a shard: (1) raise {@code intent} to {@code now + horizon}; (2) only then read a page of the
 * shard's {@code DELAY} rows after {@code loaded} and due up to the intent, in (due time, id) order: their keys
 * from the index, then whole only the rows of the jobs Redis lacks (most were pushed near, into Redis, shortly
 * before the horizon reached them); (3) load it, fenced by the owner epoch, each job only where Redis lacks its id in any state (so a tombstone of a
 * deleted journal-only job keeps it out), and advance {@code loaded}, unless the watermark the page was read
 * under is gone from Redis; repeat while pages are full.
 *
 * <p>What each step does to the watermark, and why no far job is missed and no deleted one comes back, is {@link
 * TierProtocol}'s table: this class pages the journal and calls it, and journals the loads.
 *
 * <p>This runs ahead of due times, about every quarter of the horizon (clamped to {@link #MIN_SLEEP_MS}..{@link
 * #MAX_SLEEP_MS}) and at once when ownership changes: it is not the fixed-tick polling of due jobs that the design
 * rules out. Due times are still kept by the scanners, which a load wakes when it adds a job due sooner than
 * they sleep.
 */
public final class TierLoader implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(TierLoader.class);

    static final long MIN_SLEEP_MS = 50;
    static final long MAX_SLEEP_MS = 10_000;
    /**
     * Longest a count of the journal tier is served before it is counted again (off the request path); a quarter
     * of a shorter horizon, at least half a second.
     */
    static final long COUNT_MAX_AGE_MS = 60_000;
    /** Rows per batch when filling in the shard of rows written before the journal recorded it. */
    static final int BACKFILL_BATCH = 1000;

    /** The scanner's owner epochs, shared with the loader. */
    public interface Fences {
        /**
         * The epoch to carry in this shard's scripts; {@code 0}: the coordinator needs no fencing; {@link
         * ShardFences#NOT_OWNED}: do not touch the shard.
         */
        long epochFor(int shard);

        /** A script refused the epoch: take a new one next time. */
        void stale(int shard);
    }

    /** A count of the journal tier, and when it was taken (engine clock). */
    public record Count(long jobs, long countedAt) {}

    private final Journal journal;
    private final TierProtocol protocol;
    private final Coordinator coordinator;
    private final Clock clock;
    private final int pageSize;
    private final int shards;
    private final Fences fences;
    /** A job of a shard is due at a time (a load): wakes its scanner. */
    private final BiConsumer<Integer, Long> onScheduled;

    private final Object wake = new Object();
    private boolean woken; // guarded by wake
    private volatile boolean running = true;

    private volatile Count count;
    private final AtomicBoolean counting = new AtomicBoolean();
    private final ExecutorService counter = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "delay-tier-count");
        t.setDaemon(true);
        return t;
    });

    public TierLoader(
            Journal journal,
            TierProtocol protocol,
            Coordinator coordinator,
            Clock clock,
            int pageSize,
            int shards,
            Fences fences,
            BiConsumer<Integer, Long> onScheduled) {
        this.journal = journal;
        this.protocol = protocol;
        this.coordinator = coordinator;
        this.clock = clock;
        this.pageSize = pageSize;
        this.shards = shards;
        this.fences = fences;
        this.onScheduled = onScheduled;
    }

    public long horizonMs() {
        return protocol.horizonMs();
    }

    /** Jobs due after this are far ({@link TierProtocol#farAfter}). */
    public long farAfter() {
        return protocol.farAfter();
    }

    /** How long the loader sleeps between passes: a quarter of the horizon, clamped. */
    public long sleepMs() {
        return Math.max(MIN_SLEEP_MS, Math.min(MAX_SLEEP_MS, horizonMs() / 4));
    }

    /** One pass over every shard this instance owns; returns the jobs loaded. */
    public int loadOwnedShards() {
        int loaded = 0;
        for (int s = 0; s < shards; s++) {
            if (!coordinator.tryBeginScan(s)) {
                continue;
            }
            try {
                loaded += loadShard(s);
            } catch (StaleEpochException e) {
                fences.stale(s);
                log.warn("{}; not loading its jobs", e.getMessage());
            } finally {
                coordinator.endScan(s);
            }
        }
        return loaded;
    }

    /** Loads one owned shard up to now + horizon, page by page; returns the jobs loaded. */
    private int loadShard(int shard) {
        long epoch = fences.epochFor(shard);
        if (epoch < 0) {
            return 0;
        }
        JobStore.TierMark mark = protocol.raiseIntent(shard, epoch);
        // the intent may be higher than this instance's now + horizon (raised by an instance whose clock is
        // ahead): pushes due up to it were left to the loader only if their rows came before the raise, so
        // reading up to it covers them
        long upTo = mark.intent();
        JobCursor cursor = TierProtocol.readFrom(mark);
        int loaded = 0;
        while (cursor.dueAt() <= upTo) {
            long readAt = clock.millis();
            List<JobCursor> keys = journal.delayedKeysOfShard(shard, cursor, upTo, pageSize);
            boolean full = keys.size() >= pageSize;
            // a page that was not full read every row up to the intent: (upTo + 1, "") is after all of them
            JobCursor to = full ? keys.get(keys.size() - 1) : new JobCursor(upTo + 1, "");
            List<Job> page = rowsRedisLacks(shard, keys);
            JobStore.TierLoad result =
                    protocol.load(shard, new JobStore.TierPage(mark, cursor, page, to, readAt), epoch);
            if (result.outcome() != JobStore.LoadOutcome.LOADED) {
                log.warn(
                        "shard {}: a page of {} jobs was not loaded ({}): {}; reading it again next pass",
                        shard,
                        keys.size(),
                        result.outcome(),
                        refusal(result.outcome()));
                break;
            }
            loaded += result.loaded().size();
            if (!result.loaded().isEmpty()) {
                long now = clock.millis();
                List<Transition> loads = new ArrayList<>(result.loaded().size());
                for (String id : result.loaded()) {
                    loads.add(Transition.of(
                            id,
                            JobEvent.LOADED,
                            JobStatus.DELAY,
                            JobStatus.DELAY,
                            now,
                            "loaded from the journal tier"));
                }
                // journaled before the scanner is woken, so that the history reads in order
                journal.recordTransitions(loads);
                onScheduled.accept(shard, result.earliestDue());
            }
            if (!full) {
                break;
            }
            cursor = to;
        }
        return loaded;
    }

    /**
     * The whole rows of the page's jobs that Redis lacks, still {@code DELAY}. Most rows of a page were pushed near
     * (into Redis) a little before the horizon reached their due time, and only their keys are read; a job Redis
     * holds is never loaded ({@code tier_load} checks each given row again), and one that left {@code DELAY}
     * since the keys were read is not loaded either.
     */
    private List<Job> rowsRedisLacks(int shard, List<JobCursor> keys) {
        if (keys.isEmpty()) {
            return List.of();
        }
        List<String> absent =
                protocol.absent(shard, keys.stream().map(JobCursor::id).toList());
        if (absent.isEmpty()) {
            return List.of();
        }
        Map<String, Job> rows = journal.findAll(absent);
        List<Job> page = new ArrayList<>(absent.size());
        for (String id : absent) {
            Job job = rows.get(id);
            if (job != null && job.status() == JobStatus.DELAY) {
                page.add(job);
            }
        }
        return page;
    }

    private static String refusal(JobStore.LoadOutcome outcome) {
        return switch (outcome) {
            case STALE -> "read more than " + TierProtocol.MAX_PAGE_AGE_MS + " ms before it could be loaded";
            case INTENT_LOST -> "the load intent it was read under is gone from Redis (restarted or failed over)";
            case CURSOR_LOST -> "the loaded cursor is gone from Redis and the page does not start from the first row";
            case LOADED -> "loaded";
        };
    }

    /**
     * Fills in the shard of rows written before the journal recorded it, in bounded batches, while this instance
     * owns shard 0 (one instance does it: the standalone one, the leader, or the cluster member owning shard 0;
     * two at once would only write the same values). Until then the loader does not see those rows; they were
     * pushed before tiering existed, so Redis holds them, and the reconciler restores any Redis lost.
     */
    public void assignMissingShards() {
        long assigned = 0;
        while (running) {
            if (!coordinator.owns(0)) {
                LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1));
                continue;
            }
            try {
                int n = journal.assignMissingShards(BACKFILL_BATCH);
                assigned += n;
                if (n < BACKFILL_BATCH) {
                    if (assigned > 0) {
                        log.info("journal: recorded the shard of {} rows written before it was recorded", assigned);
                    }
                    return;
                }
            } catch (RuntimeException e) {
                log.warn("journal: could not record the shard of older rows, trying again: {}", e.toString());
                LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1));
            }
        }
    }

    /** Loads every {@link #sleepMs()} and whenever woken, until {@link #stop()}. */
    @Override
    public void run() {
        long backoff = 0;
        while (running) {
            long sleep = sleepMs();
            try {
                loadOwnedShards();
                backoff = 0;
            } catch (RuntimeException e) {
                backoff = backoff == 0 ? MIN_SLEEP_MS : Math.min(backoff * 2, sleep);
                sleep = backoff;
                log.warn("tier load failed, next try in {} ms: {}", backoff, e.toString());
            }
            pause(sleep);
        }
    }

    private void pause(long ms) {
        synchronized (wake) {
            try {
                if (!woken && running) {
                    wake.wait(ms);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                running = false;
            }
            woken = false;
        }
    }

    /** Ownership changed: load at once. */
    public void wakeNow() {
        synchronized (wake) {
            woken = true;
            wake.notifyAll();
        }
    }

    public void stop() {
        running = false;
        wakeNow();
        counter.shutdownNow();
    }

    /**
     * The jobs of the journal tier ({@code DELAY} rows due beyond now + horizon), as last counted: a range count
     * that can take a while on a large journal, so it is never run on the caller's thread; a count older than
     * {@link #COUNT_MAX_AGE_MS} (or a quarter of a shorter horizon) starts a new one in the background. {@code
     * null} before the first count.
     */
    public Count journalTier() {
        long now = clock.millis();
        Count last = count;
        long maxAge = Math.min(COUNT_MAX_AGE_MS, Math.max(500, horizonMs() / 4));
        if ((last == null || now - last.countedAt() > maxAge) && counting.compareAndSet(false, true)) {
            try {
                counter.execute(() -> {
                    try {
                        long at = clock.millis();
                        count = new Count(journal.countDelayedDueAfter(at + horizonMs()), at);
                    } catch (RuntimeException e) {
                        log.debug("counting the journal tier failed: {}", e.toString());
                    } finally {
                        counting.set(false);
                    }
                });
            } catch (RejectedExecutionException closed) {
                counting.set(false);
            }
        }
        return last;
    }
}
