package io.delayqueue.queue.store;

import io.delayqueue.common.Job;
import java.util.List;

/** The calls of the push path: adding jobs, and the node number of generated ids. A role of {@link JobStore}. */
public interface PushStore {
    /**
     * A node number for generated ids ({@link io.delayqueue.common.JobIds.Generator}) that no other live
     * instance of this queue holds, in {@code [0, JobIds.NODES)}. Each call claims a new one. Numbers come
     * round again after {@code JobIds.NODES} claims, and a store that lost its state may hand out a number a
     * live instance holds; a store makes the second unlikely by starting at a random number.
     */
    int claimIdNode();

    /**
     * Adds jobs in state {@code DELAY} at their {@code executeAt}. Results are in the order of {@code
     * jobs}: {@code true} when the job was created, {@code false} when a job with its id already exists
     * (which is left untouched: pushing an id twice yields one job), {@code null} when its shard's call failed
     * (the jobs of the other shards are stored all the same). Throws when no shard took its jobs.
     */
    List<Boolean> push(List<Job> jobs);
}
