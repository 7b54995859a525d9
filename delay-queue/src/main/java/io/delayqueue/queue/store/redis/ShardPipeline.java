package io.delayqueue.queue.store.redis;

import static io.delayqueue.queue.store.redis.RedisFailures.call;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobIds;
import io.delayqueue.queue.store.Attempt;
import io.delayqueue.queue.store.Outcome;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.IntFunction;
import java.util.function.LongFunction;
import java.util.function.ToLongFunction;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * A script run over jobs of many shards at once (push, admit, finish): the jobs are grouped by shard, the script is run
 * once per shard, all shards in one pipeline ({@link LuaScript#runAll}), and each job gets the number its
 * shard's run answered for it. A shard whose run failed leaves its jobs without a result and the others keep
 * theirs.
 *
 * <p>Threading: one per store, used by every thread that calls the store; it holds no state of its own, and each
 * call uses a pipeline of its own.
 */
final class ShardPipeline {
    /** Under the store's name, where operators look for its warnings. */
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(RedisJobStore.class);

    private final UnifiedJedis redis;
    private final int shards;

    ShardPipeline(UnifiedJedis redis, int shards) {
        this.redis = redis;
        this.shards = shards;
    }

    /**
     * Runs {@code script} once per shard of {@code jobs}, all shards in one pipeline (one round trip, not one per
     * shard), with the (id, pool value, bucket score) triples of the shard's jobs, and reads back one number per job.
     * Results are in the order of {@code jobs}; a shard whose call failed leaves its jobs {@code null} (the others
     * are kept), and when every shard failed, the failure is thrown.
     */
    <T> List<T> perShard(
            List<Job> jobs,
            ToLongFunction<Job> scoreOf,
            LuaScript script,
            BiFunction<Integer, List<Job>, List<String>> keysOf,
            LongFunction<T> result,
            String failedShardLog,
            IntFunction<T[]> newArray) {
        Map<Integer, List<Integer>> byShard =
                positionsByShard(jobs.size(), i -> jobs.get(i).id());
        List<LuaScript.Call> calls = new ArrayList<>(byShard.size());
        for (var entry : byShard.entrySet()) {
            int shard = entry.getKey();
            List<Job> shardJobs = new ArrayList<>(entry.getValue().size());
            List<String> args = new ArrayList<>(entry.getValue().size() * 3);
            for (int i : entry.getValue()) {
                Job job = jobs.get(i);
                shardJobs.add(job);
                args.add(job.id());
                args.add(PoolValues.encode(job));
                args.add(Long.toString(scoreOf.applyAsLong(job)));
            }
            calls.add(new LuaScript.Call(keysOf.apply(shard, shardJobs), args));
        }
        T[] out = newArray.apply(jobs.size());
        runSpreading(script, byShard, calls, failedShardLog, (positions, results) -> {
            for (int k = 0; k < results.size(); k++) {
                out[positions.get(k)] = result.apply((Long) results.get(k));
            }
        });
        return Collections.unmodifiableList(Arrays.asList(out));
    }

    /**
     * finish.lua once per shard of {@code attempts}, all shards in one pipeline: the outcomes in the order of
     * {@code attempts}, {@code null} for the jobs of a shard whose call failed (the others are kept); when every
     * shard failed, the failure is thrown.
     */
    List<Outcome> finishAttempts(
            LuaScript finish, IntFunction<List<String>> keysOf, List<Attempt> attempts, long now, long retentionMs) {
        Map<Integer, List<Integer>> byShard =
                positionsByShard(attempts.size(), i -> attempts.get(i).id());
        List<LuaScript.Call> calls = new ArrayList<>(byShard.size());
        for (var entry : byShard.entrySet()) {
            List<String> args = new ArrayList<>(entry.getValue().size() * 2 + 2);
            args.add(Long.toString(now));
            args.add(Long.toString(retentionMs));
            for (int i : entry.getValue()) {
                args.add(attempts.get(i).id());
                args.add(attempts.get(i).argument());
            }
            calls.add(new LuaScript.Call(keysOf.apply(entry.getKey()), args));
        }
        Outcome[] out = new Outcome[attempts.size()];
        runSpreading(
                finish,
                byShard,
                calls,
                "Redis did not answer the finish of {} jobs of one shard: {}",
                (positions, r) -> {
                    List<Outcome> outcomes = Replies.outcomes(r);
                    for (int k = 0; k < outcomes.size(); k++) {
                        out[positions.get(k)] = outcomes.get(k);
                    }
                });
        return Collections.unmodifiableList(Arrays.asList(out));
    }

    /** The positions of {@code size} items by the shard of each one's id ({@code idAt}), shards in order. */
    private Map<Integer, List<Integer>> positionsByShard(int size, IntFunction<String> idAt) {
        Map<Integer, List<Integer>> byShard = new TreeMap<>();
        for (int i = 0; i < size; i++) {
            byShard.computeIfAbsent(JobIds.shardOf(idAt.apply(i), shards), s -> new ArrayList<>())
                    .add(i);
        }
        return byShard;
    }

    /**
     * Runs {@code calls} (one per shard of {@code byShard}, in its order) in one pipeline and hands each shard's
     * reply to {@code spread} with the positions of its items. A shard whose call failed is logged ({@code
     * failedShardLog}: its item count, the failure) and left out; when every shard failed, the failure is thrown.
     */
    private void runSpreading(
            LuaScript script,
            Map<Integer, List<Integer>> byShard,
            List<LuaScript.Call> calls,
            String failedShardLog,
            BiConsumer<List<Integer>, List<?>> spread) {
        List<Object> replies = call(() -> script.runAll(redis, calls));
        int c = 0;
        JedisException failure = null;
        int failedShards = 0;
        for (List<Integer> positions : byShard.values()) {
            Object reply = replies.get(c++);
            if (reply instanceof JedisException failed) { // this shard's call failed: its items stay without a result
                failure = failed;
                failedShards++;
                log.warn(failedShardLog, positions.size(), failed.toString());
                continue;
            }
            spread.accept(positions, (List<?>) reply);
        }
        if (failedShards == byShard.size() && failure != null) {
            JedisException everyShard = failure;
            call(() -> {
                throw everyShard;
            });
        }
    }
}
