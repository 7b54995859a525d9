package io.delayqueue.queue.engine.handover;

import io.delayqueue.common.Job;
import io.delayqueue.queue.engine.EngineConfig;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * In-flight limits below the global one, and the jobs that wait for a slot. A topic has at most {@code perTopic}
 * sends open (handed to its dispatcher, not settled); a job of a topic at that limit waits here, in due order, and
 * is sent as soon as one of the topic's sends settles, instead of being put back. What one topic holds (open plus
 * waiting) is capped at {@code topicHold}, and what one dispatcher holds over all its topics at {@code
 * perDispatcher}: a dead or hung receiver holds no more than that, so the scanners always find room for the other
 * dispatchers, and one topic whose receiver hangs (an HTTP callback URL, say) leaves room for the other topics of
 * the same dispatcher. A job that finds even that full is refused ({@link Admission#FULL}); the pipeline puts it
 * back.
 *
 * <p>Thread-safe: every method holds this object's monitor for a few map operations. A topic or dispatcher that
 * drops to nothing is removed, so topics that come and go leave nothing behind.
 */
public final class DispatchLanes {
    /** What {@link #admit} decided. */
    enum Admission {
        /** A slot was taken: send now. */
        SEND,
        /** Queued: the job is handed back by {@link #release} once a slot of its topic is free. */
        WAIT,
        /** No room: put the job back. */
        FULL
    }

    /**
     * A job moved for dispatch and waiting for a slot of its topic.
     *
     * @param queuedAtNanos when it began to wait ({@link System#nanoTime()})
     * @param settled completes once the job's outcome is settled (sent and settled, or put back)
     */
    record Waiter(
            String dispatcher,
            int shard,
            Job job,
            BooleanSupplier stillOwned,
            long queuedAtNanos,
            CompletableFuture<Void> settled) {}

    /** Waiters handed back by {@link #release}: those to send now (each holding a slot) and those to put back. */
    record Released(List<Waiter> toSend, List<Waiter> expired) {
        static final Released NONE = new Released(List.of(), List.of());
    }

    private static final class Lane {
        int open;
        final ArrayDeque<Waiter> waiting = new ArrayDeque<>();
    }

    private static final class Held {
        int open;
        int held;
    }

    private final int perDispatcher;
    private final int perTopic;
    private final int topicHold;
    private final Map<String, Lane> byTopic = new HashMap<>();
    private final Map<String, Held> byDispatcher = new HashMap<>();

    /** Lanes where nothing waits: a job of a topic at its limit is refused at once. */
    DispatchLanes(int perDispatcher, int perTopic) {
        this(perDispatcher, perTopic, perTopic);
    }

    /**
     * @param perDispatcher most jobs one dispatcher holds, open or waiting
     * @param perTopic most sends of one topic open at once
     * @param topicHold most jobs one topic holds, open or waiting (at least {@code perTopic})
     */
    DispatchLanes(int perDispatcher, int perTopic, int topicHold) {
        if (perDispatcher < 1 || perTopic < 1) {
            throw new IllegalArgumentException("in-flight limits must be at least 1");
        }
        this.perDispatcher = perDispatcher;
        this.perTopic = Math.min(perTopic, perDispatcher);
        this.topicHold = Math.min(Math.max(topicHold, this.perTopic), perDispatcher);
    }

    /** The lanes of {@code config}'s limits, for {@code dispatchers} push dispatchers. */
    static DispatchLanes sizedFor(EngineConfig config, int dispatchers) {
        int batch = config.scanner().batchSize();
        int perDispatcher = perDispatcherShare(config.dispatch().maxInFlight(), batch, dispatchers);
        int perTopic = config.dispatch().maxInFlightPerTopic();
        return new DispatchLanes(perDispatcher, perTopic, topicHold(perDispatcher, perTopic, batch));
    }

    /**
     * The share of {@code maxInFlight} each dispatcher may hold: what is left after one scan batch, split
     * evenly, so that even with every other dispatcher full a scanner still finds a batch of room.
     */
    static int perDispatcherShare(int maxInFlight, int scanBatchSize, int dispatchers) {
        return Math.max(1, (maxInFlight - scanBatchSize) / Math.max(1, dispatchers));
    }

    /**
     * What one topic may hold, open or waiting: its dispatcher's share less one scan batch, so that a topic whose
     * receiver is slow still leaves a batch of room to the other topics of its dispatcher.
     */
    static int topicHold(int perDispatcher, int perTopic, int scanBatchSize) {
        return Math.max(perTopic, perDispatcher - scanBatchSize);
    }

    public int perDispatcher() {
        return perDispatcher;
    }

    public int perTopic() {
        return perTopic;
    }

    int topicHold() {
        return topicHold;
    }

    /** Takes one slot of the topic and one of its dispatcher, or neither; never blocks, never queues. */
    synchronized boolean tryAcquire(String dispatcher, String topic) {
        Lane lane = byTopic.get(topic);
        Held held = byDispatcher.get(dispatcher);
        if ((lane != null && (lane.open >= perTopic || !lane.waiting.isEmpty()))
                || (held != null && held.held >= perDispatcher)) {
            return false;
        }
        lane = byTopic.computeIfAbsent(topic, t -> new Lane());
        held = byDispatcher.computeIfAbsent(dispatcher, d -> new Held());
        lane.open++;
        held.open++;
        held.held++;
        return true;
    }

    /**
     * A slot for {@code waiter}'s job if one is free ({@link Admission#SEND}), else a place in its topic's queue
     * ({@link Admission#WAIT}), else {@link Admission#FULL}. Never blocks.
     */
    synchronized Admission admit(Waiter waiter) {
        String topic = waiter.job().topic();
        if (tryAcquire(waiter.dispatcher(), topic)) {
            return Admission.SEND;
        }
        Lane lane = byTopic.get(topic);
        Held held = byDispatcher.get(waiter.dispatcher());
        int topicHeld = lane == null ? 0 : lane.open + lane.waiting.size();
        if (topicHeld >= topicHold || (held != null && held.held >= perDispatcher)) {
            return Admission.FULL;
        }
        byTopic.computeIfAbsent(topic, t -> new Lane()).waiting.add(waiter);
        byDispatcher.computeIfAbsent(waiter.dispatcher(), d -> new Held()).held++;
        return Admission.WAIT;
    }

    /**
     * A send of {@code topic} settled: frees its slot and hands back the topic's waiters that may now be sent (the
     * slot passes to the first) and those that waited since before {@code expiredBeforeNanos} (to be put back).
     */
    synchronized Released release(String dispatcher, String topic, long expiredBeforeNanos) {
        Lane lane = byTopic.get(topic);
        Held held = byDispatcher.get(dispatcher);
        if (lane == null || held == null) {
            return Released.NONE;
        }
        lane.open--;
        held.open--;
        held.held--;
        Released released = Released.NONE;
        while (lane.open < perTopic && !lane.waiting.isEmpty()) {
            Waiter next = lane.waiting.poll();
            if (released == Released.NONE) {
                released = new Released(new ArrayList<>(1), new ArrayList<>(0));
            }
            Held owner = byDispatcher.get(next.dispatcher());
            if (next.queuedAtNanos() - expiredBeforeNanos < 0) {
                owner.held--;
                released.expired().add(next);
            } else {
                lane.open++;
                owner.open++;
                released.toSend().add(next);
            }
        }
        forgetIfEmpty(topic, lane);
        forgetDispatcherIfEmpty();
        return released;
    }

    /** Removes and returns every waiter queued before {@code beforeNanos} (their topics' receivers stalled). */
    synchronized List<Waiter> expire(long beforeNanos) {
        return remove(beforeNanos, false);
    }

    /** Removes and returns every waiter (the engine closes). */
    synchronized List<Waiter> drainWaiters() {
        return remove(0, true);
    }

    private List<Waiter> remove(long beforeNanos, boolean all) {
        List<Waiter> expired = new ArrayList<>();
        for (Iterator<Map.Entry<String, Lane>> it = byTopic.entrySet().iterator(); it.hasNext(); ) {
            Lane lane = it.next().getValue();
            while (!lane.waiting.isEmpty() && (all || lane.waiting.peek().queuedAtNanos() - beforeNanos < 0)) {
                Waiter w = lane.waiting.poll();
                byDispatcher.get(w.dispatcher()).held--;
                expired.add(w);
            }
            if (lane.open == 0 && lane.waiting.isEmpty()) {
                it.remove();
            }
        }
        forgetDispatcherIfEmpty();
        return expired;
    }

    /** When the longest-waiting job began to wait ({@link System#nanoTime()}), or empty when none waits. */
    synchronized OptionalLong oldestWaiter() {
        long oldest = 0;
        boolean any = false;
        for (Lane lane : byTopic.values()) {
            Waiter head = lane.waiting.peek();
            if (head != null && (!any || head.queuedAtNanos() - oldest < 0)) {
                oldest = head.queuedAtNanos();
                any = true;
            }
        }
        return any ? OptionalLong.of(oldest) : OptionalLong.empty();
    }

    private void forgetIfEmpty(String topic, Lane lane) {
        if (lane.open == 0 && lane.waiting.isEmpty()) {
            byTopic.remove(topic);
        }
    }

    private void forgetDispatcherIfEmpty() {
        byDispatcher.values().removeIf(h -> h.held == 0 && h.open == 0);
    }

    public synchronized int inFlightOfTopic(String topic) {
        Lane lane = byTopic.get(topic);
        return lane == null ? 0 : lane.open;
    }

    synchronized int waitingOfTopic(String topic) {
        Lane lane = byTopic.get(topic);
        return lane == null ? 0 : lane.waiting.size();
    }

    /** Sends in flight per dispatcher name, now (dispatchers with none are left out). */
    public synchronized Map<String, Integer> inFlightByDispatcher() {
        Map<String, Integer> open = new HashMap<>();
        byDispatcher.forEach((d, h) -> {
            if (h.open > 0) {
                open.put(d, h.open);
            }
        });
        return Map.copyOf(open);
    }

    synchronized int inFlightOfDispatcher(String dispatcher) {
        Held held = byDispatcher.get(dispatcher);
        return held == null ? 0 : held.open;
    }
}
