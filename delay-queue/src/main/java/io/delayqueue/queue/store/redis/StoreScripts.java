package io.delayqueue.queue.store.redis;

import static io.delayqueue.queue.store.redis.RedisFailures.call;

import io.delayqueue.queue.store.StoreListener;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;

/**
 * The Lua scripts of one store, each loaded once (its source read and hashed; Redis caches it on first use, see
 * {@link LuaScript}), and the single runs of them: {@link #run} for a script whose keys are known, {@link
 * #runWithTopicKeys} for one that may need the keys of topics it learns from the jobs it reads. The scripts are
 * the state machine; their names are the operations a {@link StoreListener} hears.
 *
 * <p>Threading: one per store, used by every thread that calls the store; the scripts are immutable but for
 * their listener (a volatile field), and {@code redis} is the store's shared client.
 */
final class StoreScripts {
    final LuaScript push = LuaScript.load("push");
    final LuaScript moveDue = LuaScript.load("move_due");
    final LuaScript reserve = LuaScript.load("reserve");
    final LuaScript finish = LuaScript.load("finish");
    final LuaScript delete = LuaScript.load("delete");
    final LuaScript retry = LuaScript.load("retry");
    final LuaScript clear = LuaScript.load("clear");
    final LuaScript confirmDelete = LuaScript.load("confirm_delete");
    final LuaScript undoDelete = LuaScript.load("undo_delete");
    final LuaScript defer = LuaScript.load("defer");
    final LuaScript requeueDead = LuaScript.load("requeue_dead");
    final LuaScript tierIntent = LuaScript.load("tier_intent");
    final LuaScript tierLoad = LuaScript.load("tier_load");
    final LuaScript tierAdmit = LuaScript.load("tier_admit");
    final LuaScript tierAbsent = LuaScript.load("tier_absent");
    final LuaScript replay = LuaScript.load("replay");
    final LuaScript masterAgreed = LuaScript.load("master_agreed");
    final LuaScript countTopics = LuaScript.load("count_topics");
    final LuaScript deleteDead = LuaScript.load("delete_dead");
    final LuaScript runNow = LuaScript.load("run_now");

    private final UnifiedJedis redis;
    private final ShardKeys keys;

    StoreScripts(UnifiedJedis redis, ShardKeys keys) {
        this.redis = redis;
        this.keys = keys;
    }

    /** Hears every script run: its name is the operation ({@code push}, {@code move_due}, ...), a fixed set. */
    void setListener(StoreListener listener) {
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
                tierAdmit,
                tierAbsent,
                replay,
                masterAgreed,
                countTopics,
                deleteDead,
                runNow)) {
            script.setListener(listener);
        }
    }

    /** One run of {@code script}, its failure translated by {@link RedisFailures#call}. */
    Object run(LuaScript script, List<String> k, List<String> args) {
        return call(() -> script.run(redis, k, args));
    }

    /**
     * One run of {@code script} with {@code fixedKeys} and the topic keys of the topics used recently in the shard, run
     * again while it names topics it lacked ({@link ShardKeys#runWithTopicKeys}).
     */
    Object runWithTopicKeys(LuaScript script, int shard, List<String> fixedKeys, List<String> args) {
        return keys.runWithTopicKeys(script.name(), shard, fixedKeys, k -> run(script, k, args));
    }
}
