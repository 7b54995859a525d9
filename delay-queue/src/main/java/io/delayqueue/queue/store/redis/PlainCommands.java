package io.delayqueue.queue.store.redis;

import static io.delayqueue.queue.store.redis.RedisFailures.call;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobIds;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.store.ShardStats;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.params.SetParams;
import redis.clients.jedis.resps.ScanResult;

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
    /** Topics read per {@code SSCAN} of a shard's topic set (and list lengths per pipeline). */
    private static final int TOPIC_PAGE = 1000;

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

    List<String> deadBefore(String topic, int shard, long before, int limit) {
        return call(() -> redis.zrangeByScore(keys.dead(shard, topic), "-inf", "(" + before, 0, limit));
    }

    /** Every topic in the shard's topic set (those with jobs), a page of {@link #TOPIC_PAGE} at a time. */
    List<String> topics(int shard) {
        return call(() -> {
            List<String> topics = new ArrayList<>();
            ScanParams page = new ScanParams().count(TOPIC_PAGE);
            String cursor = ScanParams.SCAN_POINTER_START;
            do {
                ScanResult<String> found = redis.sscan(keys.topics(shard), cursor, page);
                topics.addAll(found.getResult());
                cursor = found.getCursor();
            } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
            return topics;
        });
    }

    long countDead(String topic, int shard) {
        return call(() -> redis.zcard(keys.dead(shard, topic)));
    }

    Map<String, Long> countDead(Collection<String> topics) {
        return call(() -> {
            Map<String, List<Response<Long>>> sizes = new LinkedHashMap<>();
            try (AbstractPipeline pipeline = redis.pipelined()) {
                for (String topic : topics) {
                    List<Response<Long>> perShard = new ArrayList<>(shards);
                    for (int shard = 0; shard < shards; shard++) {
                        perShard.add(pipeline.zcard(keys.dead(shard, topic)));
                    }
                    sizes.put(topic, perShard);
                }
                pipeline.sync();
            }
            Map<String, Long> counts = new LinkedHashMap<>();
            sizes.forEach((topic, perShard) ->
                    counts.put(topic, perShard.stream().mapToLong(Response::get).sum()));
            return counts;
        });
    }

    Optional<Job> find(String id) {
        String value = call(() -> redis.hget(keys.pool(JobIds.shardOf(id, shards)), id));
        return Optional.ofNullable(value).map(v -> PoolValues.decode(id, v));
    }

    Map<String, Job> findAll(List<String> ids) {
        Map<String, Job> found = new LinkedHashMap<>();
        poolValues(ids).forEach((id, value) -> found.put(id, PoolValues.decode(id, value)));
        return found;
    }

    Map<String, JobStatus> statuses(List<String> ids) {
        Map<String, JobStatus> statuses = new LinkedHashMap<>();
        poolValues(ids)
                .forEach((id, value) -> statuses.put(id, JobStatus.valueOf(value.substring(0, value.indexOf('|')))));
        return statuses;
    }

    /** The stored values of the jobs Redis holds, by id: one {@code HMGET} per shard. */
    private Map<String, String> poolValues(List<String> ids) {
        Map<String, String> found = new LinkedHashMap<>();
        for (var entry : byShard(ids).entrySet()) {
            List<String> shardIds = entry.getValue();
            List<String> values = call(() -> redis.hmget(keys.pool(entry.getKey()), shardIds.toArray(String[]::new)));
            for (int i = 0; i < shardIds.size(); i++) {
                if (values.get(i) != null) {
                    found.put(shardIds.get(i), values.get(i));
                }
            }
        }
        return found;
    }

    /**
     * The counts per status, the bucket's size and the length of each ready list that is not empty: one pipeline
     * for the first two, then, when the shard holds READY jobs, the shard's topics (those with jobs: {@link
     * RedisKeys#topics}) a page of {@link #TOPIC_PAGE} at a time ({@code SSCAN}) with the page's list lengths in one
     * pipeline, so a shard of many topics costs two round trips per page, not one per topic.
     *
     * @param countTopics run when the shard's jobs per topic were never counted, before its topics are read
     */
    ShardStats stats(int shard, Runnable countTopics) {
        return call(() -> {
            Response<Map<String, String>> counts;
            Response<Long> bucket;
            Response<Boolean> counted;
            try (AbstractPipeline pipeline = redis.pipelined()) {
                counts = pipeline.hgetAll(keys.counts(shard));
                bucket = pipeline.zcard(keys.bucket(shard));
                counted = pipeline.hexists(keys.topicJobs(shard), "~counted");
                pipeline.sync();
            }
            if (!counted.get()) {
                countTopics.run();
            }
            Map<JobStatus, Long> byStatus = new EnumMap<>(JobStatus.class);
            for (JobStatus s : JobStatus.values()) {
                byStatus.put(s, 0L);
            }
            counts.get().forEach((k, v) -> byStatus.put(JobStatus.valueOf(k), Long.parseLong(v)));
            // no READY job: any id a list still holds is of a job deleted since (a reserve drops it); none is read
            Map<String, Long> ready = byStatus.get(JobStatus.READY) > 0 ? readyLengths(shard) : Map.of();
            return new ShardStats(shard, byStatus, bucket.get(), ready);
        });
    }

    /** The length of each ready list of the shard that is not empty, by topic (sorted). */
    Map<String, Long> readyLengths(int shard) {
        return call(() -> {
            Map<String, Long> lengths = new TreeMap<>();
            ScanParams page = new ScanParams().count(TOPIC_PAGE);
            String cursor = ScanParams.SCAN_POINTER_START;
            do {
                ScanResult<String> topics = redis.sscan(keys.topics(shard), cursor, page);
                cursor = topics.getCursor();
                if (topics.getResult().isEmpty()) {
                    continue;
                }
                List<Response<Long>> lens = new ArrayList<>(topics.getResult().size());
                try (AbstractPipeline pipeline = redis.pipelined()) {
                    for (String topic : topics.getResult()) {
                        lens.add(pipeline.llen(keys.ready(shard, topic)));
                    }
                    pipeline.sync();
                }
                for (int i = 0; i < lens.size(); i++) {
                    long len = lens.get(i).get();
                    if (len > 0) {
                        lengths.put(topics.getResult().get(i), len);
                    }
                }
            } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
            return lengths;
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
