package io.delayqueue.queue.engine.handover;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * How late jobs were handed over in the recent past: the time between a job's due time and the move that hands
 * it over (ready list or dispatch), in milliseconds, over a sliding window of {@value #SLOTS} slots (one minute
 * by default), so that {@code /stats} shows how the service does now, not an average since it started.
 *
 * <p>Jobs that were due before this instance started, or before a restore put them back into Redis, are not late
 * because of the queue: they waited out a restart or the loss of Redis. Their hand-over is counted apart ({@link
 * #restored}), never in the lateness figures: a {@code kill -9} and a restart would otherwise show minutes of
 * lateness for the jobs due while the service was down.
 *
 * <p>Threading: {@link #record} from any thread. A slot is cleared by the first record of its next turn; a
 * record racing that clear may be lost or land in the new turn, which figures for operators can bear.
 */
public final class LatenessRecorder {
    /** The window's default length. */
    public static final Duration DEFAULT_WINDOW = Duration.ofMinutes(1);

    private static final int SLOTS = 6;
    private static final long HIGHEST_MS = 24L * 3600 * 1000;

    private final long slotMs;
    private final Slot[] slots = new Slot[SLOTS];
    /** Jobs due before this time that are handed over are restored ones ({@link #restoredBefore}). */
    private final AtomicLong restoredBefore = new AtomicLong(Long.MIN_VALUE);

    private final LongAdder restored = new LongAdder();

    private static final class Slot {
        /** Which turn of the ring the histogram holds ({@code time / slotMs}); -1: none yet. */
        volatile long turn = -1;

        final ConcurrentHistogram histogram = new ConcurrentHistogram(HIGHEST_MS, 3);
    }

    public LatenessRecorder(Duration window) {
        this.slotMs = Math.max(1, window.toMillis() / SLOTS);
        for (int i = 0; i < SLOTS; i++) {
            slots[i] = new Slot();
        }
    }

    /**
     * From now on, a job due before {@code atMs} that is handed over counts as restored, not as late: the engine
     * started at {@code atMs}, or a restore put a job back into Redis then.
     */
    public void restoredBefore(long atMs) {
        restoredBefore.accumulateAndGet(atMs, Math::max);
    }

    /**
     * One job handed over at {@code atMs} (the caller's clock) that was due at {@code dueAtMs}: counted in the
     * lateness figures, or as restored when it was due before the engine started or a restore put it back.
     *
     * @return whether it counted as restored
     */
    public boolean handedOver(long atMs, long dueAtMs) {
        if (dueAtMs < restoredBefore.get()) {
            restored.increment();
            return true;
        }
        record(atMs, atMs - dueAtMs);
        return false;
    }

    /** Restored jobs handed over since the start (see {@link #handedOver}). */
    public long restored() {
        return restored.sum();
    }

    /** One job handed over at {@code atMs} (the caller's clock), {@code latenessMs} after its due time. */
    public void record(long atMs, long latenessMs) {
        long turn = atMs / slotMs;
        Slot slot = slots[(int) Math.floorMod(turn, (long) SLOTS)];
        if (slot.turn != turn) {
            synchronized (slot) {
                if (slot.turn < turn) {
                    slot.histogram.reset();
                    slot.turn = turn;
                } else if (slot.turn > turn) {
                    return; // a straggler older than the window
                }
            }
        }
        slot.histogram.recordValue(Math.min(Math.max(latenessMs, 0), HIGHEST_MS));
    }

    /** The figures of the window that ends at {@code nowMs}. */
    public Snapshot snapshot(long nowMs) {
        long turn = nowMs / slotMs;
        Histogram window = new Histogram(HIGHEST_MS, 3);
        for (Slot slot : slots) {
            long age = turn - slot.turn;
            if (slot.turn >= 0 && age >= 0 && age < SLOTS) {
                window.add(slot.histogram);
            }
        }
        return new Snapshot(
                slotMs * SLOTS,
                window.getTotalCount(),
                window.getValueAtPercentile(50),
                window.getValueAtPercentile(99),
                window.getMaxValue());
    }

    /**
     * Lateness figures in milliseconds.
     *
     * @param windowMs the length of the window they cover, ending now
     * @param count jobs handed over in it
     */
    public record Snapshot(long windowMs, long count, long p50, long p99, long max) {}
}
