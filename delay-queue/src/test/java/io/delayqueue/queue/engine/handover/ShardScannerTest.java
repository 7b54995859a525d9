package io.delayqueue.queue.engine.handover;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The timer of one shard on its own, with a scripted {@link ShardScanner.Pass} and the system clock. Sleeps
 * are long (seconds) and the bounds asserted are generous, so a slow machine does not make these flaky:
 * each test tells "woken at once" from "slept its full sleep".
 */
class ShardScannerTest {
    private static final long LONG_SLEEP_MS = 10_000;
    private static final long PROMPT_MS = 1_000;

    private final Clock clock = Clock.systemUTC();
    private final LinkedBlockingQueue<Long> passes = new LinkedBlockingQueue<>();
    private ShardScanner scanner;
    private Thread thread;

    private void start(ShardScanner.Pass pass, long maxSleepMs) {
        scanner = new ShardScanner(
                0,
                shard -> {
                    passes.add(System.nanoTime());
                    return pass.run(shard);
                },
                clock,
                maxSleepMs);
        thread = new Thread(scanner, "test-scanner");
        thread.setDaemon(true);
        thread.start();
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (scanner != null) {
            scanner.stop();
            thread.join(5_000);
        }
    }

    private long nextPass(long timeoutMs) throws InterruptedException {
        Long at = passes.poll(timeoutMs, TimeUnit.MILLISECONDS);
        assertThat(at).as("a pass within %d ms", timeoutMs).isNotNull();
        return at;
    }

    @Test
    void scanner_runs_a_first_pass_at_once() throws InterruptedException {
        long started = System.nanoTime();
        start(shard -> Long.MAX_VALUE, LONG_SLEEP_MS);

        long first = nextPass(PROMPT_MS);

        assertThat(Duration.ofNanos(first - started)).isLessThan(Duration.ofMillis(PROMPT_MS));
    }

    @Test
    void scanner_that_found_nothing_sleeps_no_longer_than_its_max_sleep() throws InterruptedException {
        start(shard -> Long.MAX_VALUE, 50);

        long first = nextPass(PROMPT_MS);
        nextPass(PROMPT_MS);
        long third = nextPass(PROMPT_MS);

        // two sleeps of 50 ms, nowhere near the "nothing due" of Long.MAX_VALUE
        assertThat(Duration.ofNanos(third - first)).isBetween(Duration.ofMillis(90), Duration.ofMillis(2 * PROMPT_MS));
    }

    @Test
    void scanner_sleeps_until_the_next_due_time_the_pass_reported() throws InterruptedException {
        AtomicInteger calls = new AtomicInteger();
        start(shard -> calls.incrementAndGet() == 1 ? clock.millis() + 200 : Long.MAX_VALUE, LONG_SLEEP_MS);

        long first = nextPass(PROMPT_MS);
        long second = nextPass(PROMPT_MS + 200);

        assertThat(Duration.ofNanos(second - first)).isGreaterThanOrEqualTo(Duration.ofMillis(190));
    }

    @Test
    void scanner_passes_again_at_once_when_the_pass_asked_for_it() throws InterruptedException {
        AtomicInteger calls = new AtomicInteger();
        start(shard -> calls.incrementAndGet() < 5 ? Long.MIN_VALUE : Long.MAX_VALUE, LONG_SLEEP_MS);

        long first = nextPass(PROMPT_MS);
        for (int i = 0; i < 3; i++) {
            nextPass(PROMPT_MS);
        }
        long fifth = nextPass(PROMPT_MS);

        assertThat(Duration.ofNanos(fifth - first)).isLessThan(Duration.ofMillis(PROMPT_MS));
        assertThat(passes.poll(200, TimeUnit.MILLISECONDS))
                .as("the fifth pass found nothing due: the scanner sleeps")
                .isNull();
    }

    @Test
    void sleeping_scanner_is_woken_at_once_by_a_job_due_before_its_planned_wake_up() throws InterruptedException {
        start(shard -> Long.MAX_VALUE, LONG_SLEEP_MS);
        nextPass(PROMPT_MS);

        long pushed = System.nanoTime();
        scanner.onScheduled(clock.millis());
        long woken = nextPass(PROMPT_MS);

        assertThat(Duration.ofNanos(woken - pushed)).isLessThan(Duration.ofMillis(PROMPT_MS));
    }

    @Test
    void job_due_later_than_the_planned_wake_up_does_not_wake_the_scanner() throws InterruptedException {
        start(shard -> clock.millis() + LONG_SLEEP_MS / 2, LONG_SLEEP_MS);
        nextPass(PROMPT_MS);

        scanner.onScheduled(clock.millis() + LONG_SLEEP_MS);

        assertThat(passes.poll(300, TimeUnit.MILLISECONDS))
                .as("no pass before the planned wake-up")
                .isNull();
    }

    @Test
    void job_scheduled_while_a_pass_runs_bounds_the_next_sleep() throws InterruptedException {
        CountDownLatch inPass = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger calls = new AtomicInteger();
        start(
                shard -> {
                    if (calls.incrementAndGet() == 1) {
                        inPass.countDown();
                        try {
                            release.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    // the pass looked at the bucket before the push landed: it saw nothing due
                    return Long.MAX_VALUE;
                },
                LONG_SLEEP_MS);
        nextPass(PROMPT_MS);
        assertThat(inPass.await(PROMPT_MS, TimeUnit.MILLISECONDS)).isTrue();

        scanner.onScheduled(clock.millis());
        long released = System.nanoTime();
        release.countDown();
        long second = nextPass(PROMPT_MS);

        assertThat(Duration.ofNanos(second - released)).isLessThan(Duration.ofMillis(PROMPT_MS));
    }

    @Test
    void wake_now_starts_a_pass_at_once() throws InterruptedException {
        start(shard -> Long.MAX_VALUE, LONG_SLEEP_MS);
        nextPass(PROMPT_MS);

        long woken = System.nanoTime();
        scanner.wakeNow();

        assertThat(Duration.ofNanos(nextPass(PROMPT_MS) - woken)).isLessThan(Duration.ofMillis(PROMPT_MS));
    }

    @Test
    void failing_pass_is_retried_after_a_short_backoff_not_the_max_sleep() throws InterruptedException {
        AtomicInteger calls = new AtomicInteger();
        start(
                shard -> {
                    if (calls.incrementAndGet() == 1) {
                        throw new IllegalStateException("redis down");
                    }
                    return Long.MAX_VALUE;
                },
                LONG_SLEEP_MS);

        long failed = nextPass(PROMPT_MS);
        long retried = nextPass(PROMPT_MS);

        assertThat(Duration.ofNanos(retried - failed)).isBetween(Duration.ofMillis(40), Duration.ofMillis(PROMPT_MS));
        assertThat(thread.isAlive()).isTrue();
    }

    @Test
    void stopped_scanner_thread_ends_promptly_even_during_a_long_sleep() throws InterruptedException {
        start(shard -> Long.MAX_VALUE, LONG_SLEEP_MS);
        nextPass(PROMPT_MS);

        scanner.stop();
        thread.join(PROMPT_MS);

        assertThat(thread.isAlive()).isFalse();
    }
}
