package io.delayqueue.queue.engine;

import java.util.concurrent.ConcurrentHashMap;

/**
 * In-flight limits below the global one: at most {@code perDispatcher} jobs handed to one dispatcher and
 * not yet settled, and at most {@code perTopic} of one topic. A dead or hung receiver holds no more than
 * its dispatcher's share of the global capacity, so the scanners always find room for the other
 * dispatchers; and one topic whose receiver hangs (an HTTP callback URL, say) leaves room for the other
 * topics of the same dispatcher. Thread-safe; a counter that drops to zero is removed, so topics that come
 * and go leave nothing behind.
 */
final class DispatchLanes {
    private final int perDispatcher;
    private final int perTopic;
    private final ConcurrentHashMap<String, Integer> byDispatcher = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Integer> byTopic = new ConcurrentHashMap<>();

    DispatchLanes(int perDispatcher, int perTopic) {
        if (perDispatcher < 1 || perTopic < 1) {
            throw new IllegalArgumentException("in-flight limits must be at least 1");
        }
        this.perDispatcher = perDispatcher;
        this.perTopic = Math.min(perTopic, perDispatcher);
    }

    /**
     * The share of {@code maxInFlight} each dispatcher may hold: what is left after one scan batch, split
     * evenly, so that even with every other dispatcher full a scanner still finds a batch of room.
     */
    static int perDispatcherShare(int maxInFlight, int scanBatchSize, int dispatchers) {
        return Math.max(1, (maxInFlight - scanBatchSize) / Math.max(1, dispatchers));
    }

    int perDispatcher() {
        return perDispatcher;
    }

    int perTopic() {
        return perTopic;
    }

    /** Takes one slot of the topic and one of its dispatcher, or neither; never blocks. */
    boolean tryAcquire(String dispatcher, String topic) {
        if (!increment(byTopic, topic, perTopic)) {
            return false;
        }
        if (!increment(byDispatcher, dispatcher, perDispatcher)) {
            decrement(byTopic, topic);
            return false;
        }
        return true;
    }

    void release(String dispatcher, String topic) {
        decrement(byDispatcher, dispatcher);
        decrement(byTopic, topic);
    }

    int inFlightOfTopic(String topic) {
        return byTopic.getOrDefault(topic, 0);
    }

    /** Sends in flight per dispatcher name, now (dispatchers with none are left out). */
    java.util.Map<String, Integer> inFlightByDispatcher() {
        return java.util.Map.copyOf(byDispatcher);
    }

    int inFlightOfDispatcher(String dispatcher) {
        return byDispatcher.getOrDefault(dispatcher, 0);
    }

    private static boolean increment(ConcurrentHashMap<String, Integer> counts, String key, int limit) {
        boolean[] taken = {false};
        counts.compute(key, (k, n) -> {
            int current = n == null ? 0 : n;
            if (current >= limit) {
                return n;
            }
            taken[0] = true;
            return current + 1;
        });
        return taken[0];
    }

    private static void decrement(ConcurrentHashMap<String, Integer> counts, String key) {
        counts.computeIfPresent(key, (k, n) -> n <= 1 ? null : n - 1);
    }
}
