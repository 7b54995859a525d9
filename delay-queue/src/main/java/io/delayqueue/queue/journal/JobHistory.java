package io.delayqueue.queue.journal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A job's history in the order its transitions happened. The journal's writers commit groups side by side, so the
 * log's row ids follow the order the rows were inserted, not always the order they were handed over: a pull's
 * {@code RESERVED} may take a lower id than the {@code READY} the scanner journaled before it. The history is
 * therefore ordered by the transitions' times, {@code CREATED} first (its time is the client's {@code createTime},
 * which may be a little ahead of the service's clock); within one millisecond, each next entry is the one that
 * starts from the state the previous entry left, and otherwise the one with the lower row id.
 */
public final class JobHistory {
    private JobHistory() {}

    /** {@code byRowId}, a job's log rows in row-id order, in the order the transitions happened. */
    public static List<JournalEntry> inOrder(List<JournalEntry> byRowId) {
        if (byRowId.size() < 2) {
            return byRowId;
        }
        List<JournalEntry> byTime = new ArrayList<>(byRowId);
        // stable: rows of one millisecond keep their row-id order
        byTime.sort(Comparator.comparingInt((JournalEntry e) -> e.event() == JobEvent.CREATED ? 0 : 1)
                .thenComparingLong(JournalEntry::at));
        List<JournalEntry> ordered = new ArrayList<>(byTime.size());
        int from = 0;
        while (from < byTime.size()) {
            int to = from + 1;
            while (to < byTime.size() && sameMoment(byTime.get(from), byTime.get(to))) {
                to++;
            }
            List<JournalEntry> moment = new ArrayList<>(byTime.subList(from, to));
            while (!moment.isEmpty()) {
                JournalEntry previous = ordered.isEmpty() ? null : ordered.get(ordered.size() - 1);
                int next = 0;
                if (previous != null && previous.to() != null) {
                    for (int i = 0; i < moment.size(); i++) {
                        if (moment.get(i).from() == previous.to()) {
                            next = i;
                            break;
                        }
                    }
                }
                ordered.add(moment.remove(next));
            }
            from = to;
        }
        return ordered;
    }

    private static boolean sameMoment(JournalEntry a, JournalEntry b) {
        return a.at() == b.at() && (a.event() == JobEvent.CREATED) == (b.event() == JobEvent.CREATED);
    }
}
