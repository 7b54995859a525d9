package io.delayqueue.queue.store.redis;

import io.delayqueue.queue.store.DueBatch;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The keys each script of a shard is given, and the topics whose keys go with them. Every key a script touches
 * is passed in its KEYS (Redis Cluster and proxies route by them). The keys of a topic (its ready list and dead
 * set) are needed by scripts that learn the topic only from the jobs they read (move_due, retry, undo_delete):
 * they are given the keys of the topics used recently in the shard ({@link #HOT_TOPICS} at most: the topics
 * their replies named or moved jobs to), never those of every topic the shard has had, so that what a call
 * costs follows what it touches. A script that needs another topic writes nothing and names it (at most {@link
 * #MAX_NAMED_TOPICS} per reply), and is run again with its keys ({@link #runWithTopicKeys}, and lib.lua).
 *
 * <p>Bounds: a run carries the fixed keys, the keys of at most {@link #HOT_TOPICS} recent topics and of at most
 * {@link #MAX_NAMED_TOPICS} named ones. A move whose due jobs need more topics than that moves them over several
 * calls (move_due ends its batch before the job that would need one more); an undo of more deletes is run in
 * chunks of {@link #MAX_NAMED_TOPICS} ids; clear is given at most {@link #MAX_TOPICS_PER_CALL} ready lists a call.
 *
 * <p>Threading: one per store, used by every thread that calls the store. Each shard's recent topics are a small
 * LRU map guarded by its own lock; a run that starts while another thread adds a topic may lack it, and the
 * script that needs it names it and is run again.
 */
final class ShardKeys {
    /** Recently used topics per shard whose keys every run of a topic-reading script carries. */
    static final int HOT_TOPICS = 32;
    /** The most topics one script reply names (MAX_NAMED_TOPICS of lib.lua: keep them equal). */
    static final int MAX_NAMED_TOPICS = 256;
    /** The most ready lists one run of clear is given. */
    static final int MAX_TOPICS_PER_CALL = 256;

    private static final String UNDECLARED_TOPICS = "undeclared-topics";
    private static final int UNDECLARED_TOPIC_ROUNDS = 8;

    private final RedisKeys keys;
    private final Map<Integer, RecentTopics> recent = new ConcurrentHashMap<>();

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

    /**
     * {@link #shardKeys}, then the pending deletes, what undoing them puts back and how many deletes hold each, then
     * the topics' counts ({@link #countedKeys}).
     */
    List<String> deleteKeys(int shard) {
        return List.of(
                keys.pool(shard),
                keys.bucket(shard),
                keys.counts(shard),
                keys.done(shard),
                keys.deleting(shard),
                keys.deleteUndo(shard),
                keys.deleteHolders(shard),
                keys.topics(shard),
                keys.topicJobs(shard));
    }

    /**
     * {@link #shardKeys}, then {@code more}, then the topic set and the jobs per topic: the keys of a script that adds
     * jobs or makes them final, which keeps the topics' counts (lib.lua) and forgets a topic with no job left.
     */
    List<String> countedKeys(int shard, String... more) {
        List<String> k = shardKeysAnd(shard, more);
        k.add(keys.topics(shard));
        k.add(keys.topicJobs(shard));
        return k;
    }

    List<String> deadKeys(int shard, String topic) {
        return shardKeysAnd(shard, keys.dead(shard, topic));
    }

    /** Marks topics as used in {@code shard} (their jobs were just moved there), so the next runs carry their keys. */
    void used(int shard, Collection<String> topics) {
        if (!topics.isEmpty()) {
            recent(shard).touch(topics);
        }
    }

    /** Marks the topics a move made jobs ready or dead in as used. */
    void usedBy(int shard, DueBatch batch) {
        if (!batch.madeReady().isEmpty() || !batch.madeDead().isEmpty()) {
            Set<String> topics = new HashSet<>();
            batch.madeReady().forEach(m -> topics.add(m.topic()));
            batch.madeDead().forEach(m -> topics.add(m.topic()));
            used(shard, topics);
        }
    }

    /** The topics whose keys the next run in {@code shard} carries up front, most recently used last. */
    List<String> recentTopics(int shard) {
        return recent(shard).topics();
    }

    private RecentTopics recent(int shard) {
        return recent.computeIfAbsent(shard, s -> new RecentTopics());
    }

    /**
     * Runs a script that may need the keys of topics it learns from the jobs it reads: {@code fixedKeys}, then the
     * ready list and dead set of each topic used recently in the shard. A script that needs the keys of another
     * topic writes nothing and answers {@code { 'undeclared-topics', topics }} (lib.lua); it is run again with the
     * keys of those topics too, and they count as used. A script that still names topics after {@link
     * #UNDECLARED_TOPIC_ROUNDS} runs (its jobs changing under it faster than the runs) is an error.
     *
     * @param run runs the script once with the given keys and answers its reply
     */
    Object runWithTopicKeys(String script, int shard, List<String> fixedKeys, Function<List<String>, Object> run) {
        List<String> named = List.of();
        for (int round = 0; round < UNDECLARED_TOPIC_ROUNDS; round++) {
            List<String> topics = recentTopics(shard);
            List<String> k = new ArrayList<>(fixedKeys.size() + 2 * (topics.size() + named.size()));
            k.addAll(fixedKeys);
            for (String topic : topics) {
                addTopicKeys(k, shard, topic);
            }
            for (String topic : named) {
                if (!topics.contains(topic)) {
                    addTopicKeys(k, shard, topic);
                }
            }
            Object result = run.apply(k);
            if (!(result instanceof List<?> reply
                    && reply.size() == 2
                    && UNDECLARED_TOPICS.equals(reply.get(0))
                    && reply.get(1) instanceof List<?> names)) {
                return result;
            }
            named = Replies.strings(names);
            used(shard, named);
        }
        throw new IllegalStateException(
                "script " + script + " of shard " + shard + " kept naming topics whose keys it lacked");
    }

    private void addTopicKeys(List<String> k, int shard, String topic) {
        k.add(keys.ready(shard, topic));
        k.add(keys.dead(shard, topic));
    }

    /** The {@link #HOT_TOPICS} topics of one shard used last (an access-ordered map, eldest dropped). */
    private static final class RecentTopics {
        private final LinkedHashMap<String, Boolean> topics = new LinkedHashMap<>(HOT_TOPICS * 2, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                return size() > HOT_TOPICS;
            }
        };

        synchronized void touch(Collection<String> used) {
            for (String topic : used) {
                topics.put(topic, Boolean.TRUE);
            }
        }

        synchronized List<String> topics() {
            return new ArrayList<>(topics.keySet());
        }
    }
}
