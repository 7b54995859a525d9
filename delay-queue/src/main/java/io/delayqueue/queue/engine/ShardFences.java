package io.delayqueue.queue.engine;

import io.delayqueue.queue.coordination.Coordinator;
import io.delayqueue.queue.engine.handover.DueJobMover;
import io.delayqueue.queue.engine.tier.TierLoader;
import io.delayqueue.queue.store.HandOverStore;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fences of the shards: the owner epoch each term of ownership takes in the store, carried in the moves of the
 * {@link DueJobMover}'s scanners and in the {@link TierLoader}'s loads, so that a script run by an instance that
 * lost the shard is refused.
 *
 * <p>Threading: called on each shard's scanner thread and on the tier loader's; the take of a shard's epoch is
 * guarded per shard, so the two never take two epochs for one term.
 */
public final class ShardFences implements TierLoader.Fences {
    private static final Logger log = LoggerFactory.getLogger(ShardFences.class);

    private final HandOverStore store;
    private final Coordinator coordinator;
    /** Per shard: the owner epoch this instance took in the store, and the ownership term it was taken under. */
    private final AtomicReferenceArray<Fence> fences;
    /** Guards the taking of each shard's owner epoch (its scanner and the tier loader both carry it). */
    private final Object[] fenceLocks;

    /** The owner epoch of a term of ownership, taken in the store. */
    private record Fence(String term, long epoch) {}

    public ShardFences(HandOverStore store, Coordinator coordinator, int shards) {
        this.store = store;
        this.coordinator = coordinator;
        this.fences = new AtomicReferenceArray<>(shards);
        this.fenceLocks = new Object[shards];
        for (int s = 0; s < fenceLocks.length; s++) {
            fenceLocks[s] = new Object();
        }
    }

    /** The epoch of a coordinator whose shards never change hands (standalone): the scripts fence nothing. */
    static final long UNFENCED = 0;

    /** Not owned: the shard's jobs must not be moved (the scripts refuse a negative epoch too). */
    static final long NOT_OWNED = -1;

    /**
     * The owner epoch to carry in the moves of {@code shard}: {@link #UNFENCED} when the coordinator needs no
     * fencing and owns the shard; for each new ownership term a new epoch taken in the store, used only once the
     * coordinator confirmed that the term outlived the take (an instance paused between gaining the shard and
     * taking its epoch must not move jobs with an epoch taken after another instance's); {@link #NOT_OWNED} when
     * this instance must not move them: it does not own the shard (a fencing coordinator without a term, as when
     * it lost the shard since the caller asked), or lost it while taking the epoch. "Not owned" is never read as
     * "not fenced".
     */
    @Override
    public long epochFor(int shard) {
        if (!coordinator.fencesOwnership()) {
            return coordinator.owns(shard) ? UNFENCED : NOT_OWNED;
        }
        String term = coordinator.ownershipTerm(shard);
        if (term == null) {
            return NOT_OWNED;
        }
        Fence fence = fences.get(shard);
        if (fence != null && fence.term().equals(term)) {
            return fence.epoch();
        }
        // one take per term: the scanner and the tier loader of a shard must not take two epochs and refuse
        // each other's
        synchronized (fenceLocks[shard]) {
            fence = fences.get(shard);
            if (fence != null && fence.term().equals(term)) {
                return fence.epoch();
            }
            long epoch = store.takeEpoch(shard);
            if (!coordinator.confirmTerm(shard, term)) {
                log.warn("shard {}: ownership ended while taking an owner epoch; not moving its jobs", shard);
                return NOT_OWNED;
            }
            fences.set(shard, new Fence(term, epoch));
            log.info("shard {}: owner epoch {}", shard, epoch);
            return epoch;
        }
    }

    /**
     * The owner epoch this instance moves {@code shard}'s jobs with now, for the web console; {@code null} when it
     * does not own the shard, has not taken an epoch for its current term yet, or needs no fencing (standalone).
     */
    Long currentEpoch(int shard) {
        String term = coordinator.ownershipTerm(shard);
        Fence fence = fences.get(shard);
        return term != null && fence != null && fence.term().equals(term) ? fence.epoch() : null;
    }

    @Override
    public void stale(int shard) {
        fences.set(shard, null);
    }
}
