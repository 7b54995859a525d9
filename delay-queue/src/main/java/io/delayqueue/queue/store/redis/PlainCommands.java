package io.delayqueue.queue.store.redis;

import static io.delayqueue.queue.store.redis.RedisFailures.call;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobIds;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.store.ShardStats;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.SetParams;

/**
 * What the store does with plain Redis commands rather than scripts: the reads (a job, statuses, pending
 * deletes, dead letters, shard counts), which change nothing and need no atomicity beyond one command's, and
 * the two counters, {@link #claimIdNode} and {@link #takeEpoch}, each a single-key command. A read over several
 * commands ({@link #listDead}, {@link #stats}) may see the shard between two transitions.
 *
 * <p>Threading: one per store, stateless, used by every thread that calls the store through the store's shared
 * client.
 */
final class PlainCommands {
    private final UnifiedJedis redis;
    private final RedisKeys keys;
    private final int shards;

    PlainCommands(UnifiedJedis redis, RedisKeys keys, int shards) {
        this.redis = redis;
        this.keys = keys;
        this.shards = shards;
    }

    /**
     * {@code INCR} on {@link RedisKeys#idNode()}, modulo {@link JobIds#NODES}. A missing counter (a new queue, or
     * a Redis that lost its data) is first seeded with a random number ({@code SET NX}), so that instances
     * that claimed before the loss and those that claim after it are unlikely to meet. Two single-key
     * commands: fine on a Redis Cluster, and two claimers racing on the seed still get different numbers.
     */
    int claimIdNode() {
        String key = keys.idNode();
        long claimed = call(() -> {
            redis.set(
                    key,
                    Integer.toString(ThreadLocalRandom.current().nextInt(JobIds.NODES)),
                    SetParams.setParams().nx());
            return redis.incr(key);
        });
        return (int) Math.floorMod(claimed, (long) JobIds.NODES);
    }

    long takeEpoch(int shard) {
        return call(() -> redis.incr(keys.epoch(shard)));
    }

    List<String> pendingDeletes(int shard, long begunBefore, int limit) {
        return call(() -> redis.zrangeByScore(keys.deleting(shard), "-inf", "(" + begunBefore, 0, limit));
    }

    Set<String> pendingDeletesAmong(List<String> ids) {
        Set<String> pending = new HashSet<>();
        for (var entry : byShard(ids).entrySet()) {
            List<String> shardIds = entry.getValue();
            List<Double> scores =
                    call(() -> redis.zmscore(keys.deleting(entry.getKey()), shardIds.toArray(String[]::new)));
            for (int i = 0; i < shardIds.size(); i++) {
                if (scores.get(i) != null) {
                    pending.add(shardIds.get(i));
                }
            }
        }
        return pending;
    }

    List<Job> listDead(String topic, int shard, int limit) {
        return call(() -> {
            List<String> ids = redis.zrange(keys.dead(shard, topic), 0, limit - 1L);
            if (ids.isEmpty()) {
                return List.of();
            }
            List<String> values = redis.hmget(keys.pool(shard), ids.toArray(String[]::new));
            List<Job> jobs = new ArrayList<>(ids.size());
            for (int i = 0; i < ids.size(); i++) {
                if (values.get(i) != null) {
                    jobs.add(PoolValues.decode(ids.get(i), values.get(i)));
                }
            }
            return jobs;
        });
    }

    long countDead(String topic, int shard) {
        return call(() -> redis.zcard(keys.dead(shard, topic)));
    }

    Optional<Job> find(String id) {
        String value = call(() -> redis.hget(keys.pool(JobIds.shardOf(id, shards)), id));
        return Optional.ofNullable(value).map(v -> PoolValues.decode(id, v));
    }

    Map<String, JobStatus> statuses(List<String> ids) {
        Map<String, JobStatus> statuses = new LinkedHashMap<>();
        for (var entry : byShard(ids).entrySet()) {
            List<String> shardIds = entry.getValue();
            List<String> values = call(() -> redis.hmget(keys.pool(entry.getKey()), shardIds.toArray(String[]::new)));
            for (int i = 0; i < shardIds.size(); i++) {
                String value = values.get(i);
                if (value != null) {
                    statuses.put(shardIds.get(i), JobStatus.valueOf(value.substring(0, value.indexOf('|'))));
                }
            }
        }
        return statuses;
    }

    ShardStats stats(int shard) {
        return call(() -> {
            Map<JobStatus, Long> byStatus = new EnumMap<>(JobStatus.class);
            for (JobStatus s : JobStatus.values()) {
                byStatus.put(s, 0L);
            }
            redis.hgetAll(keys.counts(shard)).forEach((k, v) -> byStatus.put(JobStatus.valueOf(k), Long.parseLong(v)));
            long bucket = redis.zcard(keys.bucket(shard));
            Map<String, Long> ready = new LinkedHashMap<>();
            for (String topic : redis.smembers(keys.topics(shard))) {
                long len = redis.llen(keys.ready(shard, topic));
                if (len > 0) {
                    ready.put(topic, len);
                }
            }
            return new ShardStats(shard, byStatus, bucket, ready);
        });
    }

    /** {@code ids} by shard, shards in ascending order. */
    private Map<Integer, List<String>> byShard(List<String> ids) {
        Map<Integer, List<String>> byShard = new TreeMap<>();
        for (String id : ids) {
            byShard.computeIfAbsent(JobIds.shardOf(id, shards), s -> new ArrayList<>())
                    .add(id);
        }
        return byShard;
    }
}
