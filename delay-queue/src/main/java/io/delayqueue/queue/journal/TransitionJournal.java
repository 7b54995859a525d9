package io.delayqueue.queue.journal;

import java.util.List;

/** The calls of the hand-over path and of deletes: transitions written within the lag, or durably, and the backlog's room taken before a consumer's call. A role of {@link Journal}. */
public interface TransitionJournal {
    /**
     * Records transitions within the journal's lag. Nobody is answered on them: when the backlog is full (the
     * database away) they are not kept (Redis holds the jobs' state, and the reconciler writes final states back).
     */
    void recordTransitions(List<Transition> transitions);

    /**
     * Records transitions a caller is answered on (a delete, a {@code clearAll} batch): in sync mode returns only
     * once they are committed; in async mode queues them within the lag. Either way throws {@link
     * io.delayqueue.common.DelayQueueException.Unavailable} (503, nothing written) rather than drop them when the
     * backlog has no room for them, so that the caller can undo its Redis half.
     */
    void recordTransitionsDurably(List<Transition> transitions);

    /**
     * Takes room in the journal's backlog for up to {@code transitions} transitions of a consumer's call (a reserve,
     * a finish), before the call changes Redis: throws {@link io.delayqueue.common.DelayQueueException.Unavailable}
     * (503, nothing was changed) when the backlog (the database too slow or down) has no room for them, so that
     * nothing answered to a consumer is then dropped. The caller records its transitions into the room, or closes it
     * unused; either way it closes it.
     */
    default Room takeRoom(int transitions) {
        return this::recordTransitions;
    }

    JournalMode mode();

    /**
     * Room taken in the backlog ({@link #takeRoom}): the call's transitions are recorded into it within the lag and
     * never dropped. Used by one thread.
     */
    interface Room extends AutoCloseable {
        /** Records the call's transitions (at most those the room was taken for), once; never dropped. */
        void record(List<Transition> transitions);

        /** Gives back the room when nothing was recorded into it. */
        @Override
        default void close() {}
    }
}
