package io.delayqueue.queue.store.redis;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.journal.JobCursor;
import io.delayqueue.queue.store.DueBatch;
import io.delayqueue.queue.store.JobStore;
import io.delayqueue.queue.store.Outcome;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Reading the replies of the scripts into the types of {@link JobStore}. Each method knows the shape one
 * script answers (see the script's header); Jedis hands Lua numbers over as {@link Long}, strings as {@link
 * String}, tables as {@link List} and {@code false} as {@code null}. Stateless.
 */
final class Replies {
    private Replies() {}

    /** A script's {@code {code, status}} pair: 1 applied, 0 not found, 3 stale, any other code a conflict. */
    static Outcome outcome(Object code, Object status) {
        long c = (Long) code;
        JobStatus s = status == null ? null : JobStatus.valueOf((String) status);
        Outcome.Result result =
                switch ((int) c) {
                    case 1 -> Outcome.Result.APPLIED;
                    case 0 -> Outcome.Result.NOT_FOUND;
                    case 3 -> Outcome.Result.STALE;
                    default -> Outcome.Result.CONFLICT;
                };
        return new Outcome(result, s);
    }

    /** A reply of one {@link #outcome} pair, its status left out when the job was not found. */
    static Outcome outcome(List<?> reply) {
        return outcome(reply.get(0), reply.size() > 1 ? reply.get(1) : null);
    }

    /** A flat list of {@link #outcome} pairs, one per job. */
    static List<Outcome> outcomes(List<?> reply) {
        List<Outcome> outcomes = new ArrayList<>(reply.size() / 2);
        for (int i = 0; i < reply.size(); i += 2) {
            outcomes.add(outcome(reply.get(i), reply.get(i + 1)));
        }
        return outcomes;
    }

    /** {@link #outcomes}, keyed by the ids of the jobs in the order the script was given them. */
    static Map<String, Outcome> outcomesById(List<String> ids, List<?> reply) {
        Map<String, Outcome> outcomes = new LinkedHashMap<>();
        for (int i = 0; i < ids.size(); i++) {
            outcomes.put(ids.get(i), outcome(reply.get(2 * i), reply.get(2 * i + 1)));
        }
        return outcomes;
    }

    /** Pairs of id and due time ({@code false}: none), in the script's order. */
    static Map<String, Long> dueTimesById(List<?> reply) {
        Map<String, Long> dueTimes = new LinkedHashMap<>();
        for (int i = 0; i < reply.size(); i += 2) {
            Object due = reply.get(i + 1);
            dueTimes.put((String) reply.get(i), due == null ? null : Long.parseLong((String) due));
        }
        return dueTimes;
    }

    static List<String> strings(List<?> reply) {
        List<String> strings = new ArrayList<>(reply.size());
        for (Object s : reply) {
            strings.add((String) s);
        }
        return strings;
    }

    /**
     * move_due's reply (its fencing reply, the shard's epoch alone, is the caller's): the jobs to dispatch, those
     * moved to ready lists, to dead sets and whose reservation expired, the entries moved, and when the next move
     * is wanted ({@code false}: the bucket is empty). Dead and expired moves are at {@code now}.
     */
    static DueBatch dueBatch(List<?> reply, long now) {
        List<?> dispatchReply = (List<?>) reply.get(0);
        List<Job> toDispatch = new ArrayList<>(dispatchReply.size() / 2);
        for (int i = 0; i < dispatchReply.size(); i += 2) {
            toDispatch.add(PoolValues.decode((String) dispatchReply.get(i), (String) dispatchReply.get(i + 1)));
        }
        List<?> readyReply = (List<?>) reply.get(1);
        List<DueBatch.Moved> ready = new ArrayList<>(readyReply.size() / 3);
        for (int i = 0; i < readyReply.size(); i += 3) {
            ready.add(new DueBatch.Moved(
                    (String) readyReply.get(i), (String) readyReply.get(i + 1), Long.parseLong((String)
                            readyReply.get(i + 2))));
        }
        List<?> deadReply = (List<?>) reply.get(2);
        List<DueBatch.Moved> dead = new ArrayList<>(deadReply.size() / 2);
        for (int i = 0; i < deadReply.size(); i += 2) {
            dead.add(new DueBatch.Moved((String) deadReply.get(i), (String) deadReply.get(i + 1), now));
        }
        List<?> expiredReply = (List<?>) reply.get(3);
        List<DueBatch.Moved> expired = new ArrayList<>(expiredReply.size() / 2);
        for (int i = 0; i < expiredReply.size(); i += 2) {
            expired.add(new DueBatch.Moved((String) expiredReply.get(i), (String) expiredReply.get(i + 1), now));
        }
        int scanned = ((Long) reply.get(4)).intValue();
        Object next = reply.get(5);
        OptionalLong nextMoveAt = next == null ? OptionalLong.empty() : OptionalLong.of(parseScore((String) next));
        return new DueBatch(toDispatch, ready, dead, expired, scanned, nextMoveAt);
    }

    /** tier_intent's reply: the intent now in force, its token, and the loaded cursor ({@code 'due|id'}), if any. */
    static JobStore.TierMark tierMark(List<?> reply) {
        return new JobStore.TierMark(
                parseScore((String) reply.get(0)),
                (String) reply.get(1),
                cursorOf(reply.size() > 2 ? (String) reply.get(2) : null));
    }

    private static JobCursor cursorOf(String loaded) {
        if (loaded == null) {
            return null;
        }
        int bar = loaded.indexOf('|');
        return new JobCursor(Long.parseLong(loaded.substring(0, bar)), loaded.substring(bar + 1));
    }

    /**
     * tier_load's reply (its fencing reply is the caller's): {@code { -1 }} for a stale page, {@code { -2 }} when
     * the intent it was read under is gone, {@code { -3 }} when the cursor is gone, else the ids loaded and the
     * earliest due loaded ({@link Long#MAX_VALUE} when none).
     */
    static JobStore.TierLoad tierLoad(List<?> reply) {
        if (reply.get(0) instanceof Long refusal) {
            JobStore.LoadOutcome outcome = refusal == -1
                    ? JobStore.LoadOutcome.STALE
                    : refusal == -2 ? JobStore.LoadOutcome.INTENT_LOST : JobStore.LoadOutcome.CURSOR_LOST;
            return new JobStore.TierLoad(outcome, List.of(), Long.MAX_VALUE);
        }
        List<String> loaded = strings((List<?>) reply.get(0));
        Object earliest = reply.size() > 1 ? reply.get(1) : null;
        return new JobStore.TierLoad(
                JobStore.LoadOutcome.LOADED, loaded, earliest == null ? Long.MAX_VALUE : parseScore((String) earliest));
    }

    static long parseScore(String score) {
        return (long) Double.parseDouble(score);
    }
}
