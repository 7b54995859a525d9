package io.delayqueue.queue.journal.mybatis;

import io.delayqueue.common.DelayQueueException;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The entries handed to the writers and not settled yet: the two queues (sync creates, which may take a parallel
 * writer; everything else, in order), the count of their rows, and the back-pressure on it. The backlog is bounded
 * by {@code queueCapacity} rows: over it, pushes are refused (503) and lagged transitions wait for room, so that
 * memory stays bounded during an outage and no transition is dropped.
 *
 * <p>Threading: callers {@link #enqueue} from any thread; the writer threads poll the queues and {@link #settle}
 * what they took. The row count is atomic; callers waiting for room wait on a monitor the settling writer
 * notifies.
 */
final class JournalBacklog {
    private final Clock clock;
    private final int queueCapacity;
    private final LinkedBlockingQueue<WriteEntry> creates = new LinkedBlockingQueue<>();
    private final LinkedBlockingQueue<WriteEntry> transitions = new LinkedBlockingQueue<>();
    private final AtomicLong queuedRows = new AtomicLong();
    /** Lagged callers wait on it for room in the backlog. */
    private final Object room = new Object();

    private volatile int roomWaiters;
    private volatile boolean closing;

    JournalBacklog(Clock clock, int queueCapacity) {
        this.clock = clock;
        this.queueCapacity = queueCapacity;
    }

    /** Sync creates, which {@code createWriters} threads serve in parallel. */
    LinkedBlockingQueue<WriteEntry> creates() {
        return creates;
    }

    /** Transitions and lagged creates, which one thread serves, in order. */
    LinkedBlockingQueue<WriteEntry> transitions() {
        return transitions;
    }

    /**
     * Queues an entry for the writers. Over {@code queueCapacity} rows, what a client waits on (a push) is refused
     * at once (503), while lagged transitions wait for room: back-pressure on the scanners and dispatchers rather
     * than unbounded memory, and no transition is ever dropped.
     */
    void enqueue(WriteEntry entry) {
        if (closing) {
            throw new DelayQueueException.Unavailable("the journal is closing", null);
        }
        entry.queuedAtMs = clock.millis();
        boolean lagged = entry.done() == null && entry.created().isEmpty();
        if (!lagged) {
            if (queuedRows.get() + entry.rows() > queueCapacity) {
                throw new DelayQueueException.Unavailable(
                        "not written: the journal is " + queuedRows.get()
                                + " rows behind; the database is too slow or down",
                        null);
            }
        } else if (queuedRows.get() + entry.rows() > queueCapacity) {
            awaitRoom(entry.rows());
        }
        queuedRows.addAndGet(entry.rows());
        // Only a create that its caller waits for (sync) may take a parallel writer: its job reaches Redis,
        // and so can have transitions, only after it committed. Lagged creates share the transitions' queue,
        // so that no transition of a job commits before the job's row.
        (entry.done() != null && !entry.created().isEmpty() ? creates : transitions).add(entry);
    }

    /** Blocks until {@code rows} more fit under the capacity (or nothing is queued, or the journal closes). */
    private void awaitRoom(int rows) {
        boolean interrupted = false;
        synchronized (room) {
            roomWaiters++;
            try {
                while (!closing && queuedRows.get() > 0 && queuedRows.get() + rows > queueCapacity) {
                    try {
                        room.wait(100);
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
            } finally {
                roomWaiters--;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Its rows leave the backlog: exactly once per entry, whatever became of it. */
    void settle(WriteEntry entry) {
        if (entry.settle()) {
            queuedRows.addAndGet(-entry.rows());
            if (roomWaiters > 0) {
                synchronized (room) {
                    room.notifyAll();
                }
            }
        }
    }

    /** Rows handed to the writers and not settled yet (written, failed, or given up by their callers). */
    long queuedRows() {
        return queuedRows.get();
    }

    /** When the oldest entry at the head of a queue was queued; {@code Long.MAX_VALUE} when both are empty. */
    long oldestQueuedAtMs() {
        long oldest = Long.MAX_VALUE;
        for (LinkedBlockingQueue<WriteEntry> queue : List.of(creates, transitions)) {
            WriteEntry head = queue.peek();
            if (head != null) {
                oldest = Math.min(oldest, head.queuedAtMs);
            }
        }
        return oldest;
    }

    /** Entries in the queues, not yet taken by a writer. */
    int size() {
        return creates.size() + transitions.size();
    }

    /** From now on nothing is queued; callers waiting for room stop waiting. */
    void close() {
        closing = true;
    }

    boolean closing() {
        return closing;
    }
}
