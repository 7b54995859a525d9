package io.delayqueue.queue.dispatch.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayqueue.queue.dispatch.DispatchRejectedException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The per-host bound of the HTTP-callback dispatcher, with sends the test completes by hand and a manual nano clock. */
class HostLimiterTest {
    private final AtomicLong nanos = new AtomicLong();
    private final HostLimiter limiter = new HostLimiter(2, TimeUnit.SECONDS.toNanos(5), nanos::get);
    private final List<CompletableFuture<Void>> started = new ArrayList<>();

    private CompletableFuture<Void> submit(String host) {
        return limiter.submit(host, () -> {
            CompletableFuture<Void> send = new CompletableFuture<>();
            started.add(send);
            return send;
        });
    }

    @Test
    void callbacks_beyond_the_limit_wait_and_start_in_order_as_earlier_ones_complete() {
        CompletableFuture<Void> first = submit("http://a:1");
        submit("http://a:1");
        CompletableFuture<Void> third = submit("http://a:1");
        submit("http://a:1");

        assertThat(started).hasSize(2);
        assertThat(limiter.open("http://a:1")).isEqualTo(2);
        assertThat(limiter.queued("http://a:1")).isEqualTo(2);

        started.get(0).complete(null);

        assertThat(first).isCompleted();
        assertThat(started).as("the first waiting one started").hasSize(3);
        assertThat(third).isNotDone();
        started.get(2).complete(null);
        assertThat(third).isCompleted();
        assertThat(started).hasSize(4);
    }

    @Test
    void a_full_host_does_not_hold_up_another_host() {
        submit("http://a:1");
        submit("http://a:1");
        submit("http://a:1");

        submit("http://b:1");

        assertThat(started).hasSize(3);
        assertThat(limiter.open("http://b:1")).isEqualTo(1);
    }

    @Test
    void a_callback_that_waited_too_long_is_turned_away_unsent_and_its_turn_passes_on() {
        submit("http://a:1");
        submit("http://a:1");
        CompletableFuture<Void> late = submit("http://a:1");
        nanos.addAndGet(TimeUnit.SECONDS.toNanos(6));
        CompletableFuture<Void> inTime = submit("http://a:1");

        started.get(0).completeExceptionally(new IllegalStateException("HTTP 500"));

        assertThat(late).isCompletedExceptionally();
        assertThat(late.handle((ok, e) -> e).join()).isInstanceOf(DispatchRejectedException.class);
        assertThat(started).as("the late one was not started, the next one was").hasSize(3);
        started.get(2).complete(null);
        assertThat(inTime).isCompleted();
    }

    @Test
    void a_failed_send_fails_its_callback_and_frees_its_slot() {
        CompletableFuture<Void> failing = submit("http://a:1");

        started.get(0).completeExceptionally(new IllegalStateException("refused"));

        assertThat(failing).isCompletedExceptionally();
        assertThat(limiter.open("http://a:1")).isZero();
    }
}
