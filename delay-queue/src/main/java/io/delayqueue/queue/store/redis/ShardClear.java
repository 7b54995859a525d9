package io.delayqueue.queue.store.redis;

import io.delayqueue.queue.store.DeleteStore.ClearBatch;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link RedisJobStore#clear}: begins the deletes of a shard's not-yet-delivered jobs, the bucket first, then the
 * ready lists, never handing one run the keys of every topic the shard has had.
 *
 * <p>Threading: one per store, stateless; used by whichever thread clears.
 */
final class ShardClear {
    private final StoreScripts scripts;
    private final ShardKeys keys;
    private final PlainCommands plain;

    ShardClear(StoreScripts scripts, ShardKeys keys, PlainCommands plain) {
        this.scripts = scripts;
        this.keys = keys;
        this.plain = plain;
    }

    /**
     * The bucket from {@code offset} first (one run of clear.lua); when it holds fewer than {@code limit} entries
     * there and the shard has READY jobs, the ready lists that are not empty ({@link PlainCommands#readyLengths}),
     * {@link ShardKeys#MAX_TOPICS_PER_CALL} of them per run, until {@code limit} deletes began or none is left.
     * Each run is atomic on its own, as every begun delete is.
     */
    ClearBatch clear(int shard, int offset, int limit, long now) {
        List<String> fixed = keys.deleteKeys(shard);
        List<?> reply = (List<?>) scripts.run(
                scripts.clear, fixed, List.of(Long.toString(now), Integer.toString(limit), Integer.toString(offset)));
        List<String> deleted = new ArrayList<>(Replies.strings((List<?>) reply.get(0)));
        int kept = ((Long) reply.get(1)).intValue();
        int scanned = ((Long) reply.get(2)).intValue();
        long readyJobs = (Long) reply.get(3);
        if (scanned < limit && deleted.size() < limit && readyJobs > 0) {
            List<String> topics = new ArrayList<>(plain.readyLengths(shard).keySet());
            for (int from = 0; from < topics.size() && deleted.size() < limit; from += ShardKeys.MAX_TOPICS_PER_CALL) {
                List<String> k = new ArrayList<>(fixed);
                for (String topic :
                        topics.subList(from, Math.min(topics.size(), from + ShardKeys.MAX_TOPICS_PER_CALL))) {
                    k.add(keys.names().ready(shard, topic));
                }
                List<?> popped = (List<?>) scripts.run(
                        scripts.clear, k, List.of(Long.toString(now), Integer.toString(limit - deleted.size()), ""));
                deleted.addAll(Replies.strings((List<?>) popped.get(0)));
            }
        }
        return new ClearBatch(deleted, kept, scanned);
    }
}
