package io.delayqueue.queue.journal.mybatis;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.Job;
import io.delayqueue.queue.journal.Transition;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What callers hand to the writer, and their side of it: waiting for its answer ({@link #await}). {@code done}
 * is null for lagged entries. A sync entry is taken by the writer or abandoned by its caller (timed out), never
 * both ({@link #take}, {@link #abandon}); every entry is settled exactly once ({@link #settle}), which is when
 * its rows leave the writer's backlog.
 *
 * <p>New jobs of the async journal are <em>held</em>: the writer waits ({@link #awaitRelease}) until each caller
 * has said which of its jobs Redis did not take ({@link #release}), and writes none of those, so that a push
 * answered 503 (Redis down: the job would exist only in this process's memory) is never written later. Should a
 * caller not say so within the hold, the writer takes the entry whole and a later {@link #release} says so.
 *
 * <p>Threading: built and awaited by its callers, taken, written and settled by one writer thread; the state
 * changes are atomic, {@link #groupResults} is written before {@code done} completes, and the hold's fields are
 * guarded by the entry's monitor.
 */
final class WriteEntry {
    private static final int QUEUED = 0;
    private static final int TAKEN = 1;
    private static final int ABANDONED = 2;

    private final List<Job> created;
    /** The callers' shares of {@code created}, in order (one for a single caller; none for transitions). */
    private final List<List<Job>> groups;

    private final List<Transition> transitions;
    private final String worker;
    private final CompletableFuture<Set<String>> done;
    private final int rows;
    /** What the entry holds in memory, estimated: the backlog's second bound. */
    private final long bytes;
    /** Held for its callers' word ({@link #release}): the async journal's new jobs. */
    private final boolean held;
    /** Lagged, but a caller is answered on it (an async delete, a consumer's call): never dropped. */
    private final boolean answered;
    /** Groups whose caller said which jobs Redis did not take; guarded by this. */
    private int released;
    /** Ids of new jobs not to write (Redis did not take them); guarded by this until the writer took the entry. */
    private final Set<String> withdrawn = new HashSet<>();
    /** The writer took a held entry, released or not; guarded by this. */
    private boolean writerTook;

    private final AtomicInteger state = new AtomicInteger(QUEUED);
    private final AtomicBoolean settled = new AtomicBoolean();
    /** When its caller handed it to the journal, by the journal's clock. */
    volatile long queuedAtMs = Long.MAX_VALUE;
    /**
     * Per group, when a row of the entry was refused and its groups were committed one by one: the ids
     * that existed ({@code Set<String>}) or the group's failure ({@link DelayQueueException}). Written
     * before {@code done} completes.
     */
    volatile Object[] groupResults;

    WriteEntry(List<Job> created, List<Transition> transitions, String worker, CompletableFuture<Set<String>> done) {
        this(created, created.isEmpty() ? List.of() : List.of(created), transitions, worker, done, false);
    }

    /** @param held whether the writer waits for its callers' {@link #release} (the async journal's new jobs) */
    WriteEntry(
            List<Job> created,
            List<List<Job>> groups,
            List<Transition> transitions,
            String worker,
            CompletableFuture<Set<String>> done,
            boolean held) {
        this(
                created,
                groups,
                transitions,
                worker,
                done,
                created.size() * 2 + transitions.size() * 2,
                bytesOf(created, transitions),
                held,
                false);
    }

    /**
     * Lagged transitions a caller is answered on (a delete in async mode, a consumer's reserve or finish): written
     * within the lag like any lagged entry, but refused rather than dropped when the backlog has no room for them
     * ({@link JournalBacklog#mustKeep}).
     */
    static WriteEntry answered(List<Transition> transitions, String worker) {
        return new WriteEntry(
                List.of(),
                List.of(),
                transitions,
                worker,
                null,
                transitions.size() * 2,
                bytesOf(List.of(), transitions),
                false,
                true);
    }

    private WriteEntry(
            List<Job> created,
            List<List<Job>> groups,
            List<Transition> transitions,
            String worker,
            CompletableFuture<Set<String>> done,
            int rows,
            long bytes,
            boolean held,
            boolean answered) {
        this.created = created;
        this.groups = groups;
        this.transitions = transitions;
        this.worker = worker;
        this.done = done;
        this.rows = rows;
        this.bytes = bytes;
        this.held = held;
        this.answered = answered;
    }

    /** What one transition with a detail of {@code detailLength} characters holds in memory, estimated. */
    static long transitionBytes(int detailLength) {
        return 250 + 2L * detailLength;
    }

    /** Per job and per transition an object and its strings (two bytes a character at most), and their rows. */
    private static long bytesOf(List<Job> created, List<Transition> transitions) {
        long bytes = 0;
        for (Job job : created) {
            bytes += 400
                    + 2L
                            * (length(job.body())
                                    + length(job.topic())
                                    + length(job.subtopic())
                                    + length(job.bizKey())
                                    + length(job.url()));
        }
        for (Transition t : transitions) {
            bytes += transitionBytes(length(t.detail()));
        }
        return bytes;
    }

    private static int length(String s) {
        return s == null ? 0 : s.length();
    }

    /** One group of this entry as an entry of its own, already taken; its rows are counted by this one. */
    WriteEntry part(int group) {
        WriteEntry part = new WriteEntry(
                groups.get(group),
                List.of(groups.get(group)),
                List.of(),
                worker,
                done == null ? null : new CompletableFuture<>(),
                0,
                0,
                false,
                answered);
        part.withdrawn.addAll(withdrawn());
        part.state.set(TAKEN);
        return part;
    }

    List<Job> created() {
        return created;
    }

    List<List<Job>> groups() {
        return groups;
    }

    List<Transition> transitions() {
        return transitions;
    }

    String worker() {
        return worker;
    }

    CompletableFuture<Set<String>> done() {
        return done;
    }

    int rows() {
        return rows;
    }

    long bytes() {
        return bytes;
    }

    /**
     * One caller's word on its group of a held entry: {@code notStored}, the ids of its jobs Redis did not take, are
     * not written. Returns false when the writer took the entry first (the hold passed): those jobs may be written.
     */
    synchronized boolean release(Set<String> notStored) {
        if (!held) {
            return notStored.isEmpty();
        }
        if (writerTook) {
            return notStored.isEmpty();
        }
        withdrawn.addAll(notStored);
        released++;
        if (released >= groups.size()) {
            notifyAll();
        }
        return true;
    }

    /**
     * The writer's side of the hold: waits until every group of a held entry is released, or until {@code
     * deadlineNanos} ({@link System#nanoTime()}); from then on the entry is the writer's. At once for an entry that
     * is not held.
     */
    synchronized void awaitRelease(long deadlineNanos) throws InterruptedException {
        while (held && !writerTook && released < groups.size()) {
            long waitNanos = deadlineNanos - System.nanoTime();
            if (waitNanos <= 0) {
                break;
            }
            TimeUnit.NANOSECONDS.timedWait(this, waitNanos);
        }
        writerTook = true;
    }

    /** Whether a caller is answered on this lagged entry ({@link #answered(List, String)}). */
    boolean answered() {
        return answered;
    }

    /** Whether the writer waits for the entry's {@link #release}. */
    boolean held() {
        return held;
    }

    /** Ids of new jobs not to write, fixed once the writer took the entry ({@link #awaitRelease}). */
    synchronized Set<String> withdrawn() {
        return withdrawn.isEmpty() ? Set.of() : Set.copyOf(withdrawn);
    }

    /** The writer takes it into a commit; false when its caller gave up on it first. */
    boolean take() {
        return state.compareAndSet(QUEUED, TAKEN) || state.get() == TAKEN;
    }

    /**
     * Its callers give up; false when the writer took it first (a commit of it may be under way). Every
     * caller of the entry gets the same answer.
     */
    boolean abandon() {
        return state.compareAndSet(QUEUED, ABANDONED) || state.get() == ABANDONED;
    }

    /** True the first time only. */
    boolean settle() {
        return settled.compareAndSet(false, true);
    }

    boolean isSettled() {
        return settled.get();
    }

    /**
     * Waits for the answer of one group of this entry: the ids of the group that existed. On timeout, 503 when
     * no writer had taken the entry (it is then never written), 504 when a commit of it was under way.
     *
     * @param commitTimeoutMs the journal's commit timeout, for the messages
     */
    Set<String> await(int group, long deadlineNanos, long commitTimeoutMs) {
        try {
            Set<String> existing = done.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
            Object[] results = groupResults;
            if (results != null) {
                if (results[group] instanceof DelayQueueException refused) {
                    throw refused;
                }
                @SuppressWarnings("unchecked")
                Set<String> mine = (Set<String>) results[group];
                return mine;
            }
            if (existing.isEmpty() || groups.size() == 1) {
                return existing;
            }
            Set<String> mine = new HashSet<>();
            for (Job job : groups.get(group)) {
                if (existing.contains(job.id())) {
                    mine.add(job.id());
                }
            }
            return mine;
        } catch (ExecutionException e) {
            // an entry of one group: its failure is its caller's own already
            throw groups.size() <= 1 && e.getCause() instanceof DelayQueueException d
                    ? d
                    : JournalFailures.forOneCaller(e.getCause());
        } catch (TimeoutException e) {
            if (abandon()) {
                // the writer will skip it: nothing of it is written
                throw new DelayQueueException.Unavailable(
                        "not written: the journal did not start its commit within the commit timeout ("
                                + commitTimeoutMs + " ms); the database is too slow or down",
                        e);
            }
            throw new DelayQueueException.OutcomeUnknown(
                    "the journal's commit did not finish within the commit timeout (" + commitTimeoutMs
                            + " ms) and may still land; retry with the same id to settle it",
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            if (abandon()) {
                throw new DelayQueueException.Unavailable("not written: interrupted while waiting for the journal", e);
            }
            throw new DelayQueueException.OutcomeUnknown("interrupted while the journal committed", e);
        }
    }
}
