package io.delayqueue.queue.engine.handover;

import java.util.concurrent.Semaphore;

/**
 * The {@link DispatchPipeline}'s global in-flight capacity ({@code delay.dispatch.max-in-flight}): one slot per job
 * between its move and its outcome (sent and not yet settled, or waiting for a slot of its topic). Scanners take
 * slots before they move jobs; a scanner that got none sleeps, and the next release wakes the scanners (the {@code
 * freed} callback) instead of their polling for room.
 *
 * <p>Threading: any thread; never blocks.
 */
final class DispatchCapacity {
    private final Semaphore slots;
    private final Runnable freed;
    /** Set by a taker that got nothing: the next release runs {@link #freed}. */
    private volatile boolean starved;

    DispatchCapacity(int maxInFlight, Runnable freed) {
        this.slots = new Semaphore(maxInFlight);
        this.freed = freed;
    }

    /** Takes up to {@code wanted} slots; returns how many. A caller that got none is told by the next release. */
    int take(int wanted) {
        int n = tryTake(wanted);
        if (n > 0) {
            return n;
        }
        starved = true;
        // a release between the first try and the flag ran no callback: look once more
        return tryTake(wanted);
    }

    private int tryTake(int wanted) {
        while (true) {
            int n = Math.min(wanted, slots.availablePermits());
            if (n <= 0) {
                return 0;
            }
            if (slots.tryAcquire(n)) {
                return n;
            }
        }
    }

    void release(int n) {
        if (n > 0) {
            slots.release(n);
            if (starved) {
                starved = false;
                freed.run();
            }
        }
    }
}
