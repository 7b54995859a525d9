package io.delayqueue.queue.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CombinerTest {
    private final ExecutorService callers = Executors.newFixedThreadPool(64);

    @AfterEach
    void stop() {
        callers.shutdownNow();
    }

    @Test
    void everyCallerGetsTheResultsOfItsOwnItemsInOrderAndConcurrentCallersShareCalls() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        AtomicInteger running = new AtomicInteger();
        AtomicInteger mostRunning = new AtomicInteger();
        Combiner<Integer, String> combiner = new Combiner<>(
                items -> {
                    calls.incrementAndGet();
                    mostRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
                    try {
                        sleep(1); // a round trip: callers pile up meanwhile
                        return items.stream().map(i -> "r" + i).toList();
                    } finally {
                        running.decrementAndGet();
                    }
                },
                100,
                2);
        int callersCount = 64;
        int perCaller = 200;
        List<CompletableFuture<Boolean>> done = new ArrayList<>();
        for (int c = 0; c < callersCount; c++) {
            int caller = c;
            done.add(CompletableFuture.supplyAsync(
                    () -> {
                        for (int k = 0; k < perCaller; k++) {
                            int base = (caller * perCaller + k) * 3;
                            List<Integer> mine = List.of(base, base + 1, base + 2);
                            if (!combiner.run(mine).equals(List.of("r" + base, "r" + (base + 1), "r" + (base + 2)))) {
                                return false;
                            }
                        }
                        return true;
                    },
                    callers));
        }
        for (CompletableFuture<Boolean> f : done) {
            assertThat(f.get(60, TimeUnit.SECONDS))
                    .as("a caller got its own results")
                    .isTrue();
        }
        int requests = callersCount * perCaller;
        assertThat(calls.get()).as("calls for %d requests", requests).isLessThan(requests / 4);
        assertThat(mostRunning.get()).as("calls running at once").isBetween(1, 2);
    }

    @Test
    void noRoundHoldsMoreThanTheMaximumUnlessOneCallerBringsMore() throws Exception {
        ConcurrentLinkedQueue<Integer> sizes = new ConcurrentLinkedQueue<>();
        Combiner<Integer, Integer> combiner = new Combiner<>(
                items -> {
                    sizes.add(items.size());
                    sleep(1);
                    return items;
                },
                10,
                1);
        CountDownLatch all = new CountDownLatch(32);
        for (int c = 0; c < 32; c++) {
            callers.execute(() -> {
                for (int k = 0; k < 50; k++) {
                    combiner.run(List.of(1, 2, 3));
                }
                all.countDown();
            });
        }
        assertThat(all.await(60, TimeUnit.SECONDS)).isTrue();
        List<Integer> big = IntStream.range(0, 25).boxed().toList();
        assertThat(combiner.run(big)).isEqualTo(big);
        assertThat(sizes).allMatch(s -> s <= 10 || s == 25).contains(25);
    }

    @Test
    void aFailedCallFailsExactlyTheCallersWhoseItemsItCarriedAndTheNextCallsWork() throws Exception {
        Combiner<String, String> combiner = new Combiner<>(
                items -> {
                    if (items.contains("bad")) {
                        throw new IllegalStateException("the database is down");
                    }
                    return items;
                },
                100,
                1);
        assertThatThrownBy(() -> combiner.run(List.of("bad")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("the database is down");
        assertThat(combiner.run(List.of("good"))).containsExactly("good");

        // many callers, some bad: every good caller whose round had no bad item succeeds, none hangs
        List<CompletableFuture<List<String>>> results = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            String item = i % 50 == 0 ? "bad" : "item-" + i;
            results.add(CompletableFuture.supplyAsync(() -> combiner.run(List.of(item)), callers));
        }
        int failed = 0;
        for (int i = 0; i < results.size(); i++) {
            try {
                assertThat(results.get(i).get(60, TimeUnit.SECONDS)).containsExactly("item-" + i);
            } catch (java.util.concurrent.ExecutionException e) {
                assertThat(e.getCause()).hasMessage("the database is down");
                failed++;
            }
        }
        assertThat(failed).as("callers failed with a bad item's round").isBetween(10, 490);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
