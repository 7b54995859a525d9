package io.delayqueue.queue.store.redis;

/**
 * Key names. All keys of one shard share the hash tag {@code {<prefix>:<shard>}}, so every script touches
 * a single Redis Cluster slot. The one key of the whole queue, {@link #idNode()}, is only read and written by
 * single-key commands.
 */
public final class RedisKeys {
    private final String prefix;

    public RedisKeys(String prefix) {
        if (prefix == null || prefix.isEmpty() || prefix.contains("{") || prefix.contains("}")) {
            throw new IllegalArgumentException("redis prefix must be non-empty and free of braces: " + prefix);
        }
        this.prefix = prefix;
    }

    public String prefix() {
        return prefix;
    }

    public String tag(int shard) {
        return "{" + prefix + ":" + shard + "}";
    }

    public String pool(int shard) {
        return tag(shard) + ":pool";
    }

    public String bucket(int shard) {
        return tag(shard) + ":bucket";
    }

    public String counts(int shard) {
        return tag(shard) + ":counts";
    }

    public String done(int shard) {
        return tag(shard) + ":done";
    }

    /** The topics that have jobs in the shard (not final ones; a SET, kept by the scripts with {@link #topicJobs}). */
    public String topics(int shard) {
        return tag(shard) + ":topics";
    }

    /**
     * How many jobs that are not final each topic has in the shard (HASH topic -> jobs): a topic whose count reaches 0
     * leaves it and {@link #topics}. Its field {@code ~counted} says that the shard's pool was counted (lib.lua).
     */
    public String topicJobs(int shard) {
        return tag(shard) + ":topic-jobs";
    }

    public String ready(int shard, String topic) {
        return tag(shard) + ":ready:" + topic;
    }

    /** Deletes begun and not yet committed by the journal: id -> when the delete began. */
    public String deleting(int shard) {
        return tag(shard) + ":deleting";
    }

    /** What undoing a pending delete puts back, by id. */
    public String deleteUndo(int shard) {
        return tag(shard) + ":delete-undo";
    }

    /** Written before a {@code WAIT} ({@link ReplicaWait}): the replicas that have it have every earlier write. */
    public String replicaMark(int shard) {
        return tag(shard) + ":replica-mark";
    }

    /** How many deletes hold a pending delete, by id (absent: one). */
    public String deleteHolders(int shard) {
        return tag(shard) + ":delete-holders";
    }

    /**
     * The highest owner epoch taken for the shard ({@link RedisJobStore#takeEpoch}); moves carrying a lower one
     * are refused.
     */
    public String epoch(int shard) {
        return tag(shard) + ":epoch";
    }

    /**
     * The replication id of the Redis master the journal was last replayed onto (the fail-over protocol): the
     * shard's jobs are moved and reserved only while it is the master's own ({@code master_agreed} in lib.lua).
     */
    public String replayedOnto(int shard) {
        return tag(shard) + ":replayed-onto";
    }

    /**
     * The shard's tier watermark (HASH): {@code intent}, the due time up to which the shard's owner loads jobs
     * from the journal, and {@code loaded}, the (due time, id) up to which it did. Lost with the jobs when Redis
     * loses its data, so the loader then starts again from the first job.
     */
    public String tier(int shard) {
        return tag(shard) + ":tier";
    }

    public String dead(int shard, String topic) {
        return tag(shard) + ":dead:" + topic;
    }

    /**
     * The counter that {@link RedisJobStore#claimIdNode()} takes node numbers from; one per queue, under a hash
     * tag of its own (it is not a shard's key), inside {@link #allKeysPattern()}.
     */
    public String idNode() {
        return "{" + prefix + ":id-node}";
    }

    /** A glob matching every key of this prefix, for tests and {@code clearAll}. */
    public String allKeysPattern() {
        return "{" + prefix + ":*";
    }
}
