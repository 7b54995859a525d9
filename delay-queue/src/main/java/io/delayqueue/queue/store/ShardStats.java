package io.delayqueue.queue.store;

import io.delayqueue.common.JobStatus;
import java.util.Map;

/**
 * Counts of one shard.
 *
 * @param byStatus jobs in the pool per status (final jobs until their retention ends)
 * @param bucketSize entries in the delay bucket (DELAY jobs plus RESERVED deadlines)
 * @param readyByTopic length of each topic's ready list
 */
public record ShardStats(int shard, Map<JobStatus, Long> byStatus, long bucketSize, Map<String, Long> readyByTopic) {}
