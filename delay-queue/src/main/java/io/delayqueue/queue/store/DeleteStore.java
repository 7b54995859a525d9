package io.delayqueue.queue.store;

import io.delayqueue.common.Job;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The store's steps of the delete protocol (begin, confirm, undo, settle) and of {@code clearAll}; {@link io.delayqueue.queue.engine.delete.DeleteProtocol} owns their order. A role of {@link JobStore}. */
public interface DeleteStore extends StoreReads {
    /**
     * Begins to cancel a {@code DELAY} or {@code READY} job: it is {@code DELETED} at once, so nothing delivers
     * it, but the delete stays pending until {@link #confirmDeletes} (the journal committed it) or {@link
     * #undoDeletes} (the journal refused it) settles it; a pending delete is never purged. A job already pending
     * deletion is {@link Outcome.Result#APPLIED} again and held once more: the caller's commit settles it as well,
     * and undoing it lets go of the caller's hold only; a confirmed one is a {@link Outcome.Result#CONFLICT} with
     * status {@code DELETED}.
     *
     * @param tombstone when the store lacks the job: the job (as the journal holds it) to write as a pending
     *     {@code DELETED} tombstone, so that no restore or late push brings it into the store alive; {@code null}
     *     to answer {@link Outcome.Result#NOT_FOUND} instead
     */
    Outcome beginDelete(String id, long now, Job tombstone);

    /**
     * Begins to delete {@code DEAD} jobs of one shard, as {@link #beginDelete} begins a delete: each is {@code
     * DELETED} at once and out of its topic's dead set, pending until {@link #confirmDeletes} or {@link #undoDeletes}
     * (which puts it back into its dead set). A job pending deletion already is held once more, as by {@link
     * #beginDelete}.
     *
     * @param topic the topic the jobs must be dead jobs of; {@code null}: any topic
     * @return outcomes in the order of {@code ids}: {@link Outcome.Result#CONFLICT} with the job's status for one that
     *     is not a dead job (of the topic: {@code DEAD} for a dead job of another topic)
     */
    List<Outcome> beginDeadDeletes(String topic, int shard, List<String> ids, long now);

    /**
     * The journal committed these pending deletes of one shard: they are final.
     *
     * @return the topic of each delete that was pending (and is confirmed now), one entry per job
     */
    List<String> confirmDeletes(int shard, List<String> ids, long now);

    /**
     * The journal refused these pending deletes of one shard: the caller lets go of its hold of each, and each that
     * no other delete holds is put back as it was before its delete began (a tombstone is removed). One that another
     * delete still holds stays {@code DELETED}, pending that delete's commit.
     *
     * @return the ids put back, each with the due time it is back at ({@code null} for a tombstone)
     */
    Map<String, Long> undoDeletes(int shard, List<String> ids);

    /**
     * Undoes (as {@link #undoDeletes}, every hold at once) those of these pending deletes whose latest begin was
     * before {@code begunBefore}: their deletes were abandoned. One begun again since is left pending.
     *
     * @return the ids put back, each with the due time it is back at ({@code null} for a tombstone)
     */
    Map<String, Long> undoAbandonedDeletes(int shard, List<String> ids, long begunBefore);

    /**
     * Where the deployment has replicas: whether enough of them took every write made to {@code shard} so far (the
     * wait is bounded); true at once where there are none to wait for.
     */
    default boolean awaitReplicas(int shard) {
        return true;
    }

    /** Up to {@code limit} ids of one shard whose delete began before {@code begunBefore} and is still pending. */
    List<String> pendingDeletes(int shard, long begunBefore, int limit);

    /** Those of {@code ids} whose delete is pending. */
    Set<String> pendingDeletesAmong(List<String> ids);

    /**
     * Begins to delete (as {@link #beginDelete}) up to {@code limit} jobs of one shard that have not been handed
     * over ({@code DELAY} jobs from rank {@code offset} of the bucket on, then {@code READY} ones), for {@code
     * clearAll}; the caller confirms or undoes them once the journal answered.
     */
    ClearBatch clear(int shard, int offset, int limit, long now);

    /**
     * @param deleted ids now {@code DELETED}, pending
     * @param reservedKept {@code RESERVED} bucket entries passed over (add them to the next offset)
     * @param scanned bucket entries looked at
     */
    record ClearBatch(List<String> deleted, int reservedKept, int scanned) {}
}
