package io.delayqueue.queue.journal.mybatis;

import dev.failsafe.Failsafe;
import dev.failsafe.RetryPolicy;
import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.journal.JobCursor;
import io.delayqueue.queue.journal.JobEvent;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.journal.JournalEntry;
import io.delayqueue.queue.journal.JournalListener;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.journal.JournalSettings;
import io.delayqueue.queue.journal.PurgedRows;
import io.delayqueue.queue.journal.Transition;
import java.net.InetAddress;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLIntegrityConstraintViolationException;
import java.sql.SQLTransactionRollbackException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.ibatis.session.ExecutorType;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;
import org.apache.ibatis.session.TransactionIsolationLevel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Journal} on MySQL/MariaDB (or H2 in MySQL mode) through MyBatis, with a group-commit writer.
 *
 * <p>Writer threads own the writes: new jobs go to a queue served by {@code createWriters} threads (while one
 * waits for its commit to reach the disk, another gathers the next group), transitions to a queue served by
 * one thread, so that each job's transitions commit in order. A job's transitions cannot overtake its
 * creation: in sync mode they only happen once the job is in Redis, which is after its row committed, and
 * in async mode creations queue with the transitions. Callers put entries
 * on a queue; a writer takes everything that
 * has accumulated (while the previous commit ran, or, when only lagged entries wait, for up to a quarter of
 * the lag) and writes it in ONE transaction of multi-row statements. So a thousand concurrent pushes cost a
 * handful of commits, not a thousand: durability without a per-row commit ceiling. Sync callers wait for
 * their entry's commit; lagged entries that fail are kept and written again, in order, once the database
 * answers, and flushed on {@link #close()}.
 *
 * <p>Each caller's rows are an entry of their own, and the database refusing a row (data too long, say) fails
 * only the entry it belongs to: the group is split until the entry at fault is found, and the rest is written.
 * The backlog is bounded by {@code queueCapacity} rows: over it, pushes are refused (503) and lagged transitions
 * wait for room (back-pressure), so that memory stays bounded during an outage and no transition is dropped. A
 * sync caller that times out gets 503 when no writer had taken its entry (it is then never written) and 504
 * when a commit of it was under way (it may still land).
 *
 * <p>Threading: {@code record*} methods are safe from any thread; reads use their own sessions.
 */
public final class MyBatisJournal implements Journal {
    private static final Logger log = LoggerFactory.getLogger(MyBatisJournal.class);
    /** Ids per IN list. */
    private static final int ROWS_PER_STATEMENT = 1000;

    private final SqlSessionFactory sessions;
    private final int shards;
    private final JournalMode mode;
    private final Clock clock;
    private final long lagMs;
    private final int maxRowsPerCommit;
    private final long commitTimeoutMs;
    private final int queueCapacity;
    private final String host;
    private final LinkedBlockingQueue<Entry> creates = new LinkedBlockingQueue<>();
    private final LinkedBlockingQueue<Entry> transitions = new LinkedBlockingQueue<>();
    private final AtomicLong queuedRows = new AtomicLong();
    private final List<Thread> writers = new ArrayList<>();
    /**
     * Per writer, when the oldest entry it took and has not settled was queued ({@link Entry#queuedAtMs});
     * {@code Long.MAX_VALUE} when it holds none. With the heads of the queues, what {@link #lagMillis()} reads.
     */
    private final List<AtomicLong> oldestTaken = new java.util.concurrent.CopyOnWriteArrayList<>();

    private volatile JournalListener listener = JournalListener.NONE;
    private volatile boolean closing;
    private final AtomicLong commits = new AtomicLong();
    /** Time spent writing and committing the groups counted in {@code commits}. */
    private final java.util.concurrent.atomic.LongAdder commitNanos = new java.util.concurrent.atomic.LongAdder();

    private final AtomicLong rowsWritten = new AtomicLong();
    private final AtomicLong transientFailures = new AtomicLong();
    /** Whether the database is H2, whose commits must be forced to disk by hand; known at the first write. */
    private volatile Boolean h2;

    private final AtomicLong refusedEntries = new AtomicLong();
    /** Lagged callers wait on it for room in the backlog. */
    private final Object room = new Object();

    private volatile int roomWaiters;
    /**
     * A group that lost a deadlock (or a lock wait, or a race on a client-supplied id with another writer) is
     * rolled back whole and written again at once: InnoDB expects a deadlock victim to re-issue its
     * transaction, and it would be wrong to answer the group's pushes 503 for it. Only when the retries run
     * out does the failure reach the callers.
     */
    private final RetryPolicy<Map<Entry, Set<String>>> transientRetry = RetryPolicy.<Map<Entry, Set<String>>>builder()
            .handleIf(MyBatisJournal::isTransient)
            .withMaxRetries(5)
            .withBackoff(Duration.ofMillis(2), Duration.ofMillis(200))
            .withJitter(0.5)
            .onRetry(e -> {
                transientFailures.incrementAndGet();
                log.debug(
                        "journal commit rolled back ({}); writing the group again", rootMessage(e.getLastException()));
            })
            .build();

    /**
     * What callers hand to the writer. {@code done} is null for lagged entries. A sync entry is taken by the
     * writer or abandoned by its caller (timed out), never both ({@link #take}, {@link #abandon}); every entry is
     * settled exactly once ({@link #settle}), which is when its rows leave {@code queuedRows}.
     */
    private static final class Entry {
        private static final int QUEUED = 0;
        private static final int TAKEN = 1;
        private static final int ABANDONED = 2;

        final List<Job> created;
        /** The callers' shares of {@code created}, in order (one for a single caller; none for transitions). */
        final List<List<Job>> groups;

        final List<Transition> transitions;
        final String worker;
        final CompletableFuture<Set<String>> done;
        final int rows;
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

        Entry(List<Job> created, List<Transition> transitions, String worker, CompletableFuture<Set<String>> done) {
            this(created, created.isEmpty() ? List.of() : List.of(created), transitions, worker, done);
        }

        Entry(
                List<Job> created,
                List<List<Job>> groups,
                List<Transition> transitions,
                String worker,
                CompletableFuture<Set<String>> done) {
            this(created, groups, transitions, worker, done, created.size() * 2 + transitions.size() * 2);
        }

        private Entry(
                List<Job> created,
                List<List<Job>> groups,
                List<Transition> transitions,
                String worker,
                CompletableFuture<Set<String>> done,
                int rows) {
            this.created = created;
            this.groups = groups;
            this.transitions = transitions;
            this.worker = worker;
            this.done = done;
            this.rows = rows;
        }

        /** One group of this entry as an entry of its own, already taken; its rows are counted by this one. */
        Entry part(int group) {
            Entry part = new Entry(
                    groups.get(group),
                    List.of(groups.get(group)),
                    List.of(),
                    worker,
                    done == null ? null : new CompletableFuture<>(),
                    0);
            part.state.set(TAKEN);
            return part;
        }

        List<Job> created() {
            return created;
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
    }

    /** @param shards the queue's shard count ({@code delay.shards}): each row records its job's shard */
    public MyBatisJournal(SqlSessionFactory sessions, JournalSettings settings, int shards, Clock clock) {
        if (settings.mode() == JournalMode.OFF) {
            throw new IllegalArgumentException("journal mode off needs no MyBatisJournal; use Journal.NONE");
        }
        if (shards < 1) {
            throw new IllegalArgumentException("shards must be at least 1");
        }
        this.sessions = sessions;
        this.shards = shards;
        this.mode = settings.mode();
        this.clock = clock;
        this.lagMs = settings.lag().toMillis();
        this.maxRowsPerCommit = settings.maxRowsPerCommit();
        this.commitTimeoutMs = settings.commitTimeout().toMillis();
        this.queueCapacity = settings.queueCapacity();
        this.host = truncated(hostName(), 255);
        if (!sessions.getConfiguration().hasMapper(JournalMapper.class)) {
            sessions.getConfiguration().addMapper(JournalMapper.class);
        }
        for (int i = 0; i < Math.max(1, settings.createWriters()); i++) {
            startWriter(creates, "delay-journal-create-" + i);
        }
        startWriter(transitions, "delay-journal-transitions");
    }

    private void startWriter(LinkedBlockingQueue<Entry> queue, String name) {
        AtomicLong oldest = new AtomicLong(Long.MAX_VALUE);
        oldestTaken.add(oldest);
        Thread writer = new Thread(() -> runWriter(queue, oldest), name);
        writer.setDaemon(true);
        writers.add(writer);
        writer.start();
    }

    @Override
    public JournalMode mode() {
        return mode;
    }

    public long commits() {
        return commits.get();
    }

    /** Nanoseconds spent writing and committing groups, over {@link #commits()} groups. */
    public long commitNanos() {
        return commitNanos.sum();
    }

    public long rowsWritten() {
        return rowsWritten.get();
    }

    /** Commits rolled back by a deadlock, a lock wait timeout or a duplicate id, and written again. */
    public long transientFailures() {
        return transientFailures.get();
    }

    /**
     * Whether a failed commit is worth writing again at once: a deadlock or lock wait (SQLState class 40,
     * MySQL errors 1213 and 1205), or a duplicate key (1062, SQLState 23505), which is a client-supplied id that another writer
     * committed meanwhile (the retry finds it and reports it as existing).
     */
    static boolean isTransient(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLTransactionRollbackException || t instanceof SQLIntegrityConstraintViolationException) {
                return true;
            }
            if (t instanceof SQLException sql) {
                String state = sql.getSQLState();
                int code = sql.getErrorCode();
                if (code == 1213
                        || code == 1205
                        || code == 1062
                        || "23505".equals(state) // a unique key (H2)
                        || (state != null && state.startsWith("40"))) {
                    return true;
                }
            }
        }
        return false;
    }

    @Override
    public Set<String> recordCreated(List<Job> jobs) {
        return startCreated(jobs).await(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(commitTimeoutMs));
    }

    @Override
    public PendingCreate startCreated(List<Job> jobs) {
        return startCreatedGroups(List.of(jobs)).get(0);
    }

    /**
     * One entry for every group, so that a combined round takes one place in the queue and one commit; each
     * group still gets its own answer (a refused row fails only its group).
     */
    @Override
    public List<PendingCreate> startCreatedGroups(List<List<Job>> groups) {
        List<Job> all = new ArrayList<>();
        List<List<Job>> copies = new ArrayList<>(groups.size());
        for (List<Job> group : groups) {
            List<Job> copy = List.copyOf(group);
            copies.add(copy);
            all.addAll(copy);
        }
        List<PendingCreate> pending = new ArrayList<>(groups.size());
        if (all.isEmpty()) {
            for (int g = 0; g < groups.size(); g++) {
                pending.add(deadline -> Set.of());
            }
            return pending;
        }
        boolean durable = mode == JournalMode.SYNC;
        Entry entry = new Entry(
                List.copyOf(all), List.copyOf(copies), List.of(), worker(), durable ? new CompletableFuture<>() : null);
        RuntimeException refused = null;
        try {
            enqueue(entry);
        } catch (RuntimeException e) {
            refused = e;
        }
        for (int g = 0; g < groups.size(); g++) {
            int group = g;
            if (refused != null) {
                RuntimeException cause = refused;
                pending.add(deadline -> {
                    throw forOneCaller(cause);
                });
            } else {
                pending.add(deadline -> durable ? await(entry, group, deadline) : Set.of());
            }
        }
        return pending;
    }

    /** A failure shared by the callers of one entry, as an exception of one caller's own (callers add data). */
    private static DelayQueueException forOneCaller(Throwable failure) {
        if (failure instanceof DelayQueueException.OutcomeUnknown) {
            return new DelayQueueException.OutcomeUnknown(failure.getMessage(), failure);
        }
        if (failure instanceof DelayQueueException.Unavailable) {
            return new DelayQueueException.Unavailable(failure.getMessage(), failure);
        }
        if (failure instanceof DelayQueueException d) {
            return new DelayQueueException(d.httpStatus(), d.getMessage(), d);
        }
        return new DelayQueueException.Unavailable("not written: the journal could not commit: " + failure, failure);
    }

    @Override
    public Duration commitTimeout() {
        return Duration.ofMillis(commitTimeoutMs);
    }

    @Override
    public void recordTransitions(List<Transition> transitions) {
        if (!transitions.isEmpty()) {
            enqueue(new Entry(List.of(), List.copyOf(transitions), worker(), null));
        }
    }

    @Override
    public void recordTransitionsDurably(List<Transition> transitions) {
        if (transitions.isEmpty()) {
            return;
        }
        boolean durable = mode == JournalMode.SYNC;
        Entry entry =
                new Entry(List.of(), List.copyOf(transitions), worker(), durable ? new CompletableFuture<>() : null);
        enqueue(entry);
        if (durable) {
            await(entry, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(commitTimeoutMs));
        }
    }

    /** Rows handed to the writers and not settled yet (written, failed, or given up by their callers). */
    @Override
    public long queuedRows() {
        return queuedRows.get();
    }

    /**
     * The age of the oldest entry not settled yet: the oldest of the queues' heads and of the entries each writer
     * holds (committing, or waiting to write again after a failure). A lagged caller waiting for room counts from
     * the moment it called. Read without locks: an entry on its way from a queue to a writer may be missed for
     * that instant.
     */
    @Override
    public long lagMillis() {
        long oldest = Long.MAX_VALUE;
        for (LinkedBlockingQueue<Entry> queue : List.of(creates, transitions)) {
            Entry head = queue.peek();
            if (head != null) {
                oldest = Math.min(oldest, head.queuedAtMs);
            }
        }
        for (AtomicLong taken : oldestTaken) {
            oldest = Math.min(oldest, taken.get());
        }
        return oldest == Long.MAX_VALUE ? 0 : Math.max(0, clock.millis() - oldest);
    }

    @Override
    public void setListener(JournalListener listener) {
        this.listener = listener == null ? JournalListener.NONE : listener;
    }

    /** Lagged entries the database refused on their own (logged, not written): each one a bug to look into. */
    public long refusedEntries() {
        return refusedEntries.get();
    }

    /**
     * Queues an entry for the writers. Over {@code queueCapacity} rows, what a client waits on (a push) is refused
     * at once (503), while lagged transitions wait for room: back-pressure on the scanners and dispatchers rather
     * than unbounded memory, and no transition is ever dropped.
     */
    private void enqueue(Entry entry) {
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
    private void settle(Entry entry) {
        if (entry.settle()) {
            queuedRows.addAndGet(-entry.rows());
            if (roomWaiters > 0) {
                synchronized (room) {
                    room.notifyAll();
                }
            }
        }
    }

    private Set<String> await(Entry entry, long deadlineNanos) {
        return await(entry, 0, deadlineNanos);
    }

    /** Waits for the answer of one group of {@code entry}: the ids of the group that existed. */
    private Set<String> await(Entry entry, int group, long deadlineNanos) {
        try {
            Set<String> existing =
                    entry.done().get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
            Object[] results = entry.groupResults;
            if (results != null) {
                if (results[group] instanceof DelayQueueException refused) {
                    throw refused;
                }
                @SuppressWarnings("unchecked")
                Set<String> mine = (Set<String>) results[group];
                return mine;
            }
            if (existing.isEmpty() || entry.groups.size() == 1) {
                return existing;
            }
            Set<String> mine = new HashSet<>();
            for (Job job : entry.groups.get(group)) {
                if (existing.contains(job.id())) {
                    mine.add(job.id());
                }
            }
            return mine;
        } catch (ExecutionException e) {
            // an entry of one group: its failure is its caller's own already
            throw entry.groups.size() <= 1 && e.getCause() instanceof DelayQueueException d
                    ? d
                    : forOneCaller(e.getCause());
        } catch (TimeoutException e) {
            if (entry.abandon()) {
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
            if (entry.abandon()) {
                throw new DelayQueueException.Unavailable("not written: interrupted while waiting for the journal", e);
            }
            throw new DelayQueueException.OutcomeUnknown("interrupted while the journal committed", e);
        }
    }

    // ---- the writer ----

    /**
     * A writer's loop. Every entry taken from the queue stays in {@code pending} until it is settled: written,
     * failed to its waiting caller, or skipped because its caller gave up; a lagged entry whose commit failed
     * stays and is written again, in order, after a back-off. Nothing taken is dropped, not even on an
     * unexpected error, and each entry's rows leave the backlog exactly once.
     */
    private void runWriter(LinkedBlockingQueue<Entry> queue, AtomicLong oldestTaken) {
        Deque<Entry> pending = new ArrayDeque<>();
        long backoffMs = 0;
        while (true) {
            try {
                if (pending.isEmpty()) {
                    Entry first = queue.poll(100, TimeUnit.MILLISECONDS);
                    if (first == null) {
                        if (closing && queue.isEmpty()) {
                            return;
                        }
                        continue;
                    }
                    pending.add(first);
                    oldestTaken.set(first.queuedAtMs);
                }
                collect(queue, pending);
                for (Entry e : pending) {
                    if (e.done() != null && !e.take()) {
                        settle(e); // its caller gave up waiting and was answered 503: never write it
                    }
                }
                pending.removeIf(e -> e.settled.get());
                if (pending.isEmpty()) {
                    oldestTaken.set(Long.MAX_VALUE);
                    continue;
                }
                List<Entry> batch = List.copyOf(pending);
                try {
                    commitIsolating(batch);
                    backoffMs = 0;
                } catch (RuntimeException | Error failure) {
                    backoffMs = backoffMs == 0 ? 100 : Math.min(backoffMs * 2, 2000);
                    log.warn(
                            "journal commit of {} entries failed, writing lagged ones again in {} ms: {}",
                            batch.size(),
                            backoffMs,
                            failure.toString());
                    for (Entry e : batch) {
                        if (e.done() != null) {
                            settle(e);
                            e.done().completeExceptionally(failureOf(failure));
                        }
                    }
                }
                pending.removeIf(e -> e.settled.get());
                oldestTaken.set(
                        pending.stream().mapToLong(e -> e.queuedAtMs).min().orElse(Long.MAX_VALUE));
                if (!pending.isEmpty()) {
                    if (closing && backoffMs >= 2000) {
                        log.error("journal closing with {} entries unwritten", pending.size() + queue.size());
                        return;
                    }
                    Thread.sleep(backoffMs);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException | Error unexpected) {
                // outside a commit (collecting, say): what was taken is still in pending, and is written next
                log.error("journal writer failed unexpectedly; continuing with {} entries", pending.size(), unexpected);
            }
        }
    }

    /**
     * Commits {@code batch} in one transaction (retrying a lost deadlock), and settles its entries. When the
     * database refuses a row (data too long, a value it cannot store), the batch is split in halves, each
     * committed on its own, down to the entry at fault, which alone fails (a 4xx naming the column for a push);
     * the others are written as if it had never been there.
     *
     * @throws RuntimeException any other failure (the database down, say): the entries it did not commit are
     *     left unsettled (those an earlier half of a split committed are settled)
     */
    private void commitIsolating(List<Entry> batch) {
        Map<Entry, Set<String>> existing;
        try {
            existing = Failsafe.with(transientRetry).get(attempt -> write(batch, attempt.isRetry()));
        } catch (RuntimeException failure) {
            if (!isRowRefused(failure)) {
                throw failure;
            }
            if (batch.size() > 1) {
                int half = batch.size() / 2;
                commitIsolating(batch.subList(0, half));
                commitIsolating(batch.subList(half, batch.size()));
                return;
            }
            Entry refused = batch.get(0);
            if (refused.groups.size() > 1) {
                commitGroupByGroup(refused);
                return;
            }
            settle(refused);
            if (refused.done() != null) {
                refused.done().completeExceptionally(rowRefused(failure));
            } else {
                refusedEntries.incrementAndGet();
                log.error(
                        "the journal database refuses a lagged entry of {} transitions, which is not written: {}",
                        refused.transitions().size(),
                        rootMessage(failure));
            }
            return;
        }
        for (Entry e : batch) {
            settle(e);
            if (e.done() != null) {
                e.done().complete(existing.getOrDefault(e, Set.of()));
            }
        }
    }

    /**
     * Commits the groups of a refused entry one by one (isolating again), so that only the group holding the
     * refused row fails; then answers the entry with each group's outcome.
     */
    private void commitGroupByGroup(Entry whole) {
        List<Entry> parts = new ArrayList<>(whole.groups.size());
        for (int g = 0; g < whole.groups.size(); g++) {
            parts.add(whole.part(g));
        }
        commitIsolating(parts); // a failure other than a refused row: the whole entry fails in runWriter
        Object[] results = new Object[parts.size()];
        for (int g = 0; g < parts.size(); g++) {
            CompletableFuture<Set<String>> done = parts.get(g).done();
            if (done == null) {
                results[g] = Set.of();
            } else {
                try {
                    results[g] = done.getNow(Set.of());
                } catch (java.util.concurrent.CompletionException e) {
                    results[g] = forOneCaller(e.getCause());
                }
            }
        }
        whole.groupResults = results;
        settle(whole);
        if (whole.done() != null) {
            whole.done().complete(Set.of());
        }
    }

    /** What a waiting caller of a failed commit is answered: unknown when the commit itself broke off. */
    private static DelayQueueException failureOf(Throwable failure) {
        if (failure instanceof CommitBrokeOff) {
            return new DelayQueueException.OutcomeUnknown(
                    "the journal's commit broke off and may or may not have landed: " + rootMessage(failure), failure);
        }
        return new DelayQueueException.Unavailable(
                "not written: the journal database is unavailable: " + rootMessage(failure), failure);
    }

    /** The commit statement itself failed: the database may have committed before the connection broke. */
    private static final class CommitBrokeOff extends RuntimeException {
        CommitBrokeOff(RuntimeException cause) {
            super(cause.getMessage(), cause);
        }
    }

    /**
     * Whether the database refused a row for what it holds rather than for its own state: a data exception
     * (SQLState class 22: data too long, a string it cannot store, a number out of range) or an integrity
     * violation other than a duplicate id (which {@link #isTransient} retries). Writing it again cannot succeed.
     */
    static boolean isRowRefused(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException sql) {
                String state = sql.getSQLState();
                int code = sql.getErrorCode();
                if (code == 1062 || "23505".equals(state)) {
                    return false;
                }
                if ((state != null && (state.startsWith("22") || state.startsWith("23")))
                        || code == 1366 // incorrect string value
                        || code == 1406 // data too long
                        || code == 1048 // column cannot be null
                        || code == 1264) { // out of range
                    return true;
                }
            }
        }
        return false;
    }

    private static final Pattern REFUSED_COLUMN =
            Pattern.compile("column [`'\"]?(?:\\w+[`'\"]?\\.[`'\"]?)*(\\w+)[`'\"]?");

    /** The 400 of a push whose row the database refuses, naming the job's field where the message names a column. */
    private static DelayQueueException rowRefused(Throwable failure) {
        String message = rootMessage(failure);
        Matcher column = REFUSED_COLUMN.matcher(message);
        String field = column.find() ? fieldOf(column.group(1)) : "job";
        return new DelayQueueException.InvalidField(
                field, "is refused by the journal database, nothing was written: " + message);
    }

    private static String fieldOf(String column) {
        return switch (column) {
            case "biz_key" -> "bizKey";
            case "max_attempts" -> "maxAttempts";
            case "due_at" -> "executeAt";
            default -> column;
        };
    }

    /** Adds to {@code pending} whatever should share its commit. */
    private void collect(LinkedBlockingQueue<Entry> queue, Deque<Entry> pending) throws InterruptedException {
        int rows = pending.stream().mapToInt(Entry::rows).sum();
        boolean durable = pending.stream().anyMatch(e -> e.done() != null);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(1, lagMs / 4));
        while (rows < maxRowsPerCommit) {
            Entry next = queue.poll();
            if (next == null) {
                if (durable || closing) {
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
     * Writes a batch in one transaction; returns, per create entry, the ids that already existed.
     *
     * @param lookUpIds whether to look for the new ids in the table first. The first attempt does not:
     *     generated ids are unique, and a client-supplied id pushed twice fails the insert on the primary key,
     *     which rolls the group back; the retry then looks them up and reports those that exist. One query and
     *     round trip less per commit, where a second push of an id is the exception.
     */
    private Map<Entry, Set<String>> write(List<Entry> batch, boolean lookUpIds) {
        long now = clock.millis();
        long startNanos = System.nanoTime();
        // by identity: an entry is a record, whose hashCode would hash every job in it, bodies and all
        Map<Entry, Set<String>> existingByEntry = new IdentityHashMap<>();
        // A BATCH session: the existence query runs at once, then every insert and update is queued as a JDBC
        // batch of one static statement and sent at commit; with rewriteBatchedStatements=true, MySQL's driver
        // turns each batch into multi-row statements (sized to max_allowed_packet). Far cheaper on the CPU
        // than a dynamic <foreach> of thousands of rows.
        // READ COMMITTED: the group only inserts and updates by primary key, so it needs none of the gap locks
        // of REPEATABLE READ, which are what concurrent inserts into one index range deadlock on.
        try (SqlSession session = sessions.openSession(ExecutorType.BATCH, TransactionIsolationLevel.READ_COMMITTED)) {
            try {
                JournalMapper mapper = session.getMapper(JournalMapper.class);
                List<Job> newJobs = new ArrayList<>();
                List<LogRow> logRows = new ArrayList<>();
                Map<String, JobUpdate> updates = new TreeMap<>();
                // grows with the group: the second push of one client id in a group finds the first
                Set<String> existingAll = lookUpIds
                        ? existing(
                                mapper,
                                batch.stream()
                                        .flatMap(e -> e.created().stream())
                                        .toList())
                        : new HashSet<>();
                for (Entry e : batch) {
                    if (!e.created().isEmpty()) {
                        // an id twice in one entry (a batch) is written once and is not "existing": its caller
                        // tells the two apart; an id of an earlier entry or an earlier commit is existing
                        Set<String> existing = null;
                        Set<String> inEntry = e.created().size() > 1 ? new HashSet<>() : null;
                        for (Job job : e.created()) {
                            if (inEntry != null && !inEntry.add(job.id())) {
                                continue;
                            }
                            if (existingAll.add(job.id())) {
                                newJobs.add(job);
                                logRows.add(new LogRow(
                                        job.id(),
                                        JobEvent.CREATED,
                                        null,
                                        JobStatus.DELAY,
                                        job.createTime(),
                                        host,
                                        e.worker(),
                                        null));
                            } else {
                                existing = existing == null ? new HashSet<>() : existing;
                                existing.add(job.id());
                            }
                        }
                        if (existing != null) {
                            existingByEntry.put(e, existing);
                        }
                    }
                    for (Transition t : e.transitions()) {
                        logRows.add(new LogRow(
                                t.jobId(), t.event(), t.from(), t.to(), t.at(), host, e.worker(), t.detail()));
                        if (t.event() != JobEvent.LOADED) {
                            // a load changes nothing of the row (it was DELAY, and stays so); writing DELAY could
                            // overwrite a transition of the job journaled just before it
                            updates.merge(t.jobId(), update(t), MyBatisJournal::fold);
                        }
                    }
                }
                // Rows in id order: concurrent writers then take their row locks in one order, which makes
                // deadlocks between them rarer (the retry above handles the rest).
                newJobs.sort(Comparator.comparing(Job::id));
                RowInserts.insertJobs(session.getConnection(), newJobs, shards);
                RowInserts.insertLogRows(session.getConnection(), logRows);
                Map<String, List<String>> statusOnly = new LinkedHashMap<>();
                for (JobUpdate u : updates.values()) {
                    if (u.statusOnly()) {
                        statusOnly
                                .computeIfAbsent(u.status(), s -> new ArrayList<>())
                                .add(u.id());
                    } else {
                        mapper.updateOne(u, now);
                    }
                }
                for (var entry : statusOnly.entrySet()) {
                    for (List<String> ids : chunksOf(entry.getValue(), ROWS_PER_STATEMENT)) {
                        mapper.updateStatus(entry.getKey(), ids, now);
                    }
                }
                // forced: MyBatis commits (and rolls back) only a session it saw write, and the inserts
                // bypass it
                try {
                    session.commit(true);
                    if (batch.stream().anyMatch(e -> e.done() != null)) {
                        // lagged entries alone need not wait for the disk: H2 writes them within its WRITE_DELAY,
                        // and the next forced commit forces them too
                        forceToDisk(session.getConnection());
                    }
                } catch (RuntimeException broken) {
                    throw new CommitBrokeOff(broken);
                }
                long tookNanos = System.nanoTime() - startNanos;
                int rows = newJobs.size() + logRows.size();
                commitNanos.add(tookNanos);
                commits.incrementAndGet();
                rowsWritten.addAndGet(rows);
                notifyCommitted(tookNanos, rows);
            } catch (RuntimeException | Error failure) {
                // nothing of a failed group may land: closing the session does not roll back (see above), and
                // its reset of the connection to auto-commit would commit what the group wrote so far
                try {
                    session.rollback(true);
                } catch (RuntimeException suppressed) {
                    failure.addSuppressed(suppressed);
                }
                throw failure;
            }
        }
        return existingByEntry;
    }

    private void notifyCommitted(long nanos, int rows) {
        try {
            listener.committed(nanos, rows);
        } catch (RuntimeException e) {
            // the rows are committed: a listener's failure must not turn that into a failed commit
            log.debug("journal listener failed: {}", e.toString());
        }
    }

    /**
     * Makes a commit durable where the database does not: H2 (the embedded default) keeps a committed
     * transaction in memory and writes its store out later ({@code WRITE_DELAY}, 500 ms by default), and even a
     * written store is in the OS's cache, not forced to the device. {@code CHECKPOINT SYNC} writes the store and
     * forces the file ({@code FileChannel.force}), so an answered push survives {@code kill -9}, an OS crash and
     * a power loss, as on InnoDB with its default {@code innodb_flush_log_at_trx_commit=1}. One per group that
     * a caller waits for, shared by every push in it. MySQL and MariaDB need nothing more than their commit.
     *
     * <p>A failure here comes after the commit: the rows are committed but perhaps not on disk, so the callers'
     * outcome is unknown, not refused.
     */
    private void forceToDisk(Connection connection) {
        try {
            Boolean isH2 = h2;
            if (isH2 == null) {
                h2 = isH2 = "H2".equals(connection.getMetaData().getDatabaseProductName());
            }
            if (isH2) {
                try (Statement sync = connection.createStatement()) {
                    sync.execute("CHECKPOINT SYNC");
                }
            }
        } catch (SQLException e) {
            throw new DelayQueueException.OutcomeUnknown(
                    "the journal committed but could not force the commit to disk: " + e.getMessage(), e);
        }
    }

    private static Set<String> existing(JournalMapper mapper, List<Job> jobs) {
        Set<String> found = new HashSet<>();
        List<String> ids = jobs.stream().map(Job::id).toList();
        for (List<String> chunk : chunksOf(ids, ROWS_PER_STATEMENT)) {
            found.addAll(mapper.existingIds(chunk));
        }
        return found;
    }

    private static JobUpdate update(Transition t) {
        int delta = t.event() == JobEvent.TTR_EXPIRED && t.attempts() == null ? 1 : 0;
        return new JobUpdate(t.jobId(), t.to().name(), t.attempts(), delta, t.dueAt());
    }

    /**
     * Two transitions of one job in one commit: the later wins, attempts add up unless one sets them; but a final
     * state ({@code FINISHED}, {@code DELETED}) stays, as the update statements keep it against later commits. (A
     * reconciler pass can restore a job and journal its {@code RESTORED} just after a delete of it committed: in
     * one group the {@code RESTORED} came later and made a deleted job live again in the journal.)
     */
    private static JobUpdate fold(JobUpdate earlier, JobUpdate later) {
        if (isFinal(earlier.status())) {
            return earlier;
        }
        Integer attempts = later.attempts() != null
                ? later.attempts()
                : earlier.attempts() != null ? Integer.valueOf(earlier.attempts() + later.attemptsDelta()) : null;
        int delta = later.attempts() != null || earlier.attempts() != null
                ? 0
                : earlier.attemptsDelta() + later.attemptsDelta();
        Long dueAt = later.dueAt() != null ? later.dueAt() : earlier.dueAt();
        return new JobUpdate(later.id(), later.status(), attempts, delta, dueAt);
    }

    private static boolean isFinal(String status) {
        return JobStatus.FINISHED.name().equals(status)
                || JobStatus.DELETED.name().equals(status);
    }

    private static <T> List<List<T>> chunksOf(List<T> items, int size) {
        List<List<T>> chunks = new ArrayList<>();
        for (int i = 0; i < items.size(); i += size) {
            chunks.add(items.subList(i, Math.min(items.size(), i + size)));
        }
        return chunks;
    }

    // ---- reads ----

    @Override
    public Optional<Job> find(String id) {
        return read(m -> Optional.ofNullable(m.find(id)).map(JobRow::toJob));
    }

    @Override
    public List<JournalEntry> history(String id) {
        return read(m -> m.history(id).stream().map(LogRow::toEntry).toList());
    }

    @Override
    public List<Job> page(JobStatus status, JobCursor after, long dueBefore, int limit) {
        return read(m -> m.page(status.name(), after.dueAt(), after.id(), dueBefore, limit).stream()
                .map(JobRow::toJob)
                .toList());
    }

    /**
     * One batch of retention, apart from the writers, on a connection of its own: select the batch (a plain read),
     * then in one READ COMMITTED transaction delete those jobs guarded again by status and update time, and the
     * log rows of exactly the jobs deleted. A job that changed since the select stays with its history; one that
     * was deleted stays locked until the commit, so nothing can write its id meanwhile. The transaction touches
     * about four rows per job, by key, so its locks are few and held for milliseconds.
     */
    @Override
    public PurgedRows purgeFinished(long updatedBefore, int limit) {
        try (SqlSession session = sessions.openSession(ExecutorType.SIMPLE, TransactionIsolationLevel.READ_COMMITTED)) {
            try {
                JournalMapper mapper = session.getMapper(JournalMapper.class);
                // one status at a time: an equality and a range on the index (H2 answers an IN list over it with
                // LIMIT with some rows twice)
                List<String> ids = new ArrayList<>(mapper.purgeable(JobStatus.FINISHED.name(), updatedBefore, limit));
                if (ids.size() < limit) {
                    ids.addAll(mapper.purgeable(JobStatus.DELETED.name(), updatedBefore, limit - ids.size()));
                }
                if (ids.isEmpty()) {
                    return PurgedRows.NONE;
                }
                int jobs = mapper.deletePurgeable(ids, updatedBefore);
                List<String> deleted = ids;
                if (jobs < ids.size()) {
                    // some changed since the select: those are still there (and, the deleted ones being locked by
                    // this transaction, nothing else can be)
                    Set<String> stayed = new HashSet<>(mapper.existingIds(ids));
                    deleted = ids.stream().filter(id -> !stayed.contains(id)).toList();
                }
                int logRows = deleted.isEmpty() ? 0 : mapper.deleteLogRows(deleted);
                session.commit(true);
                return new PurgedRows(ids.size(), jobs, logRows);
            } catch (RuntimeException failure) {
                try {
                    session.rollback(true);
                } catch (RuntimeException suppressed) {
                    failure.addSuppressed(suppressed);
                }
                throw failure;
            }
        } catch (RuntimeException e) {
            throw new DelayQueueException.Unavailable("the journal database is unavailable: " + rootMessage(e), e);
        }
    }

    @Override
    public List<Job> delayedOfShard(int shard, JobCursor after, long dueAtMost, int limit) {
        return read(m -> m.delayedOfShard(shard, after.dueAt(), after.id(), dueAtMost, limit).stream()
                .map(JobRow::toJob)
                .toList());
    }

    @Override
    public long countDelayedDueAfter(long dueAfter) {
        return read(m -> m.countDelayedDueAfter(dueAfter));
    }

    /**
     * Reads the ids of up to {@code limit} rows without a shard, then sets it per shard with {@code ... WHERE shard
     * IS NULL AND id IN (...)} (auto-committed statements of at most {@link #ROWS_PER_STATEMENT} ids: short row
     * locks, no long transaction beside the pushes). Two instances running it at once write the same values.
     */
    @Override
    public int assignMissingShards(int limit) {
        return read(m -> {
            List<String> ids = m.idsWithoutShard(limit);
            Map<Integer, List<String>> byShard = new TreeMap<>();
            for (String id : ids) {
                byShard.computeIfAbsent(io.delayqueue.common.JobIds.shardOf(id, shards), k -> new ArrayList<>())
                        .add(id);
            }
            for (var entry : byShard.entrySet()) {
                for (List<String> chunk : chunksOf(entry.getValue(), ROWS_PER_STATEMENT)) {
                    m.assignShard(entry.getKey(), chunk);
                }
            }
            return ids.size();
        });
    }

    private <T> T read(java.util.function.Function<JournalMapper, T> query) {
        try (SqlSession session = sessions.openSession(true)) {
            return query.apply(session.getMapper(JournalMapper.class));
        } catch (RuntimeException e) {
            throw new DelayQueueException.Unavailable("the journal database is unavailable: " + rootMessage(e), e);
        }
    }

    @Override
    public void close() {
        closing = true;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (Thread writer : writers) {
            try {
                writer.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (writer.isAlive()) {
                log.error(
                        "journal writer {} did not finish within 10 s; {} entries unwritten",
                        writer.getName(),
                        creates.size() + transitions.size());
                writer.interrupt();
            }
        }
    }

    /** The thread's name, as long as the log's {@code worker} column takes. */
    private static String worker() {
        return truncated(Thread.currentThread().getName(), 64);
    }

    private static String truncated(String s, int length) {
        return s.length() <= length ? s : s.substring(0, length);
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + ": " + root.getMessage();
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "unknown";
        }
    }
}
