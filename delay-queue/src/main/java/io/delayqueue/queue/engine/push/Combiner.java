package io.delayqueue.queue.engine.push;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

/**
 * Runs the work of concurrent callers as one call: a thousand threads that each push one job share a
 * handful of journal commits and script calls instead of paying a round trip and two thread hand-overs
 * each.
 *
 * <p>No threads of its own (flat combining). A caller queues its request; while fewer than {@code leaders}
 * callers are running rounds, it becomes one of them and runs one round: its own request first, then
 * whatever is queued, oldest first, up to {@code maxItems} (a caller's items are never split). It hands each
 * caller its share of the results. The others park until their share arrives, until a leader's place is free
 * (a leader that lets go wakes the oldest caller still queued, which takes over, so nothing is stranded), or
 * until their deadline. Several leaders let one round write to the database while the next gathers.
 *
 * <p>Deadlines: each caller brings one. A caller still queued at its deadline leaves and gets {@link
 * DeadlinePassed}: none of its items was handed to the work. A caller in a round waits for the round, which
 * is given the earliest deadline of the callers in it, so a round that hangs holds only its own callers, and
 * no caller waits past its deadline behind rounds it is not in.
 *
 * <p>Threading: {@link #run} is safe from any thread. A request's state moves once from {@code QUEUED} to
 * either {@code TAKEN} (by a leader, compare-and-set) or {@code EXPIRED} (by its caller), never both.
 *
 * @param <T> an item of work
 * @param <R> the result of one item
 */
final class Combiner<T, R> {
    /** The work of one round. */
    @FunctionalInterface
    interface Work<T, R> {
        /**
         * Runs the items of the callers in a round and returns one result per item, in order.
         *
         * @param groups each caller's items, in the round's order
         * @param deadlineNanos the earliest deadline ({@link System#nanoTime()}) of the callers in the round:
         *     the work should answer by then
         */
        List<R> run(List<List<T>> groups, long deadlineNanos);
    }

    /** The caller's deadline passed before any round took its items: nothing of them was run. */
    static final class DeadlinePassed extends RuntimeException {
        DeadlinePassed() {
            super("waited for a round until the deadline", null, false, false);
        }
    }

    private static final int QUEUED = 0;
    private static final int TAKEN = 1;
    private static final int EXPIRED = 2;
    /** A deadline that never comes (a sum with {@code nanoTime()} that does not overflow for 146 years). */
    private static final long NO_DEADLINE = Long.MAX_VALUE / 2;

    private final Work<T, R> work;
    private final int maxItems;
    private final Semaphore leaders;
    private final ConcurrentLinkedQueue<Request<T, R>> queue = new ConcurrentLinkedQueue<>();

    private static final class Request<T, R> {
        final List<T> items;
        final long deadlineNanos;
        final Thread caller = Thread.currentThread();
        final AtomicInteger state = new AtomicInteger(QUEUED);
        volatile List<R> results;
        volatile RuntimeException failure;

        Request(List<T> items, long deadlineNanos) {
            this.items = items;
            this.deadlineNanos = deadlineNanos;
        }

        boolean done() {
            return results != null || failure != null;
        }
    }

    /**
     * @param work runs a list of items and returns one result per item, in order
     * @param maxItems the most items per call of {@code work} (more when one caller brings more)
     * @param leaders how many calls of {@code work} may run at once
     */
    Combiner(Work<T, R> work, int maxItems, int leaders) {
        this.work = work;
        this.maxItems = maxItems;
        this.leaders = new Semaphore(leaders);
    }

    /** A combiner whose work takes no deadline. */
    Combiner(Function<List<T>, List<R>> work, int maxItems, int leaders) {
        this(
                (groups, deadline) ->
                        work.apply(groups.stream().flatMap(List::stream).toList()),
                maxItems,
                leaders);
    }

    /** Runs {@code items} (with those of concurrent callers) and returns their results, in order. */
    List<R> run(List<T> items) {
        return run(items, System.nanoTime() + NO_DEADLINE);
    }

    /**
     * Runs {@code items} (with those of concurrent callers) and returns their results, in order.
     *
     * @param deadlineNanos by when ({@link System#nanoTime()}) a round must have taken the items
     * @throws DeadlinePassed when none had by then; nothing of {@code items} was run
     */
    List<R> run(List<T> items, long deadlineNanos) {
        Request<T, R> mine = new Request<>(items, deadlineNanos);
        queue.add(mine);
        boolean interrupted = false;
        while (!mine.done()) {
            int state = mine.state.get();
            if (state == QUEUED && leaders.tryAcquire()) {
                try {
                    lead(mine);
                } finally {
                    leaders.release();
                }
                wakeOldestQueued();
                continue;
            }
            if (state == TAKEN) {
                LockSupport.park(this); // its round answers, and unparks
            } else {
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    if (mine.state.compareAndSet(QUEUED, EXPIRED)) {
                        queue.remove(mine);
                        wakeOldestQueued(); // it may have been woken to lead: pass that on
                        restoreInterrupt(interrupted);
                        throw new DeadlinePassed();
                    }
                    continue; // taken meanwhile
                }
                LockSupport.parkNanos(this, left);
            }
            interrupted |= Thread.interrupted();
        }
        restoreInterrupt(interrupted);
        if (mine.failure != null) {
            throw mine.failure;
        }
        return mine.results;
    }

    private static void restoreInterrupt(boolean interrupted) {
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Runs one round holding {@code mine}, unless another leader took it meanwhile. */
    private void lead(Request<T, R> mine) {
        if (!mine.state.compareAndSet(QUEUED, TAKEN)) {
            return; // taken by another leader, or expired
        }
        queue.remove(mine);
        List<Request<T, R>> round = new ArrayList<>();
        int items = mine.items.size();
        round.add(mine);
        long deadline = mine.deadlineNanos;
        Request<T, R> head;
        while ((head = queue.peek()) != null) {
            if (head.state.get() != QUEUED) {
                queue.remove(head); // taken by another leader, or expired
                continue;
            }
            if (items + head.items.size() > maxItems) {
                break;
            }
            if (queue.remove(head) && head.state.compareAndSet(QUEUED, TAKEN)) {
                round.add(head);
                items += head.items.size();
                if (head.deadlineNanos - deadline < 0) {
                    deadline = head.deadlineNanos;
                }
            }
        }
        runRound(round, items, deadline);
    }

    /** Callers waiting for a round to take their items (for tests). */
    int queued() {
        int n = 0;
        for (Request<T, R> r : queue) {
            n += r.state.get() == QUEUED ? 1 : 0;
        }
        return n;
    }

    private void wakeOldestQueued() {
        for (Request<T, R> r : queue) {
            if (r.state.get() == QUEUED) {
                LockSupport.unpark(r.caller);
                return;
            }
        }
    }

    private void runRound(List<Request<T, R>> round, int items, long deadlineNanos) {
        List<R> results;
        try {
            List<List<T>> groups = new ArrayList<>(round.size());
            for (Request<T, R> r : round) {
                groups.add(r.items);
            }
            results = work.run(groups, deadlineNanos);
            if (results.size() != items) {
                throw new IllegalStateException(results.size() + " results for " + items + " items");
            }
        } catch (RuntimeException | Error e) {
            RuntimeException failure = e instanceof RuntimeException re ? re : new IllegalStateException(e);
            for (Request<T, R> r : round) {
                r.failure = failure;
                LockSupport.unpark(r.caller);
            }
            return;
        }
        int from = 0;
        for (Request<T, R> r : round) {
            r.results = List.copyOf(results.subList(from, from + r.items.size()));
            from += r.items.size();
            LockSupport.unpark(r.caller);
        }
    }
}
