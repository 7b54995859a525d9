package io.delayqueue.core;

import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The topic labels of {@link DelayQueueMetrics}, bounded: the first {@code maxTopics} topics seen get their own
 * label, any later one is counted under {@link DelayQueueMetrics#OTHER_TOPICS}, so a client inventing topics
 * cannot grow the registry without end.
 *
 * <p>Threading: safe for any number of threads (the listener threads label events, the gauges' refresher reads
 * {@link #labelled()}); two topics seen first at the same moment may both get a label when one place is left.
 */
final class TopicLabels {
    private final int maxTopics;
    private final Set<String> topics = ConcurrentHashMap.newKeySet();

    TopicLabels(int maxTopics) {
        this.maxTopics = maxTopics;
    }

    /** The topic's label: itself for the first {@code maxTopics} topics seen, {@code _other} after. */
    String label(String topic) {
        if (topics.contains(topic)) {
            return topic;
        }
        if (topics.size() < maxTopics && topics.add(topic)) {
            return topic;
        }
        return topics.contains(topic) ? topic : DelayQueueMetrics.OTHER_TOPICS;
    }

    /** The topics that have a label of their own, sorted. */
    SortedSet<String> labelled() {
        return new TreeSet<>(topics);
    }
}
