package io.delayqueue.queue.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

/**
 * Runs the work of concurrent callers as one call: a thousand threads that each push one job share a
 * handful of journal commits and script calls instead of paying a round trip and two thread hand-overs
 * each.
 *
 * <p>No threads of its own (flat combining). A caller queues its items; while fewer than {@code leaders}
 * callers are running the work, it becomes one of them and runs it for whatever is queued (up to
 * {@code maxItems} at a time, its own items included, the same caller's items never split), then hands
 * each caller its share of the results. The others park until their share arrives. A caller that stops
 * leading looks at the queue after letting go and wakes the first caller still waiting, which takes over,
 * so nothing is stranded. Several leaders let one round write to the database while the next gathers.
 *
 * <p>Threading: {@link #run} is safe from any thread.
 *
 * @param <T> an item of work
 * @param <R> the result of one item
 */
final class Combiner<T, R> {
    private final Function<List<T>, List<R>> work;
    private final int maxItems;
    private final Semaphore leaders;
    private final ConcurrentLinkedQueue<Request<T, R>> queue = new ConcurrentLinkedQueue<>();

    private static final class Request<T, R> {
        final List<T> items;
        final Thread caller = Thread.currentThread();
        volatile List<R> results;
        volatile RuntimeException failure;

        Request(List<T> items) {
            this.items = items;
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
    Combiner(Function<List<T>, List<R>> work, int maxItems, int leaders) {
        this.work = work;
        this.maxItems = maxItems;
        this.leaders = new Semaphore(leaders);
    }

    /** Runs {@code items} (with those of concurrent callers) and returns their results, in order. */
    List<R> run(List<T> items) {
        Request<T, R> mine = new Request<>(items);
        queue.add(mine);
        boolean interrupted = false;
        while (!mine.done()) {
            if (leaders.tryAcquire()) {
                try {
                    lead(mine);
                } finally {
                    leaders.release();
                }
                Request<T, R> next = queue.peek();
                if (next != null) {
                    LockSupport.unpark(next.caller);
                }
            } else {
                LockSupport.park(this);
                interrupted |= Thread.interrupted();
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (mine.failure != null) {
            throw mine.failure;
        }
        return mine.results;
    }

    /** Runs rounds of what is queued until {@code mine} is done or in another leader's round. */
    private void lead(Request<T, R> mine) {
        List<Request<T, R>> round = new ArrayList<>();
        List<T> batch = new ArrayList<>();
        while (!mine.done()) {
            round.clear();
            batch.clear();
            Request<T, R> head;
            while ((head = queue.peek()) != null && (batch.isEmpty() || batch.size() + head.items.size() <= maxItems)) {
                if (queue.remove(head)) {
                    round.add(head);
                    batch.addAll(head.items);
                }
            }
            if (round.isEmpty()) {
                return; // mine is in another leader's round
            }
            runRound(round, batch);
        }
    }

    private void runRound(List<Request<T, R>> round, List<T> batch) {
        List<R> results;
        try {
            results = work.apply(List.copyOf(batch));
            if (results.size() != batch.size()) {
                throw new IllegalStateException(results.size() + " results for " + batch.size() + " items");
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
