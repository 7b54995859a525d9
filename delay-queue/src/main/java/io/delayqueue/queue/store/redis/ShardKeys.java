package io.delayqueue.queue.store.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The keys each script of a shard is given, and the topics whose keys go with them. Every key a script touches
 * is passed in its KEYS (Redis Cluster and proxies route by them). The keys of a topic (its ready list and dead
 * set) are needed by scripts that learn the topic only from the jobs they read (move_due, retry, undo_delete,
 * clear): they are given the topic keys of every topic this store has met in the shard ({@link #topicsMet}:
 * the topics it pushed, admitted or loaded, and those a script named), and a script that meets another topic
 * writes nothing and names it, and is run again with its keys ({@link #runWithTopicKeys}, and lib.lua).
 *
 * <p>Threading: one per store, used by every thread that calls the store. The topics met are concurrent sets
 * that only ever grow, so a thread may add a topic while another builds a key list from the same set; a list
 * built just before the add lacks the topic, and the script that needs it names it and is run again.
 */
final class ShardKeys {
    private static final String UNDECLARED_TOPICS = "undeclared-topics";
    private static final int UNDECLARED_TOPIC_ROUNDS = 8;

    private final RedisKeys keys;
    /** Per shard, the topics whose keys are passed to the scripts that may need them; only ever grows. */
    private final Map<Integer, Set<String>> topicsMet = new ConcurrentHashMap<>();

    ShardKeys(RedisKeys keys) {
        this.keys = keys;
    }

    RedisKeys names() {
        return keys;
    }

    /** The keys every transition of a job touches: its pool hash, the bucket, the status counts, the done set. */
    List<String> shardKeys(int shard) {
        return List.of(keys.pool(shard), keys.bucket(shard), keys.counts(shard), keys.done(shard));
    }

    /** {@link #shardKeys}, then {@code more}. */
    List<String> shardKeysAnd(int shard, String... more) {
        List<String> k = new ArrayList<>(shardKeys(shard));
        k.addAll(List.of(more));
        return k;
    }

    /** {@link #shardKeys}, then the pending deletes and what undoing them puts back. */
    List<String> deleteKeys(int shard) {
        return List.of(
                keys.pool(shard),
                keys.bucket(shard),
                keys.counts(shard),
                keys.done(shard),
                keys.deleting(shard),
                keys.deleteUndo(shard));
    }

    List<String> deadKeys(int shard, String topic) {
        return shardKeysAnd(shard, keys.dead(shard, topic));
    }

    /** The topics met in {@code shard}, to which a caller adds the topics of the jobs it hands a script. */
    Set<String> topicsMet(int shard) {
        return topicsMet.computeIfAbsent(shard, s -> ConcurrentHashMap.newKeySet());
    }

    /**
     * Runs a script that may need the keys of topics it learns from the jobs it reads: {@code fixedKeys}, then the
     * ready list and dead set of every topic met in the shard. A script that needs the keys of another topic writes
     * nothing and answers {@code { 'undeclared-topics', topics }} (lib.lua); the topics are met then, and the
     * script is run again. Topics are only ever added, so this ends; a script that still names topics after
     * {@link #UNDECLARED_TOPIC_ROUNDS} runs (new topics arriving faster than the runs) is an error.
     *
     * @param run runs the script once with the given keys and answers its reply
     */
    Object runWithTopicKeys(String script, int shard, List<String> fixedKeys, Function<List<String>, Object> run) {
        Set<String> met = topicsMet(shard);
        for (int round = 0; round < UNDECLARED_TOPIC_ROUNDS; round++) {
            List<String> k = new ArrayList<>(fixedKeys.size() + 2 * met.size());
            k.addAll(fixedKeys);
            for (String topic : met) {
                k.add(keys.ready(shard, topic));
                k.add(keys.dead(shard, topic));
            }
            Object result = run.apply(k);
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
                "script " + script + " of shard " + shard + " kept naming topics whose keys it lacked");
    }
}
