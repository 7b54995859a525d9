package io.delayqueue.e2e.support;

import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.journal.EmptyJournal;
import io.delayqueue.queue.journal.JournalMode;
import io.delayqueue.queue.journal.Transition;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A journal that keeps every transition in memory, indexed by job, so that a test can see when each job
 * became what, and why (failed attempts carry their error).
 */
public final class RecordingJournal extends EmptyJournal {
    private final Map<String, List<Transition>> byJob = new ConcurrentHashMap<>();

    @Override
    public void recordTransitionsDurably(List<Transition> batch) {
        recordTransitions(batch);
    }

    @Override
    public void recordTransitions(List<Transition> batch) {
        for (Transition t : batch) {
            List<Transition> list = byJob.computeIfAbsent(t.jobId(), id -> new ArrayList<>());
            synchronized (list) {
                list.add(t);
            }
        }
    }

    /** Lagged writes, as far as the engine is concerned: nothing here is durable. */
    @Override
    public JournalMode mode() {
        return JournalMode.ASYNC;
    }

    /** The transitions of one job, oldest first. */
    public List<Transition> of(String jobId) {
        List<Transition> list = byJob.get(jobId);
        if (list == null) {
            return List.of();
        }
        synchronized (list) {
            return List.copyOf(list);
        }
    }

    /** The status the journal last saw the job go to, {@code null} when it saw none. */
    public JobStatus statusOf(String jobId) {
        List<Transition> list = of(jobId);
        return list.isEmpty() ? null : list.get(list.size() - 1).to();
    }

    /** How many of the given jobs are in {@code status} by the journal. */
    public long count(Collection<String> ids, JobStatus status) {
        return ids.stream().filter(id -> statusOf(id) == status).count();
    }

    /** Failed sends of the job: attempts that went back to DELAY or to DEAD with their error. */
    public long failedAttempts(String jobId) {
        return of(jobId).stream()
                .filter(t -> t.from() == JobStatus.RESERVED)
                .filter(t -> t.detail() != null && t.detail().startsWith("attempt "))
                .count();
    }
}
