package io.delayqueue.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.regex.Pattern;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class JobIdsTest {
    private static final long NOW = Instant.parse("2026-07-01T12:00:00Z").toEpochMilli();
    private static final Pattern GENERATED = Pattern.compile("[0-9a-z]{14}");

    // ---- generated ids ----

    @Test
    void generated_ids_are_fourteen_base36_characters_and_valid_client_ids() {
        long[] times = {Long.MIN_VALUE, 0, JobIds.EPOCH_MILLIS - 1, JobIds.EPOCH_MILLIS, NOW, Long.MAX_VALUE};
        for (int node : new int[] {0, 1, 4_242, JobIds.NODES - 1}) {
            JobIds.Generator generator = new JobIds.Generator(node);
            for (long now : times) {
                for (int i = 0; i < 3; i++) {
                    String id = generator.next(now);

                    assertThat(id).as("node %d at %d", node, now).matches(GENERATED);
                    assertThat(JobIds.CLIENT_ID.matcher(id).matches()).as(id).isTrue();
                }
            }
        }
    }

    @Test
    void ids_of_one_generator_are_unique_and_increasing_through_bursts_and_a_clock_that_goes_back() {
        JobIds.Generator generator = new JobIds.Generator(77);
        List<Long> clock = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            clock.add(NOW); // more than 4096 in one millisecond
        }
        for (int i = 0; i < 40_000; i++) {
            clock.add(NOW + 1 + i / 3); // three per millisecond, while the burst is still ahead of the clock
        }
        for (int i = 0; i < 30_000; i++) {
            clock.add(NOW - 60_000 + i); // the clock went back a minute
        }
        for (int i = 0; i < 30_000; i++) {
            clock.add(NOW + 3_600_000 + i / 2); // and jumps forward an hour
        }

        Set<String> ids = new HashSet<>();
        String previous = "";
        for (long now : clock) {
            String id = generator.next(now);
            assertThat(id).as("id at %d after %s", now, previous).isGreaterThan(previous);
            ids.add(id);
            previous = id;
        }

        assertThat(ids).hasSize(clock.size());
    }

    @Test
    void generated_ids_sort_as_the_numbers_they_encode_and_follow_the_clock() {
        JobIds.Generator generator = new JobIds.Generator(5);

        String first = generator.next(NOW);
        String aSecondLater = generator.next(NOW + 1_000);
        String aYearLater = generator.next(NOW + 365L * 24 * 3_600_000);

        assertThat(first).isLessThan(aSecondLater).isLessThan(aYearLater);
        assertThat(decode(aSecondLater)[0] - decode(first)[0]).isEqualTo(1_000);
    }

    @Test
    void one_generator_shared_by_threads_never_hands_out_an_id_twice() throws Exception {
        JobIds.Generator generator = new JobIds.Generator(3);
        int threads = 8;
        int perThread = 20_000;
        Set<String> ids = ConcurrentHashMap.newKeySet();
        CyclicBarrier start = new CyclicBarrier(threads);
        List<Thread> running = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(() -> {
                try {
                    start.await();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                for (int i = 0; i < perThread; i++) {
                    ids.add(generator.next(NOW + i / 100));
                }
            });
            thread.start();
            running.add(thread);
        }
        for (Thread thread : running) {
            thread.join();
        }

        assertThat(ids).hasSize(threads * perThread);
    }

    @Test
    void generators_of_different_nodes_never_make_the_same_id_at_the_same_millisecond() {
        int[][] pairs = {{1, 2}, {0, JobIds.NODES - 1}, {4_095, 4_096}};
        for (int[] pair : pairs) {
            JobIds.Generator a = new JobIds.Generator(pair[0]);
            JobIds.Generator b = new JobIds.Generator(pair[1]);
            Set<String> ofA = new HashSet<>();
            List<String> ofB = new ArrayList<>();
            for (int i = 0; i < 10_000; i++) {
                ofA.add(a.next(NOW));
                ofB.add(b.next(NOW));
            }

            assertThat(ofB).as("nodes %d and %d", pair[0], pair[1]).doesNotContainAnyElementsOf(ofA);
        }
    }

    /**
     * Pinned value: the layout is time (41 bits) | node (19) | sequence (12) in base 36. Ids already handed out
     * keep their meaning, and their order follows time first.
     */
    @Test
    void an_id_encodes_time_node_and_sequence_the_same_way_in_every_version() {
        long ms = NOW - JobIds.EPOCH_MILLIS;

        assertThat(JobIds.encode(ms, 12_345, 0)).isEqualTo("073ur6gjefe0ao");
        assertThat(new JobIds.Generator(12_345).next(NOW)).isEqualTo("073ur6gjefe0ao");
        assertThat(JobIds.encode(0, 0, 0)).isEqualTo("00000000000000");
        assertThat(JobIds.encode(JobIds.MAX_TIME, JobIds.NODES - 1, 4_095)).isEqualTo("rombrbjfm2fe9r");
        assertThat(decode("073ur6gjefe0ao")).containsExactly(ms, 12_345, 0);
    }

    @Test
    void encoding_agrees_with_big_integer_arithmetic_over_the_whole_range() {
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 100_000; i++) {
            long ms = i < 4
                    ? new long[] {0, 1, JobIds.MAX_TIME - 1, JobIds.MAX_TIME}[i]
                    : random.nextLong(JobIds.MAX_TIME + 1);
            int node = i % 3 == 0 ? JobIds.NODES - 1 : random.nextInt(JobIds.NODES);
            int sequence = i % 5 == 0 ? 4_095 : random.nextInt(4_096);

            String id = JobIds.encode(ms, node, sequence);

            assertThat(id).matches(GENERATED);
            assertThat(decode(id)).as(id).containsExactly(ms, node, sequence);
        }
    }

    @Test
    void times_before_the_epoch_count_as_the_epoch() {
        for (long before : new long[] {Long.MIN_VALUE, 0, 1_700_000_000_000L, JobIds.EPOCH_MILLIS - 1}) {
            JobIds.Generator generator = new JobIds.Generator(9);

            assertThat(generator.next(before)).isEqualTo(JobIds.encode(0, 9, 0));
            assertThat(generator.next(before)).isEqualTo(JobIds.encode(0, 9, 1));
            assertThat(generator.next(JobIds.EPOCH_MILLIS + 1)).isEqualTo(JobIds.encode(1, 9, 0));
        }
    }

    @Test
    void times_past_2095_count_as_the_last_millisecond_until_its_sequence_is_used_up() {
        JobIds.Generator generator = new JobIds.Generator(JobIds.NODES - 1);
        long last = JobIds.EPOCH_MILLIS + JobIds.MAX_TIME;

        assertThat(generator.next(Long.MAX_VALUE)).isEqualTo(JobIds.encode(JobIds.MAX_TIME, JobIds.NODES - 1, 0));
        assertThat(generator.next(last + 1)).isEqualTo(JobIds.encode(JobIds.MAX_TIME, JobIds.NODES - 1, 1));
        for (int sequence = 2; sequence < 4_096; sequence++) {
            assertThat(generator.next(NOW)).matches(GENERATED);
        }
        assertThatThrownBy(() -> generator.next(Long.MAX_VALUE))
                .as("the last id of the node was handed out; a wrapped one would repeat an earlier id")
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void node_must_be_in_range() {
        assertThatThrownBy(() -> new JobIds.Generator(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new JobIds.Generator(JobIds.NODES)).isInstanceOf(IllegalArgumentException.class);
        assertThat(new JobIds.Generator(JobIds.NODES - 1).node()).isEqualTo(JobIds.NODES - 1);
    }

    @Test
    void generated_ids_spread_evenly_over_the_shards() {
        JobIds.Generator burst = new JobIds.Generator(12_345);
        JobIds.Generator onePerMillisecond = new JobIds.Generator(12_346);
        int[] ofBurst = new int[8];
        int[] ofOnePerMillisecond = new int[8];
        for (int i = 0; i < 80_000; i++) {
            ofBurst[JobIds.shardOf(burst.next(NOW), 8)]++;
            ofOnePerMillisecond[JobIds.shardOf(onePerMillisecond.next(NOW + i), 8)]++;
        }

        for (int shard = 0; shard < 8; shard++) {
            assertThat(ofBurst[shard]).as("ids of a burst in shard %d", shard).isBetween(9_000, 11_000);
            assertThat(ofOnePerMillisecond[shard])
                    .as("ids one per ms in shard %d", shard)
                    .isBetween(9_000, 11_000);
        }
    }

    // ---- placement ----

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 8, 16, 100, 1024})
    void id_of_the_old_generated_form_is_found_in_the_shard_it_names(int shards) {
        for (int shard = 0; shard < shards; shard++) {
            String id = shard + "-lz4x1k2m9f0c3a7d1q0ab";

            assertThat(JobIds.shardOf(id, shards)).as(id).isEqualTo(shard);
        }
    }

    @Test
    void placement_is_the_same_as_before_generated_ids_changed_for_every_kind_of_id() {
        SplittableRandom random = new SplittableRandom(11);
        String alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABC._:-";
        JobIds.Generator generator = new JobIds.Generator(99);
        for (int i = 0; i < 50_000; i++) {
            String id;
            switch (i % 4) {
                case 0 -> id = generator.next(NOW + i);
                case 1 -> { // near the old generated form: digits, a dash, base 36, with the odd stray character
                    StringBuilder b = new StringBuilder();
                    int digits = random.nextInt(7);
                    for (int k = 0; k < digits; k++) {
                        b.append((char) ('0' + random.nextInt(10)));
                    }
                    b.append('-');
                    int rest = 10 + random.nextInt(33);
                    for (int k = 0; k < rest; k++) {
                        b.append(alphabet.charAt(random.nextInt(random.nextInt(20) == 0 ? alphabet.length() : 36)));
                    }
                    id = b.toString();
                }
                default -> {
                    StringBuilder b = new StringBuilder();
                    int length = 1 + random.nextInt(40);
                    for (int k = 0; k < length; k++) {
                        b.append(alphabet.charAt(random.nextInt(alphabet.length())));
                    }
                    id = b.toString();
                }
            }
            int shards = 1 + random.nextInt(i % 2 == 0 ? 16 : 100_000);

            assertThat(JobIds.shardOf(id, shards))
                    .as("%s in %d shards", id, shards)
                    .isEqualTo(shardBefore(id, shards));
        }
    }

    @Test
    void shard_of_a_client_id_is_stable_and_in_range() {
        SplittableRandom random = new SplittableRandom(42);
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-";
        for (int i = 0; i < 5_000; i++) {
            StringBuilder id = new StringBuilder();
            int length = 1 + random.nextInt(128);
            for (int k = 0; k < length; k++) {
                id.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            int shards = 1 + random.nextInt(1024);

            int shard = JobIds.shardOf(id.toString(), shards);

            assertThat(shard).as(id.toString()).isBetween(0, shards - 1);
            assertThat(JobIds.shardOf(new String(id), shards)).isEqualTo(shard);
        }
    }

    @Test
    void client_ids_spread_over_every_shard() {
        int[] perShard = new int[8];
        for (int i = 0; i < 8_000; i++) {
            perShard[JobIds.shardOf("order-" + i, 8)]++;
        }

        for (int n : perShard) {
            assertThat(n).isBetween(800, 1_200);
        }
    }

    /**
     * Pinned values: a job's keys are found from its id alone, so the placement rule must never change while
     * a queue holds jobs. If this fails, the rule changed and live queues would strand their jobs.
     */
    @ParameterizedTest(name = "{0} in {1} shards is shard {2}")
    @CsvSource({
        "order-42, 8, 6",
        "order-42, 16, 14",
        "order-42, 1024, 974",
        "a, 8, 1",
        "a, 1024, 817",
        "ORDER:2024-01-01.7, 8, 4",
        "ORDER:2024-01-01.7, 1024, 668",
        "12-abcdefghijkl, 8, 4",
    })
    void shard_of_a_client_id_never_changes_between_versions(String id, int shards, int shard) {
        assertThat(JobIds.shardOf(id, shards)).isEqualTo(shard);
    }

    @Test
    void id_of_the_generated_shape_whose_shard_is_out_of_range_is_placed_by_hash_in_range() {
        String id = "12-abcdefghijkl";

        assertThat(JobIds.shardOf(id, 16)).isEqualTo(12);
        int placed = JobIds.shardOf(id, 8);
        assertThat(placed).isBetween(0, 7);
        assertThat(JobIds.shardOf(id, 8)).isEqualTo(placed);
    }

    @Test
    void single_shard_holds_every_id() {
        assertThat(JobIds.shardOf("anything", 1)).isZero();
        assertThat(JobIds.shardOf(new JobIds.Generator(0).next(NOW), 1)).isZero();
        assertThat(JobIds.shardOf("3-abcdefghijklm", 1)).isZero();
    }

    @Test
    void client_id_pattern_accepts_the_documented_alphabet_and_length() {
        assertThat(JobIds.CLIENT_ID.matcher("a").matches()).isTrue();
        assertThat(JobIds.CLIENT_ID.matcher("Order_1.2:3-x").matches()).isTrue();
        assertThat(JobIds.CLIENT_ID.matcher("x".repeat(128)).matches()).isTrue();
        assertThat(JobIds.CLIENT_ID.matcher("x".repeat(129)).matches()).isFalse();
        assertThat(JobIds.CLIENT_ID.matcher("").matches()).isFalse();
        assertThat(JobIds.CLIENT_ID.matcher("a b").matches()).isFalse();
        assertThat(JobIds.CLIENT_ID.matcher("a/b").matches()).isFalse();
        assertThat(JobIds.CLIENT_ID.matcher("a_b").matches()).isTrue();
    }

    /** {@code [ms since the epoch, node, sequence]} of a generated id, by BigInteger arithmetic. */
    private static long[] decode(String id) {
        BigInteger n = new BigInteger(id, 36);
        assertThat(n.bitLength()).isLessThanOrEqualTo(72);
        return new long[] {
            n.shiftRight(31).longValueExact(), n.shiftRight(12).intValue() & (JobIds.NODES - 1), n.intValue() & 4_095
        };
    }

    /** {@link JobIds#shardOf} as it was written before generated ids changed: a regex, a CRC32 per byte. */
    private static int shardBefore(String id, int shards) {
        var m = Pattern.compile("(\\d{1,5})-[0-9a-z]{12,40}").matcher(id);
        if (m.matches()) {
            int shard = Integer.parseInt(m.group(1));
            if (shard < shards) {
                return shard;
            }
        }
        CRC32 crc = new CRC32();
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            crc.update(c >>> 8);
            crc.update(c);
        }
        return (int) (crc.getValue() % shards);
    }

    @Test
    void is_client_id_agrees_with_the_client_id_pattern() {
        java.util.Random random = new java.util.Random(18);
        String alphabet = "aZ09._:-/ \u00e9\u0000+{}";
        List<String> samples = new java.util.ArrayList<>(List.of("", "a", "x".repeat(128), "x".repeat(129), "a b"));
        for (int i = 0; i < 20_000; i++) {
            StringBuilder id = new StringBuilder();
            int length = random.nextInt(132);
            for (int k = 0; k < length; k++) {
                id.append(alphabet.charAt(random.nextInt(random.nextInt(10) < 8 ? 8 : alphabet.length())));
            }
            samples.add(id.toString());
        }
        for (String id : samples) {
            assertThat(JobIds.isClientId(id))
                    .as(id)
                    .isEqualTo(JobIds.CLIENT_ID.matcher(id).matches());
        }
        assertThat(samples.stream().filter(JobIds::isClientId).count())
                .as("valid samples")
                .isGreaterThan(1_000);
        assertThat(samples.stream().filter(id -> !JobIds.isClientId(id)).count())
                .as("invalid samples")
                .isGreaterThan(1_000);
    }
}
