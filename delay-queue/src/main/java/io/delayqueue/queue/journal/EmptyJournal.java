package io.delayqueue.queue.journal;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A journal that keeps nothing and finds nothing: {@link Journal#NONE} is one (mode {@code off}); a test extends
 * it, says its {@link #mode()} and overrides the calls it records or scripts.
 */
public abstract class EmptyJournal implements Journal {
    @Override
    public Set<String> recordCreated(List<Job> jobs) {
        return Set.of();
    }

    @Override
    public void recordTransitions(List<Transition> transitions) {}

    @Override
    public void recordTransitionsDurably(List<Transition> transitions) {}

    @Override
    public Optional<Job> find(String id) {
        return Optional.empty();
    }

    @Override
    public List<JournalEntry> history(String id) {
        return List.of();
    }

    @Override
    public List<Job> page(JobStatus status, JobCursor after, long dueBefore, int limit) {
        return List.of();
    }

    @Override
    public List<JobCursor> delayedKeysOfShard(int shard, JobCursor after, long dueAtMost, int limit) {
        return List.of();
    }

    @Override
    public long countDelayedDueAfter(long dueAfter) {
        return 0;
    }
}
