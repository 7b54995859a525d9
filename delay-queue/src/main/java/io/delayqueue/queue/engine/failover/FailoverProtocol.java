package io.delayqueue.queue.engine.failover;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.Job;
import io.delayqueue.common.JobIds;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.coordination.Coordinator;
import io.delayqueue.queue.engine.EngineConfig;
import io.delayqueue.queue.engine.handover.TopicRoutes;
import io.delayqueue.queue.engine.restore.JournalRestorer;
import io.delayqueue.queue.engine.tier.TierLoader;
import io.delayqueue.queue.journal.JobChange;
import io.delayqueue.queue.journal.JobCursor;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.store.FailoverStore.JournaledState;
import io.delayqueue.queue.store.FailoverStore.MasterState;
import io.delayqueue.queue.store.FailoverStore.Replayed;
import io.delayqueue.queue.store.JobStore;
import io.delayqueue.queue.store.NewMasterException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * The fail-over protocol: a shard's jobs are moved and reserved only on a Redis master that agrees with the
 * journal's recent past. Redis replicates asynchronously, so a replica promoted to master may lack the last writes of
 * the master it replaces: jobs pushed (answered 200: the journal and the old master held them), deletes, finishes,
 * deaths and attempts. The journal holds them all (a push and a delete are committed before they are answered, the
 * other transitions within the journal's lag), so before anything of such a master is handed over, the shard's owner
 * replays the journal's window of recent transitions onto it.
 *
 * <p>Each shard has a {@code replayed-onto} key beside its jobs: the replication id of the master the journal was last
 * replayed onto. The move and reserve scripts compare it with their master's own replication id ({@code INFO
 * replication}, read inside the script, so the check and the move are one atomic step) and refuse, moving nothing,
 * when they differ. A replica promoted to master takes a new replication id, a restarted Redis draws one, a slot
 * moved to another master is on a node with another, and a Redis without the key (new, or lost its data) has none:
 * each is gated. A Redis that refuses {@code INFO} in scripts (a proxy) cannot be told apart, and is not gated.
 *
 * <table>
 * <caption>States of a shard, and what each answer means during them</caption>
 * <tr><th>event</th><th>Redis</th><th>step</th><th>answers meanwhile</th></tr>
 * <tr><td>a move or reserve on a master whose id differs from {@code replayed-onto}</td><td>gated</td>
 * <td>refused, nothing moved ({@link NewMasterException}); the owner's scanner calls {@link #agree}</td>
 * <td>pushes 200 (journal first, then this master), deletes as ever; pulls get no job of the shard</td></tr>
 * <tr><td>replay begins</td><td>gated</td><td>the journal's backlog on this instance is written first (up to
 * its commit timeout), then every job whose last transition was journaled within the window is read, status by
 * status, and compared with Redis in one script per shard and page</td><td>as above</td></tr>
 * <tr><td>the journal holds it live, Redis lacks it</td><td>gated</td><td>put back from the journal: {@code DELAY} and
 * {@code READY} as a restore does (at its due time; a far one is left to the tier loader), {@code RESERVED} reserved
 * until its reservation's deadline, so its consumer's finish still lands</td><td>as above</td></tr>
 * <tr><td>the journal holds it {@code FINISHED}, {@code DELETED} or {@code DEAD}, Redis live</td><td>gated</td>
 * <td>made so in Redis</td><td>as above</td></tr>
 * <tr><td>the journal counted more attempts</td><td>gated</td><td>attempts raised to the journal's; a job the
 * journal saw reserved in the attempt Redis still has is reserved until its deadline</td><td>as above</td></tr>
 * <tr><td>Redis final or ahead of the journal, or a delete of it pending</td><td>gated</td><td>left alone (the
 * reconciler writes final states back; the delete protocol settles the delete)</td><td>as above</td></tr>
 * <tr><td>replay done</td><td>agreed</td><td>{@code replayed-onto} set to the master's id, only if it is still this
 * master's ({@code master_agreed.lua}); scanning resumes at once</td><td>as ever</td></tr>
 * <tr><td>the master changed again during the replay</td><td>gated</td><td>the mark is refused; replayed again onto
 * the newer master</td><td>as while gated</td></tr>
 * <tr><td>Redis or the journal fails during the replay</td><td>gated</td><td>nothing marked; the scanner tries again
 * after its back-off (the replay is idempotent)</td><td>as while gated</td></tr>
 * </table>
 *
 * <p>What it guarantees: a delete answered 200 was committed in the journal before its answer, so within the window
 * after it any new master has it removed before any move; a push answered 200 whose write the new master lacks is
 * put back before any move, and handed over once the replay ends; a job the journal saw finished is not handed over
 * again. What it cannot: a transition not yet journaled when the old master died (a hand-over confirmed within the
 * journal's lag of the kill) is unknown to both, and that job is handed over again (at least once).
 *
 * <p>Threading: {@link #agree} is called on the scanners' threads, one replay at a time (the first scanner to find its
 * master new replays every owned shard whose master is new; the others wait and find theirs agreed).
 */
public final class FailoverProtocol {
    private static final Logger log = LoggerFactory.getLogger(FailoverProtocol.class);
    private static final List<JobStatus> REPLAYED = List.of(
            JobStatus.DELAY,
            JobStatus.READY,
            JobStatus.RESERVED,
            JobStatus.FINISHED,
            JobStatus.DELETED,
            JobStatus.DEAD);
    /** Rows read per page of the journal's window. */
    static final int PAGE_ROWS = 5_000;
    /** Jobs one replay script takes (one shard, one atomic step of Redis). */
    static final int JOBS_PER_SCRIPT = 1_000;
    /** Replays in a row before {@link #agree} gives up for now: the master keeps changing. */
    private static final int MAX_ROUNDS = 3;

    private final Journal journal;
    private final JobStore store;
    private final Coordinator coordinator;
    private final JournalRestorer restorer;
    private final TopicRoutes routes;
    /** {@code null} when every job is kept in Redis. */
    private final TierLoader tierLoader;

    private final Clock clock;
    private final int shards;
    private final long windowMs;
    private final long dispatchTimeoutMs;
    private final Object replaying = new Object();
    private final AtomicLong replays = new AtomicLong();

    public FailoverProtocol(
            EngineConfig config,
            Journal journal,
            JobStore store,
            Coordinator coordinator,
            JournalRestorer restorer,
            TopicRoutes routes,
            TierLoader tierLoader,
            Clock clock) {
        this.journal = journal;
        this.store = store;
        this.coordinator = coordinator;
        this.restorer = restorer;
        this.routes = routes;
        this.tierLoader = tierLoader;
        this.clock = clock;
        this.shards = config.shards();
        this.windowMs = config.scanner().replayWindow().toMillis();
        this.dispatchTimeoutMs = config.dispatch().timeout().toMillis();
    }

    /** Replays done since start (one covers every owned shard whose master was new). */
    public long replays() {
        return replays.get();
    }

    /**
     * A move of {@code shard} was refused: its master is new to the journal. Replays the journal's window onto every
     * owned shard whose master is new, and marks each; returns once {@code shard} agrees (or is no longer owned here).
     *
     * @throws RuntimeException when Redis or the journal failed, or the master kept changing: nothing of a shard not
     *     marked is moved, and the caller tries again later
     */
    public void agree(int shard) {
        synchronized (replaying) {
            for (int round = 0; round < MAX_ROUNDS; round++) {
                Map<Integer, String> newMasters = newMasters();
                if (!newMasters.containsKey(shard)) {
                    return;
                }
                replay(newMasters);
            }
            throw new DelayQueueException.Unavailable(
                    "the Redis master of shard " + shard + " changed " + MAX_ROUNDS + " times during its replay", null);
        }
    }

    /** The owned shards whose master is not the one the journal was replayed onto, with that master's id. */
    private Map<Integer, String> newMasters() {
        Map<Integer, String> found = new TreeMap<>();
        for (int s = 0; s < shards; s++) {
            if (coordinator.owns(s)) {
                MasterState state = store.masterState(s);
                if (!state.agreed()) {
                    found.put(s, state.masterId());
                }
            }
        }
        return found;
    }

    private void replay(Map<Integer, String> newMasters) {
        long startNanos = System.nanoTime();
        long start = clock.millis();
        awaitJournalBacklog(start);
        long since = start - windowMs;
        long read = 0;
        long changed = 0;
        List<JobChange> absent = new ArrayList<>();
        for (JobStatus status : REPLAYED) {
            JobCursor after = JobCursor.START;
            while (true) {
                List<JobChange> page = journal.changedSince(status, since, after, PAGE_ROWS);
                read += page.size();
                Map<Integer, List<JobChange>> byShard = new HashMap<>();
                for (JobChange change : page) {
                    int s = JobIds.shardOf(change.id(), shards);
                    if (newMasters.containsKey(s)) {
                        byShard.computeIfAbsent(s, k -> new ArrayList<>()).add(change);
                    }
                }
                for (var entry : byShard.entrySet()) {
                    changed += replayShard(entry.getKey(), entry.getValue(), absent);
                }
                if (page.size() < PAGE_ROWS) {
                    break;
                }
                after = page.get(page.size() - 1).cursor();
            }
        }
        long replayedNanos = System.nanoTime();
        long putBack = putBack(absent);
        for (var entry : newMasters.entrySet()) {
            store.markReplayed(entry.getKey(), entry.getValue());
        }
        replays.incrementAndGet();
        // a Redis that lost nothing the journal knows (a first start, a fail-over to a replica in sync) is no news
        Level level = changed + putBack > 0 ? Level.WARN : Level.INFO;
        log.atLevel(level)
                .log(
                        "new Redis master of shards {}: replayed the journal's last {} ms onto it before scanning ({} jobs"
                                + " read and {} changed to agree in {} ms, {} put back in {} ms)",
                        newMasters.keySet(),
                        windowMs,
                        read,
                        changed,
                        TimeUnit.NANOSECONDS.toMillis(replayedNanos - startNanos),
                        putBack,
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - replayedNanos));
    }

    /**
     * Waits until the journal's backlog on this instance holds nothing older than {@code start} (the transitions the
     * old master made through this instance), up to the journal's commit timeout: a journal that cannot write is
     * not waited for longer, and what it lacks is healed by the reconciler.
     */
    private void awaitJournalBacklog(long start) {
        try {
            journal.awaitWritten(start, journal.commitTimeout());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One shard's part of a page: replay scripts of at most {@link #JOBS_PER_SCRIPT} jobs; returns jobs changed. */
    private long replayShard(int shard, List<JobChange> changes, List<JobChange> absent) {
        long changed = 0;
        for (int from = 0; from < changes.size(); from += JOBS_PER_SCRIPT) {
            List<JobChange> part = changes.subList(from, Math.min(changes.size(), from + JOBS_PER_SCRIPT));
            List<JournaledState> states = new ArrayList<>(part.size());
            for (JobChange c : part) {
                states.add(new JournaledState(
                        c.id(),
                        c.status(),
                        c.attempts(),
                        deadlineOf(c.topic(), c.dueAt(), c.ttr(), c.updatedAt()),
                        c.topic()));
            }
            List<Replayed> answers = store.replay(shard, states, clock.millis());
            for (int i = 0; i < answers.size(); i++) {
                switch (answers.get(i)) {
                    case ABSENT -> absent.add(part.get(i));
                    case CHANGED -> changed++;
                    case AGREED -> {}
                }
            }
        }
        return changed;
    }

    /**
     * The deadline of a journaled reservation: from its transition (or its due time, for a push-topic job taken
     * early), its ttr for a pull topic, the dispatch timeout for a push topic.
     */
    private long deadlineOf(String topic, long dueAt, long ttr, long reservedAt) {
        return Math.max(reservedAt, dueAt) + (routes.isPull(topic) ? ttr : dispatchTimeoutMs);
    }

    /**
     * Puts back the jobs Redis lacked, as the journal holds them now (read again: one may have moved on since the
     * page): a reserved one until its deadline, the others as a restore does; far ones are the tier loader's.
     */
    private long putBack(List<JobChange> absent) {
        long putBack = 0;
        for (int from = 0; from < absent.size(); from += JOBS_PER_SCRIPT) {
            List<JobChange> part = absent.subList(from, Math.min(absent.size(), from + JOBS_PER_SCRIPT));
            Map<String, Job> journaled =
                    journal.findAll(part.stream().map(JobChange::id).toList());
            List<Job> reserved = new ArrayList<>();
            Map<String, Long> deadlines = new HashMap<>();
            List<Job> restored = new ArrayList<>();
            long farAfter = tierLoader == null ? Long.MAX_VALUE : tierLoader.farAfter();
            for (JobChange c : part) {
                Job job = journaled.get(c.id());
                if (job == null || job.status().isFinal()) {
                    continue;
                }
                if (job.status() == JobStatus.RESERVED) {
                    reserved.add(job);
                    deadlines.put(job.id(), deadlineOf(job.topic(), job.executeAt(), job.ttr(), c.updatedAt()));
                } else if (job.status() != JobStatus.DELAY || job.executeAt() <= farAfter) {
                    restored.add(job);
                }
            }
            if (!reserved.isEmpty()) {
                List<Boolean> added = store.putBack(reserved, job -> deadlines.get(job.id()));
                putBack += added.stream().filter(Boolean.TRUE::equals).count();
            }
            putBack += restorer.restore(restored, "fail-over replay: missing from the new Redis master");
        }
        return putBack;
    }
}
