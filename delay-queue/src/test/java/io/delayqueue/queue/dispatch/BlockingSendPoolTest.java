package io.delayqueue.queue.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class BlockingSendPoolTest {
    private static Job job(String id) {
        return new Job(id, "t", null, null, "b", 0, 1, 1, null, 0, 0, JobStatus.RESERVED, 0);
    }

    private static Throwable failureOf(CompletableFuture<Void> f) {
        try {
            f.join();
        } catch (CompletionException e) {
            return e.getCause();
        }
        throw new AssertionError("completed normally");
    }

    @Test
    void a_send_that_returns_confirms_and_one_that_throws_fails_with_its_error() {
        try (BlockingSendPool pool =
                new BlockingSendPool("test", 2, 10, Duration.ofSeconds(5), Duration.ofSeconds(1))) {
            pool.submit(job("ok"), j -> {}).join();

            Throwable failure = failureOf(pool.submit(job("bad"), j -> {
                throw new java.io.IOException("broker gone");
            }));

            assertThat(failure).isInstanceOf(java.io.IOException.class).hasMessage("broker gone");
        }
    }

    @Test
    void a_send_that_finds_the_queue_full_is_turned_away_at_once_unsent() throws InterruptedException {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (BlockingSendPool pool =
                new BlockingSendPool("test", 1, 1, Duration.ofSeconds(30), Duration.ofSeconds(5))) {
            CompletableFuture<Void> first = pool.submit(job("1"), j -> {
                running.countDown();
                release.await();
            });
            assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<Void> queued = pool.submit(job("2"), j -> {});
            boolean[] sent = {false};

            CompletableFuture<Void> third = pool.submit(job("3"), j -> sent[0] = true);

            assertThat(failureOf(third))
                    .isInstanceOf(DispatchRejectedException.class)
                    .hasMessageContaining("queued");
            release.countDown();
            first.join();
            queued.join();
            assertThat(sent[0]).isFalse();
        }
    }

    @Test
    void a_send_that_waited_in_the_queue_longer_than_allowed_is_turned_away_unsent() throws InterruptedException {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicLong nanos = new AtomicLong();
        try (BlockingSendPool pool =
                new BlockingSendPool("test", 1, 5, Duration.ofSeconds(1), Duration.ofSeconds(5), nanos::get)) {
            pool.submit(job("1"), j -> {
                running.countDown();
                release.await();
            });
            assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
            boolean[] sent = {false};
            CompletableFuture<Void> waiting = pool.submit(job("2"), j -> sent[0] = true);
            nanos.addAndGet(Duration.ofSeconds(1).toNanos() + 1);
            release.countDown();

            assertThat(failureOf(waiting))
                    .isInstanceOf(DispatchRejectedException.class)
                    .hasMessageContaining("waited");
            assertThat(sent[0]).isFalse();
        }
    }

    @Test
    void closing_turns_away_the_queued_sends() throws InterruptedException {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        BlockingSendPool pool = new BlockingSendPool("test", 1, 5, Duration.ofSeconds(30), Duration.ofSeconds(5));
        CompletableFuture<Void> first = pool.submit(job("1"), j -> {
            running.countDown();
            release.await();
        });
        assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Void> queued = pool.submit(job("2"), j -> {});

        Thread closer = new Thread(pool::close);
        closer.start();
        assertThat(failureOf(queued))
                .isInstanceOf(DispatchRejectedException.class)
                .hasMessageContaining("closing");
        release.countDown();
        closer.join();

        first.join();
        assertThat(failureOf(pool.submit(job("3"), j -> {}))).isInstanceOf(DispatchRejectedException.class);
    }

    @Test
    void queue_wait_is_what_the_dispatch_timeout_leaves_after_a_send_and_a_second() {
        assertThat(BlockingSendPool.maxQueueWait(Duration.ofSeconds(30), Duration.ofSeconds(3)))
                .isEqualTo(Duration.ofSeconds(26));
        assertThatThrownBy(() -> BlockingSendPool.maxQueueWait(Duration.ofSeconds(5), Duration.ofSeconds(4)))
                .hasMessageContaining("delay.dispatch.timeout");
    }
}
