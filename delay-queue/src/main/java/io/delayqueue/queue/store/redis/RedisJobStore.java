package io.delayqueue.queue.store.redis;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.Job;
import io.delayqueue.common.JobIds;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.journal.JobCursor;
import io.delayqueue.queue.store.Attempt;
import io.delayqueue.queue.store.DueBatch;
import io.delayqueue.queue.store.DueRouting;
import io.delayqueue.queue.store.JobStore;
import io.delayqueue.queue.store.Outcome;
import io.delayqueue.queue.store.ShardStats;
import io.delayqueue.queue.store.StaleEpochException;
import io.delayqueue.queue.store.StoreListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BiFunction;
import java.util.function.IntFunction;
import java.util.function.LongFunction;
import java.util.function.Supplier;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.params.SetParams;

/**
 * {@link JobStore} on Redis (Jedis {@link UnifiedJedis}: a single node, Sentinel or Cluster). Each
 * transition is one Lua script over the keys of one shard (see {@link RedisKeys}); the scripts are the
 * state machine, this class only encodes arguments and decodes replies.
 *
 * <p>Every key a script touches is passed in its KEYS (Redis Cluster and proxies route by them). The keys of a
 * topic (its ready list and dead set) are needed by scripts that learn the topic only from the jobs they read
 * (move_due, retry, undo_delete, clear): they are given the topic keys of every topic this store has met in the
 * shard ({@link #topicsMet}: the topics it pushed, admitted or loaded, and those a script named), and a script
 * that meets another topic writes nothing and names it, and is run again with its keys (see lib.lua).
 */
public final class RedisJobStore implements JobStore {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(RedisJobStore.class);
    private static final int PURGE_PER_MOVE = 200;

    private final UnifiedJedis redis;
    private final RedisKeys keys;
    private final int shards;
    private final long retentionMs;
    private final boolean ownsClient;
    /** Per shard, the topics whose keys are passed to the scripts that may need them; only ever grows. */
    private final Map<Integer, Set<String>> topicsMet = new ConcurrentHashMap<>();

    private final LuaScript push = LuaScript.load("push");
    private final LuaScript moveDue = LuaScript.load("move_due");
    private final LuaScript reserve = LuaScript.load("reserve");
    private final LuaScript finish = LuaScript.load("finish");
    private final LuaScript delete = LuaScript.load("delete");
    private final LuaScript retry = LuaScript.load("retry");
    private final LuaScript clear = LuaScript.load("clear");
    private final LuaScript confirmDelete = LuaScript.load("confirm_delete");
    private final LuaScript undoDelete = LuaScript.load("undo_delete");
    private final LuaScript defer = LuaScript.load("defer");
    private final LuaScript requeueDead = LuaScript.load("requeue_dead");
    private final LuaScript tierIntent = LuaScript.load("tier_intent");
    private final LuaScript tierLoad = LuaScript.load("tier_load");
    private final LuaScript tierAdmit = LuaScript.load("tier_admit");

    /**
     * @param retention how long a finished or deleted job stays readable (and its id taken) in Redis
     * @param ownsClient whether {@link #close()} closes {@code redis}
     */
    public RedisJobStore(UnifiedJedis redis, String prefix, int shards, Duration retention, boolean ownsClient) {
        if (shards < 1) {
            throw new IllegalArgumentException("shards must be at least 1");
        }
        this.redis = redis;
        this.keys = new RedisKeys(prefix);
        this.shards = shards;
        this.retentionMs = retention.toMillis();
        this.ownsClient = ownsClient;
    }

    /** Hears every script run: its name is the operation ({@code push}, {@code move_due}, ...), a fixed set. */
    @Override
    public void setListener(StoreListener listener) {
        for (LuaScript script : List.of(
                push,
                moveDue,
                reserve,
                finish,
                delete,
                retry,
                clear,
                confirmDelete,
                undoDelete,
                defer,
                requeueDead,
                tierIntent,
                tierLoad,
                tierAdmit)) {
            script.setListener(listener);
        }
    }

    public RedisKeys keys() {
        return keys;
    }

    @Override
    public int shards() {
        return shards;
    }

    /**
     * {@code INCR} on {@link RedisKeys#idNode()}, modulo {@link JobIds#NODES}. A missing counter (a new queue, or
     * a Redis that lost its data) is first seeded with a random number ({@code SET NX}), so that instances
     * that claimed before the loss and those that claim after it are unlikely to meet. Two single-key
     * commands: fine on a Redis Cluster, and two claimers racing on the seed still get different numbers.
     */
    @Override
    public int claimIdNode() {
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

    @Override
    public List<Boolean> push(List<Job> jobs) {
        return perShard(
                jobs,
                push,
                (shard, shardJobs) -> {
                    List<String> k = new ArrayList<>(shardKeys(shard));
                    k.add(keys.topics(shard));
                    for (Job job : shardJobs) {
                        if (job.status() == JobStatus.DEAD && !k.contains(keys.dead(shard, job.topic()))) {
                            k.add(keys.dead(shard, job.topic()));
                        }
                    }
                    return k;
                },
                r -> r == 1L,
                "Redis did not take {} pushed jobs of one shard: {}",
                Boolean[]::new);
    }

    /**
     * Runs {@code script} once per shard of {@code jobs}, all shards in one pipeline (one round trip, not one per
     * shard), with the (id, pool value, due) triples of the shard's jobs, and reads back one number per job.
     * Results are in the order of {@code jobs}; a shard whose call failed leaves its jobs {@code null} (the others
     * are kept), and when every shard failed, the failure is thrown.
     */
    private <T> List<T> perShard(
            List<Job> jobs,
            LuaScript script,
            BiFunction<Integer, List<Job>, List<String>> keysOf,
            LongFunction<T> result,
            String failedShardLog,
            IntFunction<T[]> newArray) {
        Map<Integer, List<Integer>> byShard = new TreeMap<>();
        for (int i = 0; i < jobs.size(); i++) {
            byShard.computeIfAbsent(shardOf(jobs.get(i).id()), s -> new ArrayList<>())
                    .add(i);
        }
        List<LuaScript.Call> calls = new ArrayList<>(byShard.size());
        for (var entry : byShard.entrySet()) {
            int shard = entry.getKey();
            Set<String> met = topicsMet(shard);
            List<Job> shardJobs = new ArrayList<>(entry.getValue().size());
            List<String> args = new ArrayList<>(entry.getValue().size() * 3);
            for (int i : entry.getValue()) {
                Job job = jobs.get(i);
                shardJobs.add(job);
                met.add(job.topic());
                args.add(job.id());
                args.add(PoolValues.encode(job));
                args.add(Long.toString(job.executeAt()));
            }
            calls.add(new LuaScript.Call(keysOf.apply(shard, shardJobs), args));
        }
        List<Object> replies = call(() -> script.runAll(redis, calls));
        T[] out = newArray.apply(jobs.size());
        int c = 0;
        JedisException failure = null;
        int failedShards = 0;
        for (List<Integer> positions : byShard.values()) {
            Object reply = replies.get(c++);
            if (reply instanceof JedisException failed) { // this shard's call failed: its jobs stay null
                failure = failed;
                failedShards++;
                log.warn(failedShardLog, positions.size(), failed.toString());
                continue;
            }
            List<?> results = (List<?>) reply;
            for (int k = 0; k < results.size(); k++) {
                out[positions.get(k)] = result.apply((Long) results.get(k));
            }
        }
        if (failedShards == byShard.size() && failure != null) {
            JedisException everyShard = failure;
            return call(() -> {
                throw everyShard;
            });
        }
        return Collections.unmodifiableList(Arrays.asList(out));
    }

    @Override
    public long takeEpoch(int shard) {
        return call(() -> redis.incr(keys.epoch(shard)));
    }

    @Override
    public DueBatch moveDue(
            int shard, long now, long leadMs, int limit, DueRouting routing, long dispatchTimeoutMs, long epoch) {
        List<String> args = new ArrayList<>(7 + routing.exceptions().size());
        args.add(Long.toString(now));
        args.add(Integer.toString(limit));
        args.add(routing.defaultPull() ? "1" : "0");
        args.add(Long.toString(dispatchTimeoutMs));
        args.add(Integer.toString(PURGE_PER_MOVE));
        args.add(Long.toString(leadMs));
        args.add(Long.toString(epoch));
        args.addAll(routing.exceptions());
        List<String> k = new ArrayList<>(shardKeys(shard));
        k.add(keys.epoch(shard));
        Object result = runWithTopicKeys(moveDue, shard, k, args);
        if (result instanceof Long current) {
            throw new StaleEpochException(shard, epoch, current);
        }
        List<?> reply = (List<?>) result;

        List<?> dispatchReply = (List<?>) reply.get(0);
        List<Job> toDispatch = new ArrayList<>(dispatchReply.size() / 2);
        for (int i = 0; i < dispatchReply.size(); i += 2) {
            toDispatch.add(PoolValues.decode((String) dispatchReply.get(i), (String) dispatchReply.get(i + 1)));
        }
        List<?> readyReply = (List<?>) reply.get(1);
        List<DueBatch.Moved> ready = new ArrayList<>(readyReply.size() / 3);
        for (int i = 0; i < readyReply.size(); i += 3) {
            ready.add(new DueBatch.Moved(
                    (String) readyReply.get(i), (String) readyReply.get(i + 1), Long.parseLong((String)
                            readyReply.get(i + 2))));
        }
        List<?> deadReply = (List<?>) reply.get(2);
        List<DueBatch.Moved> dead = new ArrayList<>(deadReply.size() / 2);
        for (int i = 0; i < deadReply.size(); i += 2) {
            dead.add(new DueBatch.Moved((String) deadReply.get(i), (String) deadReply.get(i + 1), now));
        }
        List<?> expiredReply = (List<?>) reply.get(3);
        List<DueBatch.Moved> expired = new ArrayList<>(expiredReply.size() / 2);
        for (int i = 0; i < expiredReply.size(); i += 2) {
            expired.add(new DueBatch.Moved((String) expiredReply.get(i), (String) expiredReply.get(i + 1), now));
        }
        int scanned = ((Long) reply.get(4)).intValue();
        Object next = reply.get(5);
        OptionalLong nextMoveAt = next == null ? OptionalLong.empty() : OptionalLong.of(parseScore((String) next));
        return new DueBatch(toDispatch, ready, dead, expired, scanned, nextMoveAt);
    }

    @Override
    public Optional<Job> reserve(String topic, int shard, long now) {
        List<String> k = new ArrayList<>(shardKeys(shard));
        k.add(keys.ready(shard, topic));
        Object reply = call(() -> reserve.run(redis, k, List.of(Long.toString(now))));
        if (reply == null) {
            return Optional.empty();
        }
        List<?> pair = (List<?>) reply;
        return Optional.of(PoolValues.decode((String) pair.get(0), (String) pair.get(1)));
    }

    @Override
    public List<Outcome> finishAttempts(int shard, List<Attempt> attempts, long now) {
        if (attempts.isEmpty()) {
            return List.of();
        }
        List<String> args = new ArrayList<>(attempts.size() * 2 + 2);
        args.add(Long.toString(now));
        args.add(Long.toString(retentionMs));
        for (Attempt attempt : attempts) {
            args.add(attempt.id());
            args.add(attempt.argument());
        }
        List<?> reply = (List<?>) call(() -> finish.run(redis, shardKeys(shard), args));
        List<Outcome> outcomes = new ArrayList<>(attempts.size());
        for (int i = 0; i < reply.size(); i += 2) {
            outcomes.add(outcome(reply.get(i), reply.get(i + 1)));
        }
        return outcomes;
    }

    @Override
    public Outcome beginDelete(String id, long now, Job tombstone) {
        int shard = shardOf(id);
        List<String> args = new ArrayList<>(3);
        args.add(Long.toString(now));
        args.add(id);
        if (tombstone != null) {
            args.add(PoolValues.encode(
                    tombstone.withState(JobStatus.DELETED, tombstone.attempts(), tombstone.executeAt())));
        }
        List<?> reply = (List<?>) call(() -> delete.run(redis, deleteKeys(shard), args));
        return outcome(reply.get(0), reply.size() > 1 ? reply.get(1) : null);
    }

    @Override
    public List<String> confirmDeletes(int shard, List<String> ids, long now) {
        if (ids.isEmpty()) {
            return List.of();
        }
        List<String> args = new ArrayList<>(ids.size() + 2);
        args.add(Long.toString(now));
        args.add(Long.toString(retentionMs));
        args.addAll(ids);
        List<?> reply = (List<?>) call(() -> confirmDelete.run(redis, deleteKeys(shard), args));
        List<String> topics = new ArrayList<>(reply.size());
        for (Object topic : reply) {
            topics.add((String) topic);
        }
        return topics;
    }

    @Override
    public Map<String, Long> undoDeletes(int shard, List<String> ids) {
        if (ids.isEmpty()) {
            return Map.of();
        }
        List<?> reply = (List<?>) runWithTopicKeys(undoDelete, shard, deleteKeys(shard), ids);
        Map<String, Long> undone = new LinkedHashMap<>();
        for (int i = 0; i < reply.size(); i += 2) {
            Object due = reply.get(i + 1);
            undone.put((String) reply.get(i), due == null ? null : Long.parseLong((String) due));
        }
        return undone;
    }

    @Override
    public List<String> pendingDeletes(int shard, long begunBefore, int limit) {
        return call(() -> redis.zrangeByScore(keys.deleting(shard), "-inf", "(" + begunBefore, 0, limit));
    }

    @Override
    public Set<String> pendingDeletesAmong(List<String> ids) {
        Map<Integer, List<String>> byShard = new TreeMap<>();
        for (String id : ids) {
            byShard.computeIfAbsent(shardOf(id), s -> new ArrayList<>()).add(id);
        }
        Set<String> pending = new HashSet<>();
        for (var entry : byShard.entrySet()) {
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

    @Override
    public Outcome retry(Attempt attempt, long retryAt) {
        int shard = shardOf(attempt.id());
        List<String> args = List.of(attempt.id(), Long.toString(retryAt), attempt.argument());
        List<?> reply = (List<?>) runWithTopicKeys(retry, shard, shardKeys(shard), args);
        return outcome(reply.get(0), reply.size() > 1 ? reply.get(1) : null);
    }

    @Override
    public Map<String, Outcome> deferAttempts(int shard, Map<Attempt, Long> retryAtByAttempt) {
        if (retryAtByAttempt.isEmpty()) {
            return Map.of();
        }
        List<String> ids = new ArrayList<>(retryAtByAttempt.size());
        List<String> args = new ArrayList<>(retryAtByAttempt.size() * 3);
        retryAtByAttempt.forEach((attempt, at) -> {
            ids.add(attempt.id());
            args.add(attempt.id());
            args.add(Long.toString(at));
            args.add(attempt.argument());
        });
        List<?> reply = (List<?>) call(() -> defer.run(redis, shardKeys(shard), args));
        Map<String, Outcome> outcomes = new LinkedHashMap<>();
        for (int i = 0; i < ids.size(); i++) {
            outcomes.put(ids.get(i), outcome(reply.get(2 * i), reply.get(2 * i + 1)));
        }
        return outcomes;
    }

    @Override
    public List<Job> listDead(String topic, int shard, int limit) {
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

    @Override
    public long countDead(String topic, int shard) {
        return call(() -> redis.zcard(keys.dead(shard, topic)));
    }

    @Override
    public List<Outcome> requeueDead(String topic, int shard, List<String> ids, long now) {
        if (ids.isEmpty()) {
            return List.of();
        }
        List<String> args = new ArrayList<>(ids.size() + 3);
        args.add(Long.toString(now));
        args.add(topic);
        args.add("ids");
        args.addAll(ids);
        List<?> reply = (List<?>) call(() -> requeueDead.run(redis, deadKeys(shard, topic), args));
        List<Outcome> outcomes = new ArrayList<>(ids.size());
        for (int i = 0; i < reply.size(); i += 2) {
            outcomes.add(outcome(reply.get(i), reply.get(i + 1)));
        }
        return outcomes;
    }

    @Override
    public Requeued requeueOldestDead(String topic, int shard, int limit, long now) {
        List<String> args = List.of(Long.toString(now), topic, "oldest", Integer.toString(limit));
        List<?> reply = (List<?>) call(() -> requeueDead.run(redis, deadKeys(shard, topic), args));
        List<String> ids = new ArrayList<>();
        for (Object id : (List<?>) reply.get(0)) {
            ids.add((String) id);
        }
        return new Requeued(ids, ((Long) reply.get(1)) >= limit);
    }

    @Override
    public Optional<Job> find(String id) {
        String value = call(() -> redis.hget(keys.pool(shardOf(id)), id));
        return Optional.ofNullable(value).map(v -> PoolValues.decode(id, v));
    }

    @Override
    public Map<String, JobStatus> statuses(List<String> ids) {
        Map<Integer, List<String>> byShard = new TreeMap<>();
        for (String id : ids) {
            byShard.computeIfAbsent(shardOf(id), s -> new ArrayList<>()).add(id);
        }
        Map<String, JobStatus> statuses = new LinkedHashMap<>();
        for (var entry : byShard.entrySet()) {
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

    @Override
    public ClearBatch clear(int shard, int offset, int limit, long now) {
        List<String> k = new ArrayList<>(deleteKeys(shard));
        k.add(keys.topics(shard));
        List<?> reply = (List<?>) runWithTopicKeys(
                clear, shard, k, List.of(Long.toString(now), Integer.toString(limit), Integer.toString(offset)));
        List<String> deleted = new ArrayList<>();
        for (Object id : (List<?>) reply.get(0)) {
            deleted.add((String) id);
        }
        return new ClearBatch(deleted, ((Long) reply.get(1)).intValue(), ((Long) reply.get(2)).intValue());
    }

    @Override
    public ShardStats stats(int shard) {
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

    @Override
    public TierMark raiseTierIntent(int shard, long intent, long epoch) {
        Object result = call(() -> tierIntent.run(
                redis,
                List.of(keys.tier(shard), keys.epoch(shard)),
                List.of(Long.toString(intent), Long.toString(epoch))));
        if (result instanceof Long current) {
            throw new StaleEpochException(shard, epoch, current);
        }
        List<?> reply = (List<?>) result;
        return new TierMark(
                parseScore((String) reply.get(0)), cursorOf(reply.size() > 1 ? (String) reply.get(1) : null));
    }

    private static JobCursor cursorOf(String loaded) {
        if (loaded == null) {
            return null;
        }
        int bar = loaded.indexOf('|');
        return new JobCursor(Long.parseLong(loaded.substring(0, bar)), loaded.substring(bar + 1));
    }

    @Override
    public TierLoad loadTier(
            int shard, List<Job> page, JobCursor loadedTo, long readAt, long now, long maxAgeMs, long epoch) {
        List<String> args = new ArrayList<>(6 + page.size() * 3);
        args.add(Long.toString(epoch));
        args.add(Long.toString(readAt));
        args.add(Long.toString(now));
        args.add(Long.toString(maxAgeMs));
        args.add(Long.toString(loadedTo.dueAt()));
        args.add(loadedTo.id());
        Set<String> met = topicsMet(shard);
        for (Job job : page) {
            met.add(job.topic());
            args.add(job.id());
            args.add(PoolValues.encode(job));
            args.add(Long.toString(job.executeAt()));
        }
        List<String> k = new ArrayList<>(shardKeys(shard));
        k.add(keys.tier(shard));
        k.add(keys.epoch(shard));
        k.add(keys.topics(shard));
        Object result = call(() -> tierLoad.run(redis, k, args));
        if (result instanceof Long current) {
            throw new StaleEpochException(shard, epoch, current);
        }
        List<?> reply = (List<?>) result;
        if (reply.get(0) instanceof Long) {
            return new TierLoad(true, List.of(), Long.MAX_VALUE);
        }
        List<String> loaded = new ArrayList<>();
        for (Object id : (List<?>) reply.get(0)) {
            loaded.add((String) id);
        }
        Object earliest = reply.size() > 1 ? reply.get(1) : null;
        return new TierLoad(false, loaded, earliest == null ? Long.MAX_VALUE : parseScore((String) earliest));
    }

    @Override
    public List<Admission> admit(List<Job> jobs) {
        return perShard(
                jobs,
                tierAdmit,
                (shard, shardJobs) -> {
                    List<String> k = new ArrayList<>(shardKeys(shard));
                    k.add(keys.tier(shard));
                    k.add(keys.topics(shard));
                    return k;
                },
                r -> r == 1 ? Admission.ADMITTED : r == 0 ? Admission.PRESENT : Admission.LEFT_TO_LOADER,
                "Redis did not admit {} far jobs of one shard: {}",
                Admission[]::new);
    }

    @Override
    public void close() {
        if (ownsClient) {
            redis.close();
        }
    }

    private int shardOf(String id) {
        return JobIds.shardOf(id, shards);
    }

    private List<String> shardKeys(int shard) {
        return List.of(keys.pool(shard), keys.bucket(shard), keys.counts(shard), keys.done(shard));
    }

    private List<String> deleteKeys(int shard) {
        return List.of(
                keys.pool(shard),
                keys.bucket(shard),
                keys.counts(shard),
                keys.done(shard),
                keys.deleting(shard),
                keys.deleteUndo(shard));
    }

    private Set<String> topicsMet(int shard) {
        return topicsMet.computeIfAbsent(shard, s -> ConcurrentHashMap.newKeySet());
    }

    /**
     * Runs a script that may need the keys of topics it learns from the jobs it reads: {@code fixedKeys}, then the
     * ready list and dead set of every topic met in the shard. A script that needs the keys of another topic writes
     * nothing and answers {@code { 'undeclared-topics', topics }} (lib.lua); the topics are met then, and the
     * script is run again. Topics are only ever added, so this ends; a script that still names topics after
     * {@link #UNDECLARED_TOPIC_ROUNDS} runs (new topics arriving faster than the runs) is an error.
     */
    private Object runWithTopicKeys(LuaScript script, int shard, List<String> fixedKeys, List<String> args) {
        Set<String> met = topicsMet(shard);
        for (int round = 0; round < UNDECLARED_TOPIC_ROUNDS; round++) {
            List<String> k = new ArrayList<>(fixedKeys.size() + 2 * met.size());
            k.addAll(fixedKeys);
            for (String topic : met) {
                k.add(keys.ready(shard, topic));
                k.add(keys.dead(shard, topic));
            }
            Object result = call(() -> script.run(redis, k, args));
            if (!(result instanceof List<?> reply
                    && reply.size() == 2
                    && UNDECLARED_TOPICS.equals(reply.get(0))
                    && reply.get(1) instanceof List<?> topics)) {
                return result;
            }
            for (Object topic : topics) {
                met.add((String) topic);
            }
        }
        throw new IllegalStateException(
                "script " + script.name() + " of shard " + shard + " kept naming topics whose keys it lacked");
    }

    private static final String UNDECLARED_TOPICS = "undeclared-topics";
    private static final int UNDECLARED_TOPIC_ROUNDS = 8;

    private List<String> deadKeys(int shard, String topic) {
        List<String> k = new ArrayList<>(shardKeys(shard));
        k.add(keys.dead(shard, topic));
        return k;
    }

    private static Outcome outcome(Object code, Object status) {
        long c = (Long) code;
        JobStatus s = status == null ? null : JobStatus.valueOf((String) status);
        Outcome.Result result =
                switch ((int) c) {
                    case 1 -> Outcome.Result.APPLIED;
                    case 0 -> Outcome.Result.NOT_FOUND;
                    case 3 -> Outcome.Result.STALE;
                    default -> Outcome.Result.CONFLICT;
                };
        return new Outcome(result, s);
    }

    private static long parseScore(String score) {
        return (long) Double.parseDouble(score);
    }

    private static <T> T call(Supplier<T> action) {
        try {
            return action.get();
        } catch (JedisDataException e) {
            String m = String.valueOf(e.getMessage());
            if (m.startsWith("ERR") || m.contains("script")) {
                throw new IllegalStateException("Redis rejected a delay-queue command: " + m, e);
            }
            throw new DelayQueueException.Unavailable("Redis cannot take the request: " + m, e);
        } catch (JedisException e) {
            throw new DelayQueueException.Unavailable("Redis is unavailable: " + e.getMessage(), e);
        }
    }
}
