package io.delayqueue.queue.store;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * The store's steps of the fail-over protocol: which master a shard is on and whether the journal was replayed onto
 * it, the replay itself, and the mark that lets the shard's jobs be moved and reserved again; {@link
 * io.delayqueue.queue.engine.failover.FailoverProtocol} owns their order. A role of {@link JobStore}.
 */
public interface FailoverStore {
    /**
     * The shard's master now and the one the journal was last replayed onto.
     *
     * @param masterId the replication id of the shard's master; {@code null}: the store has none to tell (a proxy),
     *     and its moves are not gated
     * @param replayedOnto the replication id of the master the journal was last replayed onto; {@code null}: none
     */
    record MasterState(String masterId, String replayedOnto) {
        /** Whether the shard's jobs may be moved: the journal was replayed onto this master, or it cannot be told. */
        public boolean agreed() {
            return masterId == null || masterId.equals(replayedOnto);
        }
    }

    /** {@link MasterState} of {@code shard}. */
    MasterState masterState(int shard);

    /**
     * Marks {@code shard}'s master as replayed onto, if it is still the master {@code masterId} names: from then on
     * its moves and reserves run. A master that changed again since stays gated.
     *
     * @return the state afterwards
     */
    MasterState markReplayed(int shard, String masterId);

    /**
     * A job's last transition as the journal holds it, for {@link #replay}.
     *
     * @param score for a {@code RESERVED} job, the deadline of its reservation (epoch ms); unused otherwise
     */
    record JournaledState(String id, JobStatus status, int attempts, long score, String topic) {}

    /** What {@link #replay} did with a job. */
    enum Replayed {
        /** The store agreed with the journal already, is ahead of it, or holds a delete of the job pending. */
        AGREED,
        /** The store lacks a job the journal holds live: the caller puts it back. */
        ABSENT,
        /** Made final as journaled, its attempts raised to the journal's, or reserved until its deadline. */
        CHANGED
    }

    /**
     * Makes the jobs of {@code states} (all of {@code shard}) agree with the journal, in one atomic step: a job the
     * journal holds {@code FINISHED}, {@code DELETED} or {@code DEAD} and the store live is made so; attempts are
     * raised to the journal's; a job the journal saw reserved in the attempt the store still has is reserved until
     * its deadline. A job the store holds final, or ahead, is left alone.
     *
     * @return one answer per state, in order
     */
    List<Replayed> replay(int shard, List<JournaledState> states, long now);

    /**
     * Puts back jobs the store lacks, as {@link PushStore#push} does, each at the bucket score {@code scoreOf} gives
     * (a {@code RESERVED} job at its reservation's deadline).
     *
     * @return per job, whether it was added ({@code false}: the store holds it; {@code null}: its shard failed)
     */
    List<Boolean> putBack(List<Job> jobs, ToLongFunction<Job> scoreOf);
}
