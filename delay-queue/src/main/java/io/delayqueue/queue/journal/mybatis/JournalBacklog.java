package io.delayqueue.queue.journal.mybatis;

import io.delayqueue.common.DelayQueueException;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The entries handed to the writers and not settled yet: the two queues (sync creates, which may take a parallel
 * writer; everything else, in order), the count of their rows and of the memory they hold, and the bound on both.
 * Over {@code queueCapacity} rows or {@code queueCapacityBytes} bytes (the database slow or down), nobody waits:
 * what a caller is answered on (a push, a delete, a consumer's reserve or finish: {@link #mustKeep}) is refused at
 * once (503, nothing written or changed), and a lagged transition nobody is answered on is not kept (Redis, which
 * holds the job's state, stays the authority: the reconciler writes final states Redis holds back to the journal
 * once the database answers, and a restore may deliver such a job again, as after a crash). So the scanners, the
 * dispatchers' acknowledgements and the consumers' calls never wait for the database, and memory stays bounded
 * however long it is away.
 *
 * <p>Threading: callers {@link #enqueue} from any thread and never wait for the database; the writer threads poll
 * the queues and {@link #settle} what they took. The counts are atomic; checking room and counting an entry in is
 * one step under this object's monitor, held for a few instructions ({@link #admit}).
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
     * Queues an entry for the writers, without waiting. The check of the bounds and the count of its rows are one
     * atomic step ({@link #admit}), so that concurrent callers cannot pass the check together and overrun them. An
     * entry that does not fit is refused (503, nothing of it written) when {@link #mustKeep it must be kept}, and
     * otherwise not kept (counted in {@link #droppedRows()}, and warned about).
     *
     * @throws DelayQueueException.Unavailable the journal is closing, or full for an entry that must be kept
     */
    void enqueue(WriteEntry entry) {
        if (closing) {
            throw new DelayQueueException.Unavailable("the journal is closing", null);
        }
        entry.queuedAtMs = clock.millis();
        if (!admit(entry.rows(), entry.bytes())) {
            if (mustKeep(entry)) {
                throw full("not written");
            }
            dropped(entry);
            return;
        }
        queue(entry);
    }

    /**
     * The one rule for an entry that does not fit: it must be kept (and so is refused rather than dropped) when a
     * caller is answered on it: a push's new jobs, a delete or a {@code clearAll} batch (refused, their Redis half
     * is undone), anything a caller waits for, and a consumer's reserve or finish (which took its {@link Room}
     * before it changed Redis). Only the transitions nobody is answered on (the scanners', the dispatchers'
     * acknowledgements, retries) may be dropped: Redis holds their jobs' state.
     */
    static boolean mustKeep(WriteEntry entry) {
        return entry.answered() || entry.done() != null || !entry.created().isEmpty();
    }

    /**
     * Takes room for {@code rows} rows and {@code bytes} bytes, before a consumer's call changes Redis: the call's
     * transitions are then queued into it ({@link #enqueue(WriteEntry, Room)}) and never dropped, or the room is
     * given back ({@link #giveBack}).
     *
     * @throws DelayQueueException.Unavailable (503, nothing was changed) closing, or no such room
     */
    Room takeRoom(int rows, long bytes) {
        if (closing) {
            throw new DelayQueueException.Unavailable("the journal is closing; nothing was changed", null);
        }
        if (!admit(rows, bytes)) {
            throw full("nothing was changed");
        }
        return new Room(rows, bytes);
    }

    /**
     * Queues an entry into room its caller took before it changed Redis: the entry's rows take the room's place
     * without a second check (the room was the check), so it is never dropped.
     *
     * @throws DelayQueueException.Unavailable the journal closed meanwhile (the room is given back)
     */
    void enqueue(WriteEntry entry, Room room) {
        if (!room.use()) {
            throw new IllegalStateException("the room was used or given back already");
        }
        if (closing) {
            release(room.rows, room.bytes);
            throw new DelayQueueException.Unavailable("the journal is closing", null);
        }
        entry.queuedAtMs = clock.millis();
        queuedRows.addAndGet(entry.rows() - room.rows);
        queuedBytes.addAndGet(entry.bytes() - room.bytes);
        queue(entry);
    }

    /** Gives back room that no entry was queued into; nothing once it was used. */
    void giveBack(Room room) {
        if (room.use()) {
            release(room.rows, room.bytes);
        }
    }

    /** Room in the backlog taken before Redis changes ({@link #takeRoom}): used once, or given back. */
    static final class Room {
        private final int rows;
        private final long bytes;
        private final AtomicBoolean used = new AtomicBoolean();

        private Room(int rows, long bytes) {
            this.rows = rows;
            this.bytes = bytes;
        }

        private boolean use() {
            return used.compareAndSet(false, true);
        }
    }

    /**
     * Counts the rows and bytes in when they fit under both bounds, as one step: callers in parallel cannot overrun
     * them (a writer's {@link #settle} only lowers the counts, so it needs no lock). Any entry fits an empty backlog,
     * however large.
     */
    private synchronized boolean admit(long rows, long bytes) {
        long queued = queuedRows.get();
        long queuedBytesNow = queuedBytes.get();
        boolean fits = (queued == 0 && queuedBytesNow == 0)
                || (queued + rows <= queueCapacity && queuedBytesNow + bytes <= queueCapacityBytes);
        if (fits) {
            queuedRows.addAndGet(rows);
            queuedBytes.addAndGet(bytes);
        }
        return fits;
    }

    private void release(long rows, long bytes) {
        queuedRows.addAndGet(-rows);
        queuedBytes.addAndGet(-bytes);
    }

    private void queue(WriteEntry entry) {
        // Only a create that its caller waits for (sync) may take a parallel writer: its job reaches Redis,
        // and so can have transitions, only after it committed. Lagged creates share the transitions' queue,
        // so that no transition of a job commits before the job's row.
        (entry.done() != null && !entry.created().isEmpty() ? creates : transitions).add(entry);
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
            release(entry.rows(), entry.bytes());
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
