package io.delayqueue.queue.journal.mybatis;

import dev.failsafe.Failsafe;
import dev.failsafe.RetryPolicy;
import io.delayqueue.queue.journal.JournalListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits one group of entries and settles them: has {@link GroupTransaction} write the group, re-issues it when
 * it lost a deadlock ({@link #reissueGroup}), splits it down to the entry at fault when the database refuses a
 * row, answers each waiting caller, and counts the commits (and tells the {@link JournalListener}).
 *
 * <p>Threading: called by the writer threads, each with a group of its own; the counters are atomic and read
 * from any thread.
 */
final class GroupCommit {
    private static final Logger log = LoggerFactory.getLogger(GroupCommit.class);

    private final GroupTransaction group;
    private final JournalBacklog backlog;

    private volatile JournalListener listener = JournalListener.NONE;
    private final AtomicLong commits = new AtomicLong();
    /** Time spent writing and committing the groups counted in {@code commits}. */
    private final LongAdder commitNanos = new LongAdder();

    private final AtomicLong rowsWritten = new AtomicLong();
    private final AtomicLong transientFailures = new AtomicLong();
    private final AtomicLong refusedEntries = new AtomicLong();

    /**
     * How long after a group met an id already journaled the next groups look their ids up before inserting. A
     * group's first attempt normally does not (see {@link GroupTransaction#write}): a re-pushed client id is the
     * exception, and costs one rolled-back attempt. While clients re-push known ids (the documented retry), every
     * group would pay that, unrelated pushes in it included; looking up first costs one indexed read instead.
     */
    private static final long LOOK_UP_FIRST_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** When ({@link System#nanoTime()}) a group last met an id already journaled. */
    private volatile long duplicateSeenNanos = System.nanoTime() - 2 * LOOK_UP_FIRST_NANOS;

    /**
     * A group that lost a deadlock (or a lock wait, or a race on a client-supplied id with another writer) is
     * rolled back whole and written again at once: InnoDB expects a deadlock victim to re-issue its
     * transaction, and it would be wrong to answer the group's pushes 503 for it. Only when the retries run
     * out does the failure reach the callers.
     */
    private final RetryPolicy<GroupTransaction.Written> reissueGroup = RetryPolicy.<GroupTransaction.Written>builder()
            .handleIf(JournalFailures::isTransient)
            .withMaxRetries(5)
            .withBackoff(Duration.ofMillis(2), Duration.ofMillis(200))
            .withJitter(0.5)
            .onRetry(e -> {
                transientFailures.incrementAndGet();
                log.debug(
                        "journal commit rolled back ({}); writing the group again",
                        JournalFailures.rootMessage(e.getLastException()));
            })
            .build();

    GroupCommit(GroupTransaction group, JournalBacklog backlog) {
        this.group = group;
        this.backlog = backlog;
    }

    long commits() {
        return commits.get();
    }

    long commitNanos() {
        return commitNanos.sum();
    }

    long rowsWritten() {
        return rowsWritten.get();
    }

    long transientFailures() {
        return transientFailures.get();
    }

    long refusedEntries() {
        return refusedEntries.get();
    }

    void setListener(JournalListener listener) {
        this.listener = listener == null ? JournalListener.NONE : listener;
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
    void commitAndSettle(List<WriteEntry> batch) {
        Map<WriteEntry, Set<String>> existing;
        try {
            GroupTransaction.Written written =
                    Failsafe.with(reissueGroup).get(attempt -> group.write(batch, attempt.isRetry() || lookUpFirst()));
            committed(written);
            if (!written.existing().isEmpty()) {
                // the group met a known id (on its retry after the insert failed on the key, or looking up first)
                duplicateSeenNanos = System.nanoTime();
            }
            existing = written.existing();
        } catch (RuntimeException failure) {
            if (!JournalFailures.isRowRefused(failure)) {
                throw failure;
            }
            if (batch.size() > 1) {
                int half = batch.size() / 2;
                commitAndSettle(batch.subList(0, half));
                commitAndSettle(batch.subList(half, batch.size()));
                return;
            }
            WriteEntry refused = batch.get(0);
            if (refused.groups().size() > 1) {
                commitGroupByGroup(refused);
                return;
            }
            backlog.settle(refused);
            if (refused.done() != null) {
                refused.done().completeExceptionally(JournalFailures.rowRefused(failure));
            } else {
                refusedEntries.incrementAndGet();
                log.error(
                        "the journal database refuses a lagged entry of {} transitions, which is not written: {}",
                        refused.transitions().size(),
                        JournalFailures.rootMessage(failure));
            }
            return;
        }
        for (WriteEntry e : batch) {
            backlog.settle(e);
            if (e.done() != null) {
                e.done().complete(existing.getOrDefault(e, Set.of()));
            }
        }
    }

    /**
     * Commits the groups of a refused entry one by one (isolating again), so that only the group holding the
     * refused row fails; then answers the entry with each group's outcome.
     */
    private void commitGroupByGroup(WriteEntry whole) {
        List<WriteEntry> parts = new ArrayList<>(whole.groups().size());
        for (int g = 0; g < whole.groups().size(); g++) {
            parts.add(whole.part(g));
        }
        commitAndSettle(parts); // a failure other than a refused row: the whole entry fails in the writer
        Object[] results = new Object[parts.size()];
        for (int g = 0; g < parts.size(); g++) {
            CompletableFuture<Set<String>> done = parts.get(g).done();
            if (done == null) {
                results[g] = Set.of();
            } else {
                try {
                    results[g] = done.getNow(Set.of());
                } catch (CompletionException e) {
                    results[g] = JournalFailures.forOneCaller(e.getCause());
                }
            }
        }
        whole.groupResults = results;
        backlog.settle(whole);
        if (whole.done() != null) {
            whole.done().complete(Set.of());
        }
    }

    private boolean lookUpFirst() {
        return System.nanoTime() - duplicateSeenNanos < LOOK_UP_FIRST_NANOS;
    }

    private void committed(GroupTransaction.Written written) {
        commitNanos.add(written.nanos());
        commits.incrementAndGet();
        rowsWritten.addAndGet(written.rows());
        try {
            listener.committed(written.nanos(), written.rows());
        } catch (RuntimeException e) {
            // the rows are committed: a listener's failure must not turn that into a failed commit
            log.debug("journal listener failed: {}", e.toString());
        }
    }
}
