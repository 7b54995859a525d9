package io.delayqueue.queue.store;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Reads of jobs as stored now and of shard counts, for look-ups, the delete protocol's answers and stats. A role of {@link JobStore}. */
public interface StoreReads {
    /** The job as stored now, with its current status, attempts and due time. */
    Optional<Job> find(String id);

    /**
     * The given jobs as stored now, by id; ids not in the store are absent. The default looks each up; a store
     * reads them in one command per shard.
     */
    default Map<String, Job> findAll(List<String> ids) {
        Map<String, Job> found = new LinkedHashMap<>();
        for (String id : ids) {
            find(id).ifPresent(job -> found.put(id, job));
        }
        return found;
    }

    /** Current statuses of the given jobs; ids not in the store are absent from the result. */
    Map<String, JobStatus> statuses(List<String> ids);

    /** Counts of one shard. */
    ShardStats stats(int shard);
}
