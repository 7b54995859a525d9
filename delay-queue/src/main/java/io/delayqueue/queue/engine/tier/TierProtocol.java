package io.delayqueue.queue.engine.tier;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.Job;
import io.delayqueue.common.JobIds;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.engine.ShardFences;
import io.delayqueue.queue.engine.handover.DispatchPipeline;
import io.delayqueue.queue.engine.push.PushPath;
import io.delayqueue.queue.engine.restore.JournalRestorer;
import io.delayqueue.queue.journal.JobCursor;
import io.delayqueue.queue.store.TierStore;
import io.delayqueue.queue.store.TierStore.Admission;
import io.delayqueue.queue.store.TierStore.TierLoad;
import io.delayqueue.queue.store.TierStore.TierMark;
import io.delayqueue.queue.store.TierStore.TierPage;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tier protocol: the one owner of how a far job (due beyond the horizon, {@code delay.tier.horizon}) gets
 * from the journal into Redis. Its four steps are the scripts {@code tier_intent} (raise), {@code tier_load}
 * (load), {@code tier_admit} (admit and readmit); the {@link TierLoader} pages the journal and calls {@link
 * #raiseIntent} and {@link #load}, the {@link PushPath} calls {@link #admit} after a far push commits and
 * {@link #readmit} after a delete of a journal-only job is undone. Nothing else writes the shard's watermark
 * ({@code {prefix:shard}:tier}: {@code intent}, {@code token}, {@code loaded}).
 *
 * <p>The table: the shard's watermark in Redis x the job's journal row x the event, and the next state and answer
 * (W(i, t, c): intent {@code i}, token {@code t}, cursor {@code c}; "none": the hash is absent, never raised or
 * lost with Redis' data). Every step below is also fenced by the owner epoch ({@link ShardFences}): a stale or
 * negative (not owned) epoch changes nothing and throws {@link io.delayqueue.queue.store.StaleEpochException}.
 *
 * <table>
 * <caption>Tier protocol</caption>
 * <tr><th>Event</th><th>Redis</th><th>Journal</th><th>Next Redis</th><th>Answer</th></tr>
 * <tr><td>raise to i'</td><td>none</td><td>-</td><td>W(i', new t, none)</td><td>read from the first row</td></tr>
 * <tr><td>raise to i'</td><td>W(i, t, c)</td><td>-</td><td>W(max(i, i'), t, c)</td><td>read after c up to the
 * intent</td></tr>
 * <tr><td>load page read under (i, t), from f to e</td><td>W(&ge; i, t, c), c present or f = first row</td>
 * <td>the page's rows DELAY</td><td>each row after c whose id Redis lacks in any state added; cursor max(c, e)</td>
 * <td>LOADED: journaled LOADED, scanner woken</td></tr>
 * <tr><td>load, read over 30 s before</td><td>any</td><td>-</td><td>unchanged</td><td>STALE: read again next
 * pass</td></tr>
 * <tr><td>load</td><td>none, another token, or intent &lt; i</td><td>-</td><td>unchanged</td><td>INTENT_LOST: the
 * next pass raises anew and reads from the cursor it finds (the first row when none)</td></tr>
 * <tr><td>load, f not the first row</td><td>W(i, t, none)</td><td>-</td><td>unchanged</td><td>CURSOR_LOST: as
 * INTENT_LOST</td></tr>
 * <tr><td>admit (after commit), due &le; i</td><td>W(i, t, c), id absent</td><td>DELAY</td><td>job added</td>
 * <td>ADMITTED: 200, scanner woken</td></tr>
 * <tr><td>admit, due &le; i</td><td>id present (any state, a tombstone too)</td><td>DELAY</td><td>unchanged</td>
 * <td>PRESENT: 200</td></tr>
 * <tr><td>admit, due &gt; i</td><td>W(i, t, c) or none</td><td>DELAY</td><td>unchanged</td><td>LEFT_TO_LOADER:
 * 200, a pass whose intent reaches the due time reads the row</td></tr>
 * <tr><td>admit, Redis fails</td><td>-</td><td>DELAY</td><td>unchanged</td><td>202: the reconciler schedules it
 * once due</td></tr>
 * <tr><td>readmit (delete undone)</td><td>tombstone removed</td><td>DELAY</td><td>as admit</td><td>as admit (best
 * effort: the reconciler once due)</td></tr>
 * <tr><td>Redis loses the watermark</td><td>none, or an older W</td><td>-</td><td>-</td><td>pages in flight are
 * refused (INTENT_LOST, CURSOR_LOST); pushes meanwhile are LEFT_TO_LOADER and read by the next pass</td></tr>
 * </table>
 *
 * <p><b>Why no far job is missed.</b> Take a far row R due at D. If its admit ran after the intent was raised to
 * {@code >= D} under the token a page is loaded under, the admit stored R. Otherwise the admit, and so R's commit,
 * came before that raise, which comes before the read up to that intent: the read sees R, unless the read began
 * after the cursor passed D, which only a load under an intent {@code >= D} does. A page is loaded only while the
 * watermark it was read under is still in Redis (same token, intent as high), so no admit in between can have
 * found a lower intent or none; and a cursor is never recreated past rows nobody read.
 *
 * <p><b>Why no deleted job comes back.</b> Deleting a job Redis lacks writes a {@code DELETED} tombstone before the
 * journal commits the delete; it stays until the final-job retention ({@code delay.retention}) purges it, and the
 * load skips every id Redis holds. A page is loaded only if it was read less than {@link #MAX_PAGE_AGE_MS} before,
 * and start-up refuses a retention below {@link TierSettings#MIN_RETENTION} while tiers are on, so a page read
 * before a delete is never loaded after that delete's tombstone was purged.
 *
 * <p>Thread-safe: the loader's thread and the pushing callers' threads call it at once; all state is in Redis.
 */
public final class TierProtocol {
    private static final Logger log = LoggerFactory.getLogger(TierProtocol.class);

    /** Oldest a page may be when it is loaded: far below the final-job retention, which purges tombstones. */
    static final long MAX_PAGE_AGE_MS = TierSettings.MAX_PAGE_AGE.toMillis();

    private final TierStore store;
    private final Clock clock;
    private final long horizonMs;
    private final int shards;
    /** A job landed in Redis: wakes its shard's scanner. */
    private final DispatchPipeline.ScheduleListener scheduled;

    public TierProtocol(
            TierStore store, Clock clock, long horizonMs, int shards, DispatchPipeline.ScheduleListener scheduled) {
        this.store = store;
        this.clock = clock;
        this.horizonMs = horizonMs;
        this.shards = shards;
        this.scheduled = scheduled;
    }

    long horizonMs() {
        return horizonMs;
    }

    /** Jobs due after this are far: journaled only, and admitted rather than stored. */
    public long farAfter() {
        return clock.millis() + horizonMs;
    }

    /**
     * Raise: the owner promises to load every job of {@code shard} due up to now + horizon (or the higher intent
     * in force), before it reads the journal. A fresh token names the watermark when Redis has none.
     */
    TierMark raiseIntent(int shard, long epoch) {
        return store.raiseTierIntent(shard, farAfter(), UUID.randomUUID().toString(), epoch);
    }

    /** The page to read next under {@code mark}: after its cursor, from the first row when there is none. */
    static JobCursor readFrom(TierMark mark) {
        return mark.loaded() == null ? JobCursor.START : mark.loaded();
    }

    /** Which of {@code ids} (of {@code shard}) Redis lacks in any state: the rows the loader reads whole. */
    List<String> absent(int shard, List<String> ids) {
        return store.absent(shard, ids);
    }

    /** Load: one page read under a raised intent (see the table). */
    TierLoad load(int shard, TierPage page, long epoch) {
        return store.loadTier(shard, page, clock.millis(), MAX_PAGE_AGE_MS, epoch);
    }

    /**
     * Admit: far jobs whose rows are committed, each into Redis if within its shard's intent, else left to the
     * loader; by id {@code true} for each the store took or left to the loader (durable and scheduled either
     * way), absent where its shard failed.
     */
    public Map<String, Boolean> admit(List<Job> jobs) {
        Map<String, Boolean> byId = new HashMap<>();
        if (jobs.isEmpty()) {
            return byId;
        }
        List<Admission> admitted;
        try {
            admitted = store.admit(jobs);
        } catch (DelayQueueException e) {
            log.warn("Redis could not admit any of {} far jobs: {}", jobs.size(), e.getMessage());
            return byId;
        }
        for (int i = 0; i < jobs.size(); i++) {
            Admission a = admitted.get(i);
            if (a != null) {
                Job job = jobs.get(i);
                byId.put(job.id(), true);
                if (a == Admission.ADMITTED) {
                    scheduled.onScheduled(JobIds.shardOf(job.id(), shards), job.executeAt());
                }
            }
        }
        return byId;
    }

    /**
     * Readmit: jobs only the journal holds whose delete was undone (their tombstones removed). The loader skipped
     * them while the tombstones stood, so each is admitted as a far push is. Best effort: the reconciler restores
     * one once overdue otherwise.
     */
    public void readmit(List<Job> journaled) {
        admit(journaled.stream()
                .filter(j -> j.status() != JobStatus.DEAD && !j.status().isFinal())
                .map(JournalRestorer::restorable)
                .toList());
    }
}
