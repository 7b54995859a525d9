package io.delayqueue.queue.engine.handover;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.Job;
import io.delayqueue.common.JobIds;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.engine.restore.JournalRestorer;
import io.delayqueue.queue.engine.tier.TierProtocol;
import io.delayqueue.queue.journal.JobEvent;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.journal.Transition;
import io.delayqueue.queue.store.JobStore;
import io.delayqueue.queue.store.Outcome;
import java.time.Clock;
import java.util.List;

/**
 * An operator's "run now": a {@code DELAY} job made due at once, its status and attempts unchanged, journaled as
 * {@link JobEvent#DUE_NOW}.
 *
 * <ul>
 *   <li>A job Redis holds: one store script ({@code run_now}) moves its due time and bucket score to now, then the
 *       transition is journaled within the lag, as a dead letter's requeue is ({@link DeadLetters}): the job is in
 *       Redis, which the scanner hands over from; should Redis lose it before the journal has the new due time, a
 *       restore brings it back at its old one (it is handed over then, never lost).
 *   <li>A job only the journal holds (a far job of the journal tier, or one Redis lost): the new due time is
 *       committed in the journal first (answered only then), then the job is admitted into Redis as a far push's is
 *       ({@link TierProtocol#admit}), or restored ({@link JournalRestorer#restoreJob}) without tiers. Should the tier
 *       loader have loaded it meanwhile with its old due time, the store script runs once more; should Redis refuse,
 *       the reconciler restores it, as it is overdue in the journal.
 * </ul>
 *
 * <p>A job of another status is refused (409 naming it): {@code READY} and {@code RESERVED} are being handed over, a
 * {@code DEAD} one is requeued instead ({@link DeadLetters#requeue}), a final one has nothing left to run.
 *
 * <p>A race, as with a requeue: the scanner may hand the job over (and journal {@code READY}) before its {@code
 * DUE_NOW} is journaled; the journal's row then says {@code DELAY} until the job's next transition, and its final
 * state is never overwritten (the journal keeps final states against later commits).
 */
public final class RunNow {
    /** What a run now did. */
    public enum Result {
        /** Redis holds it, due now: the scanner hands it over at once. */
        DUE_NOW,
        /** Redis holds it and it was due already (a retry waiting, or a job due this moment): left as it was. */
        ALREADY_DUE,
        /** Only the journal held it: its due time is committed as now, and it is in Redis now. */
        LOADED,
        /**
         * Only the journal held it: its due time is committed as now; Redis did not take it now (the tier loader's
         * next pass, or the reconciler, puts it there).
         */
        COMMITTED
    }

    private final int shards;
    private final JobStore store;
    private final Journal journal;
    private final TierProtocol tiers;
    private final JournalRestorer restorer;
    private final Clock clock;
    private final DispatchPipeline.ScheduleListener scheduled;

    /** {@code tiers} is null when far jobs are not kept in the journal only. */
    public RunNow(
            int shards,
            JobStore store,
            Journal journal,
            TierProtocol tiers,
            JournalRestorer restorer,
            Clock clock,
            DispatchPipeline.ScheduleListener scheduled) {
        this.shards = shards;
        this.store = store;
        this.journal = journal;
        this.tiers = tiers;
        this.restorer = restorer;
        this.clock = clock;
        this.scheduled = scheduled;
    }

    /**
     * Makes the job due now.
     *
     * @throws DelayQueueException.JobNotFound when neither Redis nor the journal knows it
     * @throws DelayQueueException.StateConflict when it is not {@code DELAY}
     */
    public Result run(String id) {
        int shard = JobIds.shardOf(id, shards);
        long now = clock.millis();
        Outcome inRedis = store.runNow(shard, List.of(id), now).get(0);
        if (inRedis.applied()) {
            Job job = store.find(id).orElse(null);
            boolean moved = job == null || job.executeAt() == now;
            if (moved) {
                journal.recordTransitions(List.of(dueNow(id, now)));
                scheduled.onScheduled(shard, now);
                return Result.DUE_NOW;
            }
            return Result.ALREADY_DUE;
        }
        if (inRedis.result() != Outcome.Result.NOT_FOUND) {
            throw refused(id, inRedis.status());
        }
        Job journaled = journal.find(id).orElseThrow(() -> new DelayQueueException.JobNotFound(id));
        if (journaled.status() != JobStatus.DELAY) {
            throw refused(id, journaled.status());
        }
        journal.recordTransitionsDurably(List.of(dueNow(id, now)));
        Job due = journaled.withState(JobStatus.DELAY, journaled.attempts(), now);
        if (tiers != null) {
            tiers.admit(List.of(due));
        } else {
            restorer.restoreJob(id);
        }
        // the loader may have loaded it between the two reads with its old due time: make that copy due too
        Outcome loaded = store.runNow(shard, List.of(id), clock.millis()).get(0);
        if (loaded.applied()) {
            scheduled.onScheduled(shard, now);
            return Result.LOADED;
        }
        return Result.COMMITTED;
    }

    private static Transition dueNow(String id, long now) {
        return new Transition(
                id, JobEvent.DUE_NOW, JobStatus.DELAY, JobStatus.DELAY, now, null, now, "run now by an operator");
    }

    private static DelayQueueException refused(String id, JobStatus status) {
        String why =
                switch (status) {
                    case READY, RESERVED -> "it is being handed over already";
                    case DEAD -> "a dead letter is requeued instead (POST /dead/{topic}/requeue)";
                    default -> "a final job has nothing left to run";
                };
        return new DelayQueueException.StateConflict(id, status, "only a DELAY job can be run now; " + why);
    }
}
