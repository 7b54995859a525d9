package io.delayqueue.queue.journal.mybatis;

import dev.failsafe.Failsafe;
import dev.failsafe.FailsafeException;
import dev.failsafe.RetryPolicy;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writer threads of the journal: each takes everything that has accumulated in its queue of the
 * {@link JournalBacklog} (while the previous commit ran, or, when only lagged entries wait, for up to a quarter of
 * the lag, up to {@code maxRowsPerCommit} rows) and hands it to {@link GroupCommit} as ONE group. It owns what
 * happens between groups: skipping entries whose callers gave up, failing the waiting callers of a group that
 * failed, writing its lagged entries again once the database answers ({@link #waitForDatabase}), flushing on
 * close, and the lag metric.
 *
 * <p>Threading: {@code createWriters} threads serve the creates' queue, one thread the transitions' queue (so that
 * each job's transitions commit in order). Each thread keeps the entries it took to itself until they are settled;
 * {@link #lagMillis} reads from any thread; {@link #close} is called once, by the journal's owner.
 */
final class GroupCommitWriter {
    private static final Logger log = LoggerFactory.getLogger(GroupCommitWriter.class);
    /** Back-off before lagged entries of a failed group are written again, doubling up to {@link #MAX_BACKOFF}. */
    private static final Duration FIRST_BACKOFF = Duration.ofMillis(100);

    private static final Duration MAX_BACKOFF = Duration.ofSeconds(2);
    /** The failures in a row that bring the back-off to its ceiling (100, 200, 400, 800, 1600, 2000 ms). */
    private static final int FAILURES_TO_MAX_BACKOFF = 6;

    private final JournalBacklog backlog;
    private final GroupCommit commit;
    private final Clock clock;
    private final long lagMs;
    private final int maxRowsPerCommit;
    /** Longest a writer waits for the callers of a held entry to release it ({@link WriteEntry#awaitRelease}). */
    private final long holdNanos;
    /**
     * When ({@link System#nanoTime()}) a closing journal stops writing: set once, by {@link #startClosing} or
     * {@link #close}; lagged entries still unwritten then are given up (and logged).
     */
    private volatile long closeDeadlineNanos;

    private volatile boolean closeStarted;
    private final List<Thread> writers = new ArrayList<>();
    /**
     * Per writer, when the oldest entry it took and has not settled was queued ({@link WriteEntry#queuedAtMs});
     * {@code Long.MAX_VALUE} when it holds none. With the heads of the queues, what {@link #lagMillis()} reads.
     */
    private final List<AtomicLong> oldestTaken = new CopyOnWriteArrayList<>();

    /** Signalled when a writer settles entries, while {@link #awaiting} callers of {@link #awaitWritten} wait. */
    private final ReentrantLock settledLock = new ReentrantLock();

    private final Condition settled = settledLock.newCondition();
    private final AtomicInteger awaiting = new AtomicInteger();
    /** The longest {@link #awaitWritten} sleeps between looks without a signal (see there). */
    private static final long MAX_SETTLE_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    /**
     * Lagged entries of a group that failed (the database down, say) stay with their writer and are written again,
     * in order and with whatever has queued since, after a back-off; without end, but for a closing journal, which
     * gives up once the back-off reaches its ceiling. Waiting callers of the failed group are answered at once.
     */
    private final RetryPolicy<Object> waitForDatabase = RetryPolicy.builder()
            .handle(LaggedUnwritten.class)
            .withMaxRetries(-1)
            .withBackoff(FIRST_BACKOFF, MAX_BACKOFF)
            .onRetryScheduled(e -> {
                LaggedUnwritten failed = (LaggedUnwritten) e.getLastException();
                log.warn(
                        "journal commit of {} entries failed, writing lagged ones again in {} ms: {}",
                        failed.entries,
                        e.getDelay().toMillis(),
                        failed.getCause().toString());
            })
            .build();

    /** A failed group left lagged entries to write again. */
    private static final class LaggedUnwritten extends RuntimeException {
        final int entries;

        LaggedUnwritten(int entries, Throwable cause) {
            super(cause.getMessage(), cause, false, false);
            this.entries = entries;
        }
    }

    /** A closing writer stops writing lagged entries again. */
    private static final class WriterGivesUp extends RuntimeException {
        WriterGivesUp() {
            super(null, null, false, false);
        }
    }

    GroupCommitWriter(
            JournalBacklog backlog,
            GroupCommit commit,
            Clock clock,
            long lagMs,
            int maxRowsPerCommit,
            int createWriters,
            long holdMs) {
        this.backlog = backlog;
        this.commit = commit;
        this.clock = clock;
        this.lagMs = lagMs;
        this.maxRowsPerCommit = maxRowsPerCommit;
        this.holdNanos = TimeUnit.MILLISECONDS.toNanos(holdMs);
        for (int i = 0; i < Math.max(1, createWriters); i++) {
            startWriter(backlog.creates(), "delay-journal-create-" + i);
        }
        startWriter(backlog.transitions(), "delay-journal-transitions");
    }

    private void startWriter(LinkedBlockingQueue<WriteEntry> queue, String name) {
        AtomicLong oldest = new AtomicLong(Long.MAX_VALUE);
        oldestTaken.add(oldest);
        Thread writer = new Thread(() -> runWriter(queue, oldest), name);
        writer.setDaemon(true);
        writers.add(writer);
        writer.start();
    }

    /**
     * The age of the oldest entry not settled yet: the oldest of the queues' heads and of the entries each writer
     * holds (committing, or waiting to write again after a failure). Read without locks: an entry on its way from a queue to a writer may be missed for
     * that instant.
     */
    long lagMillis() {
        long oldest = oldestUnsettledMs();
        return oldest == Long.MAX_VALUE ? 0 : Math.max(0, clock.millis() - oldest);
    }

    /** When the oldest entry not settled was queued; {@code Long.MAX_VALUE} when every entry is. */
    private long oldestUnsettledMs() {
        long oldest = backlog.oldestQueuedAtMs();
        for (AtomicLong taken : oldestTaken) {
            oldest = Math.min(oldest, taken.get());
        }
        return oldest;
    }

    /**
     * {@link io.delayqueue.queue.journal.Journal#awaitWritten}: waits on {@link #settled}, which each writer
     * signals after settling a group while anyone waits ({@link #awaiting}), so the writers pay nothing otherwise.
     */
    boolean awaitWritten(long queuedByMs, Duration timeout) throws InterruptedException {
        long giveUp = System.nanoTime() + timeout.toNanos();
        settledLock.lock();
        awaiting.incrementAndGet();
        try {
            while (oldestUnsettledMs() <= queuedByMs) {
                long left = giveUp - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                // bounded: an entry on its way from a queue to its writer is seen by neither for an instant, and
                // an entry queued since by nobody's writer yet (an idle one polls) is woken by no settle
                settled.awaitNanos(Math.min(left, MAX_SETTLE_WAIT_NANOS));
            }
            return true;
        } finally {
            awaiting.decrementAndGet();
            settledLock.unlock();
        }
    }

    /** Tells {@link #awaitWritten} callers that a writer settled entries. */
    private void signalSettled() {
        if (awaiting.get() > 0) {
            settledLock.lock();
            try {
                settled.signalAll();
            } finally {
                settledLock.unlock();
            }
        }
    }

    /**
     * A writer's loop. Every entry taken from the queue stays in {@code pending} until it is settled: written,
     * failed to its waiting caller, or skipped because its caller gave up; a lagged entry whose commit failed
     * stays and is written again, in order, after a back-off ({@link #waitForDatabase}). Nothing taken is dropped,
     * not even on an unexpected error, and each entry's rows leave the backlog exactly once.
     */
    private void runWriter(LinkedBlockingQueue<WriteEntry> queue, AtomicLong oldestTaken) {
        Deque<WriteEntry> pending = new ArrayDeque<>();
        while (true) {
            try {
                if (pending.isEmpty()) {
                    WriteEntry first = queue.poll(100, TimeUnit.MILLISECONDS);
                    if (first == null) {
                        if (backlog.closing() && queue.isEmpty()) {
                            return;
                        }
                        continue;
                    }
                    pending.add(first);
                    oldestTaken.set(first.queuedAtMs);
                }
                Failsafe.with(waitForDatabase)
                        .run(attempt -> writePending(queue, pending, oldestTaken, attempt.getAttemptCount() + 1));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (WriterGivesUp e) {
                log.error("journal closing with {} entries unwritten", pending.size() + queue.size());
                return;
            } catch (FailsafeException e) {
                if (e.getCause() instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                    return;
                }
                log.error("journal writer failed unexpectedly; continuing with {} entries", pending.size(), e);
            } catch (RuntimeException | Error unexpected) {
                // outside a commit (collecting, say): what was taken is still in pending, and is written next
                log.error("journal writer failed unexpectedly; continuing with {} entries", pending.size(), unexpected);
            }
        }
    }

    /**
     * One attempt at writing what {@code pending} holds, with whatever has queued since: commits it and settles
     * what it can.
     *
     * @param failures the failures in a row of this writer should this attempt fail too
     * @throws LaggedUnwritten when the group failed and lagged entries of it are left in {@code pending}
     * @throws WriterGivesUp the same while the journal closes, once the back-off has reached its ceiling
     */
    private void writePending(
            LinkedBlockingQueue<WriteEntry> queue, Deque<WriteEntry> pending, AtomicLong oldestTaken, int failures)
            throws InterruptedException {
        collect(queue, pending);
        for (WriteEntry e : pending) {
            if (e.done() != null && !e.take()) {
                backlog.settle(e); // its caller gave up waiting and was answered 503: never write it
            }
        }
        pending.removeIf(WriteEntry::isSettled);
        if (pending.isEmpty()) {
            oldestTaken.set(Long.MAX_VALUE);
            signalSettled();
            return;
        }
        long holdUntil = System.nanoTime() + holdNanos;
        for (WriteEntry e : pending) {
            e.awaitRelease(holdUntil); // an async push's callers say which of its jobs Redis did not take
        }
        List<WriteEntry> batch = List.copyOf(pending);
        Throwable failed = null;
        try {
            commit.commitAndSettle(batch);
        } catch (RuntimeException | Error failure) {
            failed = failure;
            for (WriteEntry e : batch) {
                if (e.done() != null) {
                    backlog.settle(e);
                    e.done().completeExceptionally(JournalFailures.failureOf(failure));
                }
            }
        }
        pending.removeIf(WriteEntry::isSettled);
        oldestTaken.set(pending.stream().mapToLong(e -> e.queuedAtMs).min().orElse(Long.MAX_VALUE));
        signalSettled();
        if (failed == null) {
            return;
        }
        if (pending.isEmpty()
                || (backlog.closing() && failures >= FAILURES_TO_MAX_BACKOFF)
                || (closeStarted && System.nanoTime() - closeDeadlineNanos >= 0)) {
            log.warn("journal commit of {} entries failed: {}", batch.size(), failed.toString());
            if (pending.isEmpty()) {
                return; // only waiting callers, answered above: nothing to write again
            }
            throw new WriterGivesUp();
        }
        throw new LaggedUnwritten(batch.size(), failed);
    }

    /** Adds to {@code pending} whatever should share its commit. */
    private void collect(LinkedBlockingQueue<WriteEntry> queue, Deque<WriteEntry> pending) throws InterruptedException {
        int rows = pending.stream().mapToInt(WriteEntry::rows).sum();
        boolean durable = pending.stream().anyMatch(e -> e.done() != null);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(1, lagMs / 4));
        while (rows < maxRowsPerCommit) {
            WriteEntry next = queue.poll();
            if (next == null) {
                if (durable || backlog.closing()) {
                    return;
                }
                // only lagged entries so far: wait a little for company, within the lag
                long waitNanos = deadline - System.nanoTime();
                if (waitNanos <= 0) {
                    return;
                }
                next = queue.poll(waitNanos, TimeUnit.NANOSECONDS);
                if (next == null) {
                    return;
                }
            }
            pending.add(next);
            rows += next.rows();
            durable |= next.done() != null;
        }
    }

    /**
     * The service begins to stop: the writers have {@link #CLOSE_BOUND} from now to write what they hold and what is
     * handed to them meanwhile, whatever the database does. Idempotent; the first call counts.
     */
    synchronized void startClosing() {
        if (!closeStarted) {
            closeDeadlineNanos = System.nanoTime() + CLOSE_BOUND.toNanos();
            closeStarted = true;
        }
    }

    /** How long a closing journal goes on writing, from {@link #startClosing} (or {@link #close}). */
    static final Duration CLOSE_BOUND = Duration.ofSeconds(10);

    /**
     * Takes no more entries and lets the writers finish what is queued until the close deadline ({@link
     * #CLOSE_BOUND} after {@link #startClosing}); then interrupts those still writing and returns. A writer held in a
     * database call that ignores the interrupt (a table lock, say) is a daemon thread, left to the pool's close.
     */
    void close() {
        startClosing();
        backlog.close();
        for (Thread writer : writers) {
            try {
                writer.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(closeDeadlineNanos - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (writer.isAlive()) {
                log.error(
                        "journal writer {} did not finish within {} s of the stop; {} entries ({} rows) unwritten",
                        writer.getName(),
                        CLOSE_BOUND.toSeconds(),
                        backlog.size(),
                        backlog.queuedRows());
                writer.interrupt();
            }
        }
    }
}
