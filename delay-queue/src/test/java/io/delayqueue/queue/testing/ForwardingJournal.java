package io.delayqueue.queue.testing;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.journal.JobChange;
import io.delayqueue.queue.journal.JobCursor;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.journal.JournalEntry;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.journal.Transition;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A journal that hands every call to a real one; a test overrides a method to run something of its own at an
 * exact point (between two steps of another component) and still reach the real journal.
 */
public class ForwardingJournal implements Journal {
    private final Journal delegate;

    public ForwardingJournal(Journal delegate) {
        this.delegate = delegate;
    }

    @Override
    public Set<String> recordCreated(List<Job> jobs) {
        return delegate.recordCreated(jobs);
    }

    @Override
    public PendingCreate startCreated(List<Job> jobs) {
        return delegate.startCreated(jobs);
    }

    @Override
    public List<PendingCreate> startCreatedGroups(List<List<Job>> groups) {
        return delegate.startCreatedGroups(groups);
    }

    @Override
    public Duration commitTimeout() {
        return delegate.commitTimeout();
    }

    @Override
    public void recordTransitions(List<Transition> transitions) {
        delegate.recordTransitions(transitions);
    }

    @Override
    public void recordTransitionsDurably(List<Transition> transitions) {
        delegate.recordTransitionsDurably(transitions);
    }

    @Override
    public Optional<Job> find(String id) {
        return delegate.find(id);
    }

    @Override
    public Map<String, Job> findAll(Collection<String> ids) {
        return delegate.findAll(ids);
    }

    @Override
    public List<JournalEntry> history(String id) {
        return delegate.history(id);
    }

    @Override
    public List<Job> page(JobStatus status, JobCursor after, long dueBefore, int limit) {
        return delegate.page(status, after, dueBefore, limit);
    }

    @Override
    public List<JobChange> changedSince(JobStatus status, long since, JobCursor after, int limit) {
        return delegate.changedSince(status, since, after, limit);
    }

    @Override
    public List<JobCursor> delayedKeysOfShard(int shard, JobCursor after, long dueAtMost, int limit) {
        return delegate.delayedKeysOfShard(shard, after, dueAtMost, limit);
    }

    @Override
    public long countDelayedDueAfter(long dueAfter) {
        return delegate.countDelayedDueAfter(dueAfter);
    }

    @Override
    public int assignMissingShards(int limit) {
        return delegate.assignMissingShards(limit);
    }

    @Override
    public JournalMode mode() {
        return delegate.mode();
    }

    @Override
    public Room takeRoom(int transitions) {
        return delegate.takeRoom(transitions);
    }

    @Override
    public java.util.Optional<String> unsound() {
        return delegate.unsound();
    }

    @Override
    public long droppedRows() {
        return delegate.droppedRows();
    }

    @Override
    public long queueCapacityRows() {
        return delegate.queueCapacityRows();
    }

    @Override
    public long queuedRows() {
        return delegate.queuedRows();
    }

    /** Leaves the real journal open: its owner closes it. */
    @Override
    public void close() {}
}
