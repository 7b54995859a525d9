package io.delayqueue.queue.store;

import java.util.Set;

/**
 * Which due jobs go to a ready list (pull) and which are dispatched: pull when {@code defaultPull} unless
 * the topic is in {@code exceptions}, and the other way round. Passed to every move, so a routing change
 * applies to jobs already queued.
 */
public record DueRouting(boolean defaultPull, Set<String> exceptions) {
    public DueRouting {
        exceptions = Set.copyOf(exceptions);
    }

    public boolean isPull(String topic) {
        return defaultPull != exceptions.contains(topic);
    }
}
