package io.delayqueue.queue.engine.push;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

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
    private static final java.time.Duration WAIT = java.time.Duration.ofSeconds(10);
    private final ExecutorService callers = Executors.newFixedThreadPool(64);

    @AfterEach
    void stop() {
        callers.shutdownNow();
    }

    @Test
    void every_caller_gets_the_results_of_its_own_items_in_order_and_concurrent_callers_share_calls() throws Exception {
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
    void no_round_holds_more_than_the_maximum_unless_one_caller_brings_more() throws Exception {
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
    void a_failed_call_fails_exactly_the_callers_whose_items_it_carried_and_the_next_calls_work() throws Exception {
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

    @Test
    void a_round_that_hangs_does_not_hold_callers_queued_behind_it_past_their_deadline() throws Exception {
        CountDownLatch hanging = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<List<List<Integer>>> rounds = new java.util.concurrent.CopyOnWriteArrayList<>();
        Combiner<Integer, Integer> combiner = new Combiner<Integer, Integer>(
                (groups, deadline) -> {
                    rounds.add(groups);
                    hanging.countDown();
                    try {
                        release.await(); // the database froze: this round answers when the test says so
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return groups.stream().flatMap(List::stream).toList();
                },
                100,
                1);
        CompletableFuture<List<Integer>> hung =
                CompletableFuture.supplyAsync(() -> combiner.run(List.of(1), far()), callers);
        assertThat(hanging.await(10, TimeUnit.SECONDS)).isTrue();

        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
        List<CompletableFuture<Long>> queued = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            int item = 10 + i;
            queued.add(CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            combiner.run(List.of(item), deadline);
                            return -1L;
                        } catch (Combiner.DeadlinePassed e) {
                            return System.nanoTime() - deadline;
                        }
                    },
                    callers));
        }
        for (CompletableFuture<Long> q : queued) {
            long lateNanos = q.get(10, TimeUnit.SECONDS);
            assertThat(lateNanos).as("a queued caller left at its deadline").isNotNegative();
            // generous: a busy machine may wake it late, but not by the hung round's time (held until released)
            assertThat(TimeUnit.NANOSECONDS.toMillis(lateNanos))
                    .as("ms after its deadline")
                    .isLessThan(5_000);
        }
        assertThat(hung).as("the hung round still runs").isNotDone();
        release.countDown();
        assertThat(hung.get(10, TimeUnit.SECONDS)).containsExactly(1);
        assertThat(rounds).as("no queued caller's items were run").hasSize(1);
        assertThat(combiner.run(List.of(99), far()))
                .as("the combiner works on after callers expired")
                .containsExactly(99);
    }

    @Test
    void a_round_is_given_the_earliest_deadline_of_its_callers() throws Exception {
        Rounds rounds = new Rounds();
        Combiner<Integer, Integer> combiner = new Combiner<>(rounds, 100, 1);
        rounds.hold(0);
        CompletableFuture<List<Integer>> leader =
                CompletableFuture.supplyAsync(() -> combiner.run(List.of(0), far()), callers);
        await("the first round runs").atMost(WAIT).until(() -> rounds.running() == 1);
        long base = System.nanoTime();
        long early = base + TimeUnit.SECONDS.toNanos(30);
        long late = base + TimeUnit.SECONDS.toNanos(60);
        CompletableFuture<List<Integer>> a =
                CompletableFuture.supplyAsync(() -> combiner.run(List.of(1), late), callers);
        CompletableFuture<List<Integer>> b =
                CompletableFuture.supplyAsync(() -> combiner.run(List.of(2), early), callers);
        await("both callers wait for a round").atMost(WAIT).until(() -> combiner.queued() == 2);
        rounds.release(0);
        assertThat(leader.get(10, TimeUnit.SECONDS)).containsExactly(0);
        assertThat(a.get(10, TimeUnit.SECONDS)).containsExactly(1);
        assertThat(b.get(10, TimeUnit.SECONDS)).containsExactly(2);
        assertThat(rounds.deadlines).as("deadlines of the two rounds").hasSize(2);
        assertThat(rounds.deadlines.get(1)).as("the round holding both").isEqualTo(early);
    }

    @Test
    void a_caller_whose_items_are_in_another_leaders_round_parks_while_a_leaders_place_is_free() throws Exception {
        Rounds rounds = new Rounds();
        Combiner<Integer, Integer> combiner = new Combiner<>(rounds, 100, 2);
        rounds.hold(1);
        rounds.hold(2);
        rounds.hold(3);
        CompletableFuture<List<Integer>> x1 =
                CompletableFuture.supplyAsync(() -> combiner.run(List.of(1), far()), callers);
        CompletableFuture<List<Integer>> x2 =
                CompletableFuture.supplyAsync(() -> combiner.run(List.of(2), far()), callers);
        await("two rounds hang, every leader's place taken").atMost(WAIT).until(() -> rounds.running() == 2);
        CompletableFuture<List<Integer>> b =
                CompletableFuture.supplyAsync(() -> combiner.run(List.of(3), far()), callers);
        await("the third caller waits").atMost(WAIT).until(() -> combiner.queued() == 1);
        java.util.concurrent.atomic.AtomicReference<Thread> waiter =
                new java.util.concurrent.atomic.AtomicReference<>();
        CompletableFuture<List<Integer>> c = CompletableFuture.supplyAsync(
                () -> {
                    waiter.set(Thread.currentThread());
                    return combiner.run(List.of(4), far());
                },
                callers);
        await("the fourth caller waits").atMost(WAIT).until(() -> combiner.queued() == 2);
        rounds.release(1); // its leader wakes the third caller, whose round takes the fourth's item and hangs
        assertThat(x1.get(10, TimeUnit.SECONDS)).containsExactly(1);
        await("the third caller's round runs")
                .atMost(WAIT)
                .until(() -> rounds.running() == 2 && combiner.queued() == 0);
        rounds.release(2); // a leader's place is free now, and the fourth caller's item is in a hanging round
        assertThat(x2.get(10, TimeUnit.SECONDS)).containsExactly(2);
        await("the fourth caller parks")
                .atMost(WAIT)
                .until(() -> waiter.get().getState() == Thread.State.WAITING
                        || waiter.get().getState() == Thread.State.TIMED_WAITING);
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long cpuBefore = threads.getThreadCpuTime(waiter.get().getId());
        long wallBefore = System.nanoTime();
        await("300 ms pass")
                .atMost(WAIT)
                .until(() -> System.nanoTime() - wallBefore > TimeUnit.MILLISECONDS.toNanos(300));
        long cpuMs = TimeUnit.NANOSECONDS.toMillis(
                threads.getThreadCpuTime(waiter.get().getId()) - cpuBefore);
        assertThat(cpuMs).as("CPU ms the parked caller used in 300 ms").isLessThan(100);
        rounds.release(3);
        assertThat(b.get(10, TimeUnit.SECONDS)).containsExactly(3);
        assertThat(c.get(10, TimeUnit.SECONDS)).containsExactly(4);
    }

    /** Work whose rounds hang while they hold an item the test holds; records each round's deadline. */
    private static final class Rounds implements Combiner.Work<Integer, Integer> {
        final List<Long> deadlines = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final java.util.Map<Integer, CountDownLatch> held = new java.util.concurrent.ConcurrentHashMap<>();
        private final AtomicInteger running = new AtomicInteger();

        void hold(int item) {
            held.put(item, new CountDownLatch(1));
        }

        void release(int item) {
            held.get(item).countDown();
        }

        int running() {
            return running.get();
        }

        @Override
        public List<Integer> run(List<List<Integer>> groups, long deadlineNanos) {
            deadlines.add(deadlineNanos);
            running.incrementAndGet();
            try {
                for (List<Integer> group : groups) {
                    for (Integer item : group) {
                        CountDownLatch latch = held.get(item);
                        if (latch != null) {
                            latch.await();
                        }
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                running.decrementAndGet();
            }
            return groups.stream().flatMap(List::stream).toList();
        }
    }

    private static long far() {
        return System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
