package io.delayqueue.queue.journal.mybatis;

import io.delayqueue.common.DelayQueueException;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The entries handed to the writers and not settled yet: the two queues (sync creates, which may take a parallel
 * writer; everything else, in order), the count of their rows and of the memory they hold, and the bound on both.
 * Over {@code queueCapacity} rows or {@code queueCapacityBytes} bytes (the database slow or down), nobody waits:
 * a push or a delete is refused at once (503, nothing written), and a lagged transition is not kept (Redis, which
 * holds the job's state, stays the authority: the reconciler writes final states Redis holds back to the journal
 * once the database answers, and a restore may deliver such a job again, as after a crash). So the scanners, the
 * dispatchers' acknowledgements and the consumers' calls never wait for the database, and memory stays bounded
 * however long it is away.
 *
 * <p>Threading: callers {@link #enqueue} from any thread and never block; the writer threads poll the queues and
 * {@link #settle} what they took. The counts are atomic.
 */
final class JournalBacklog {
    private static final Logger log = LoggerFactory.getLogger(JournalBacklog.class);
    /** Least time between two warnings about transitions not kept. */
    private static final long DROP_WARNING_EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final Clock clock;
    private final int queueCapacity;
    private final long queueCapacityBytes;
    private final LinkedBlockingQueue<WriteEntry> creates = new LinkedBlockingQueue<>();
    private final LinkedBlockingQueue<WriteEntry> transitions = new LinkedBlockingQueue<>();
    private final AtomicLong queuedRows = new AtomicLong();
    private final AtomicLong queuedBytes = new AtomicLong();
    private final AtomicLong droppedRows = new AtomicLong();
    private final AtomicLong droppedSinceWarning = new AtomicLong();
    private volatile long lastDropWarningNanos = System.nanoTime() - 2 * DROP_WARNING_EVERY_NANOS;

    private volatile boolean closing;

    JournalBacklog(Clock clock, int queueCapacity, long queueCapacityBytes) {
        this.clock = clock;
        this.queueCapacity = queueCapacity;
        this.queueCapacityBytes = queueCapacityBytes;
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
     * Queues an entry for the writers, without waiting. Over the capacity (rows or bytes), an entry with new jobs or
     * one its caller waits for (a push, a delete) is refused (503, nothing of it written), and a lagged transition
     * is not kept (counted in {@link #droppedRows()}, and warned about).
     *
     * @throws DelayQueueException.Unavailable the journal is closing, or full for an entry that is refused
     */
    void enqueue(WriteEntry entry) {
        if (closing) {
            throw new DelayQueueException.Unavailable("the journal is closing", null);
        }
        entry.queuedAtMs = clock.millis();
        if (!fits(entry)) {
            boolean lagged = entry.done() == null && entry.created().isEmpty();
            if (!lagged) {
                throw full("not written");
            }
            dropped(entry);
            return;
        }
        queuedRows.addAndGet(entry.rows());
        queuedBytes.addAndGet(entry.bytes());
        // Only a create that its caller waits for (sync) may take a parallel writer: its job reaches Redis,
        // and so can have transitions, only after it committed. Lagged creates share the transitions' queue,
        // so that no transition of a job commits before the job's row.
        (entry.done() != null && !entry.created().isEmpty() ? creates : transitions).add(entry);
    }

    /**
     * Refuses at once (503) while the backlog is full, so that a caller about to change Redis and then journal it (a
     * consumer's reserve or finish) is refused before it changes anything.
     */
    void requireRoom() {
        if (closing) {
            throw new DelayQueueException.Unavailable("the journal is closing; nothing was changed", null);
        }
        if (queuedRows.get() >= queueCapacity || queuedBytes.get() >= queueCapacityBytes) {
            throw full("nothing was changed");
        }
    }

    /** Whether the entry fits under both bounds; any entry fits an empty backlog, however large. */
    private boolean fits(WriteEntry entry) {
        long rows = queuedRows.get();
        long bytes = queuedBytes.get();
        return (rows == 0 && bytes == 0)
                || (rows + entry.rows() <= queueCapacity && bytes + entry.bytes() <= queueCapacityBytes);
    }

    private DelayQueueException.Unavailable full(String outcome) {
        return new DelayQueueException.Unavailable(
                outcome + ": the journal is " + queuedRows.get() + " rows (" + queuedBytes.get() / 1024
                        + " KB) behind, over its capacity (delay.journal.queue-capacity " + queueCapacity
                        + " rows, queue-capacity-bytes " + queueCapacityBytes / 1024
                        + " KB); the database is too slow or down",
                null);
    }

    private void dropped(WriteEntry entry) {
        droppedRows.addAndGet(entry.rows());
        long since = droppedSinceWarning.addAndGet(entry.transitions().size());
        long now = System.nanoTime();
        long last = lastDropWarningNanos;
        if (now - last >= DROP_WARNING_EVERY_NANOS) {
            lastDropWarningNanos = now;
            droppedSinceWarning.addAndGet(-since);
            log.warn(
                    "the journal is {} rows behind, over its capacity: {} transitions not journaled (Redis holds their"
                            + " jobs' state; the reconciler writes final states back once the database answers)",
                    queuedRows.get(),
                    since);
        }
    }

    /** Its rows leave the backlog: exactly once per entry, whatever became of it. */
    void settle(WriteEntry entry) {
        if (entry.settle()) {
            queuedRows.addAndGet(-entry.rows());
            queuedBytes.addAndGet(-entry.bytes());
        }
    }

    /** Rows handed to the writers and not settled yet (written, failed, or given up by their callers). */
    long queuedRows() {
        return queuedRows.get();
    }

    /** What the entries not settled yet hold in memory, estimated ({@link WriteEntry#bytes()}). */
    long queuedBytes() {
        return queuedBytes.get();
    }

    /** Rows of lagged transitions not kept because the backlog was full, since start. */
    long droppedRows() {
        return droppedRows.get();
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

    /** From now on nothing is queued. */
    void close() {
        closing = true;
    }

    boolean closing() {
        return closing;
    }
}
