package io.delayqueue.queue.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** A clock that only moves when a test moves it. Thread-safe; millisecond resolution. */
public final class ManualClock extends Clock {
    private final AtomicLong millis;
    private final ZoneId zone;

    public ManualClock(long startMillis) {
        this(new AtomicLong(startMillis), ZoneOffset.UTC);
    }

    private ManualClock(AtomicLong millis, ZoneId zone) {
        this.millis = millis;
        this.zone = zone;
    }

    public void set(long epochMillis) {
        millis.set(epochMillis);
    }

    public long advance(long deltaMillis) {
        return millis.addAndGet(deltaMillis);
    }

    public long advance(Duration delta) {
        return advance(delta.toMillis());
    }

    @Override
    public long millis() {
        return millis.get();
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis.get());
    }

    @Override
    public ZoneId getZone() {
        return zone;
    }

    @Override
    public Clock withZone(ZoneId newZone) {
        return new ManualClock(millis, newZone);
    }
}
