package io.delayqueue.queue.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayqueue.queue.engine.EngineListener;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What the engine tells its listener, in order, as short strings ({@code "dead orders"},
 * {@code "pushAnswered true"}), so that a test can assert on the events or wait for one with Awaitility
 * instead of polling the engine's state.
 */
public final class RecordingEngineListener implements EngineListener {
    private final List<String> events = new CopyOnWriteArrayList<>();

    /** Every event so far, oldest first. */
    public List<String> events() {
        return List.copyOf(events);
    }

    /** The events of the given kinds only (e.g. {@code "dead"}, {@code "ttrExpired"}), oldest first. */
    public List<String> events(String... kinds) {
        List<String> wanted = List.of(kinds);
        return events.stream()
                .filter(e -> wanted.contains(e.substring(0, e.indexOf(' '))))
                .toList();
    }

    /** How many times {@code event} (e.g. {@code "handedOver orders"}) was told. */
    public long count(String event) {
        return events.stream().filter(event::equals).count();
    }

    /** The job rows of every {@code journalPurged} event so far, summed. */
    public long purgedJobRows() {
        return purgedRows(1);
    }

    /** The log rows of every {@code journalPurged} event so far, summed. */
    public long purgedLogRows() {
        return purgedRows(2);
    }

    private long purgedRows(int field) {
        return events("journalPurged").stream()
                .mapToLong(e -> Long.parseLong(e.split(" ")[field]))
                .sum();
    }

    @Override
    public void pushed(String topic) {
        events.add("pushed " + topic);
    }

    @Override
    public void handedOver(String topic, long latenessMs) {
        events.add("handedOver " + topic);
    }

    @Override
    public void sendFailed(String topic) {
        events.add("sendFailed " + topic);
    }

    @Override
    public void pushAnswered(long latencyNanos, boolean succeeded) {
        assertThat(latencyNanos).isPositive();
        events.add("pushAnswered " + succeeded);
    }

    @Override
    public void ttrExpired(String topic) {
        events.add("ttrExpired " + topic);
    }

    @Override
    public void retried(String topic) {
        events.add("retried " + topic);
    }

    @Override
    public void dead(String topic) {
        events.add("dead " + topic);
    }

    @Override
    public void deleted(String topic) {
        events.add("deleted " + topic);
    }

    @Override
    public void journalPurged(int jobRows, int logRows) {
        events.add("journalPurged " + jobRows + " " + logRows);
    }
}
