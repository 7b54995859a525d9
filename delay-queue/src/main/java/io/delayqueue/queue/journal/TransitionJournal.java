package io.delayqueue.queue.journal;

import java.util.List;

/** The calls of the hand-over path and of deletes: transitions written within the lag, or durably, and the backlog's room checked before a consumer's call. A role of {@link Journal}. */
public interface TransitionJournal {
    /** Records transitions within the journal's lag. */
    void recordTransitions(List<Transition> transitions);

    /** Records transitions and, in sync mode, returns only once they are committed. */
    void recordTransitionsDurably(List<Transition> transitions);

    /**
     * Throws {@link io.delayqueue.common.DelayQueueException.Unavailable} (503) while the journal's backlog is full
     * (the database too slow or down), so that a caller about to change Redis and then journal the transition (a
     * consumer's reserve or finish) is refused before it changes anything.
     */
    default void requireRoom() {}

    JournalMode mode();
}
