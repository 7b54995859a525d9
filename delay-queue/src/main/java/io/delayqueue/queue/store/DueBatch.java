package io.delayqueue.queue.store;

import io.delayqueue.common.Job;
import java.util.List;
import java.util.OptionalLong;

/**
 * What one move of due jobs did in one shard.
 *
 * @param toDispatch push-topic jobs now {@code RESERVED} for dispatch
 * @param madeReady pull-topic jobs now {@code READY}
 * @param madeDead jobs that went {@code DEAD} because their last reservation expired
 * @param expired jobs whose reservation expired (an attempt was counted), with the time of this move as their
 *     due time; those among them out of attempts are in {@code madeDead} too
 * @param scanned bucket entries moved; equal to the limit when more may be due
 * @param nextMoveAt when the next move is wanted: the earliest score left in the bucket (less the lead for
 *     entries beyond the lead), empty when the bucket is empty
 */
public record DueBatch(
        List<Job> toDispatch,
        List<Moved> madeReady,
        List<Moved> madeDead,
        List<Moved> expired,
        int scanned,
        OptionalLong nextMoveAt) {

    /** A job that moved without being read whole: its id, topic and due time. */
    public record Moved(String id, String topic, long dueAt) {}
}
