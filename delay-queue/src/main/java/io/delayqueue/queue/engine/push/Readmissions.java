package io.delayqueue.queue.engine.push;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.engine.restore.JournalRestorer;
import io.delayqueue.queue.journal.PushJournal;
import io.delayqueue.queue.store.StoreReads;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Jobs whose push was answered 202 (committed to the journal, Redis unavailable) are put into Redis as soon as it
 * answers again, rather than when the reconciler finds them overdue by its grace (30 s by default). The ids are
 * kept in a bounded set, oldest first; a pass asks Redis which of them it lacks (failing while Redis is still
 * away, retried after a back-off of {@value #FIRST_RETRY_MS} ms doubling to {@value #MAX_RETRY_MS} ms), reads
 * those from the journal, and stores the live ones as the push would have (near jobs pushed, far ones admitted);
 * the push script's HSETNX and Redis's tombstones make this idempotent, safe beside a client's retry, a restore, a
 * delete or the reconciler. Ids over {@link #MAX_IDS} are left to the reconciler, which stays the backstop (as for
 * ids lost with the process).
 *
 * <p>Threading: {@link #add} from any thread (the pushing callers); passes run on one daemon thread of its own
 * ({@code delay-readmit}), which ends when idle; {@link #readmitOnce} also runs a pass on the caller's thread (tests).
 */
public final class Readmissions implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Readmissions.class);
    /** Ids answered 202 kept for re-admission; more are left to the reconciler. */
    static final int MAX_IDS = 10_000;
    /** Ids one pass asks Redis and the journal about. */
    private static final int PASS_SIZE = 1_000;

    static final long FIRST_RETRY_MS = 100;
    static final long MAX_RETRY_MS = 1_000;

    private final StoreReads store;
    private final PushJournal journal;
    /** Stores journaled jobs as a push does; returns the ids it could not (their shard failed). */
    private final Function<List<Job>, Set<String>> storeLate;

    private final ScheduledThreadPoolExecutor timer;
    /** Guarded by this. */
    private final LinkedHashSet<String> ids = new LinkedHashSet<>();
    /** A pass is scheduled or running; guarded by this. */
    private boolean scheduled;
    /** Guarded by this. */
    private long retryMs = FIRST_RETRY_MS;

    private boolean overflowLogged;

    Readmissions(StoreReads store, PushJournal journal, Function<List<Job>, Set<String>> storeLate) {
        this.store = store;
        this.journal = journal;
        this.storeLate = storeLate;
        this.timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "delay-readmit");
            t.setDaemon(true);
            return t;
        });
        timer.setKeepAliveTime(10, TimeUnit.SECONDS);
        timer.allowCoreThreadTimeOut(true);
    }

    /** Ids just answered 202: put into Redis as soon as it answers. */
    void add(Collection<String> answered202) {
        if (answered202.isEmpty()) {
            return;
        }
        synchronized (this) {
            for (String id : answered202) {
                if (ids.size() >= MAX_IDS) {
                    if (!overflowLogged) {
                        overflowLogged = true;
                        log.warn(
                                "more than {} pushes answered 202 wait for Redis: the others are left to the reconciler",
                                MAX_IDS);
                    }
                    break;
                }
                ids.add(id);
            }
            schedule(0);
        }
    }

    /** Ids waiting for Redis. */
    synchronized int waiting() {
        return ids.size();
    }

    /**
     * One pass over the oldest waiting ids: those Redis holds (in any state, a tombstone included) or the journal
     * holds final or not at all are done; the others are stored now.
     *
     * @return how many ids the pass settled
     * @throws RuntimeException when Redis or the journal failed (the ids stay)
     */
    public int readmitOnce() {
        List<String> batch;
        synchronized (this) {
            batch = new ArrayList<>(Math.min(ids.size(), PASS_SIZE));
            Iterator<String> it = ids.iterator();
            while (it.hasNext() && batch.size() < PASS_SIZE) {
                batch.add(it.next());
            }
        }
        if (batch.isEmpty()) {
            return 0;
        }
        Map<String, JobStatus> inRedis = store.statuses(batch);
        List<String> missing =
                batch.stream().filter(id -> !inRedis.containsKey(id)).toList();
        Set<String> unsettled = new HashSet<>();
        if (!missing.isEmpty()) {
            List<Job> live = journal.findAll(missing).values().stream()
                    .filter(j -> !j.status().isFinal() && j.status() != JobStatus.DEAD)
                    .map(JournalRestorer::restorable)
                    .toList();
            unsettled.addAll(storeLate.apply(live));
            int stored = live.size() - unsettled.size();
            if (stored > 0) {
                log.info("{} jobs answered 202 while Redis was unavailable are in Redis now", stored);
            }
        }
        synchronized (this) {
            for (String id : batch) {
                if (!unsettled.contains(id)) {
                    ids.remove(id);
                }
            }
        }
        return batch.size() - unsettled.size();
    }

    /** Guarded by this. */
    private void schedule(long delayMs) {
        if (scheduled) {
            return;
        }
        try {
            timer.schedule(this::runPass, delayMs, TimeUnit.MILLISECONDS);
            scheduled = true;
        } catch (RejectedExecutionException closed) {
            // closed: the reconciler sees to them
        }
    }

    private void runPass() {
        boolean failed = false;
        int settled = 0;
        try {
            settled = readmitOnce();
        } catch (RuntimeException e) {
            failed = true;
            log.debug("re-admission of jobs answered 202 failed, trying again: {}", e.toString());
        }
        synchronized (this) {
            scheduled = false;
            if (ids.isEmpty()) {
                retryMs = FIRST_RETRY_MS;
                return;
            }
            if (failed || settled == 0) {
                long delay = retryMs;
                retryMs = Math.min(MAX_RETRY_MS, retryMs * 2);
                schedule(delay);
            } else {
                retryMs = FIRST_RETRY_MS;
                schedule(0);
            }
        }
    }

    /** Stops the passes; ids still waiting are left to the reconciler. */
    @Override
    public void close() {
        timer.shutdownNow();
    }
}
