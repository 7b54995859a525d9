package io.delayqueue.common;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class JobIdsTest {
    private static final long NOW = 1_700_000_000_000L;

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 8, 16, 100, 1024})
    void generated_id_carries_its_shard(int shards) {
        for (int shard = 0; shard < shards; shard++) {
            String id = JobIds.generate(shard, NOW);

            assertThat(JobIds.shardOf(id, shards)).as(id).isEqualTo(shard);
            assertThat(id).startsWith(shard + "-");
        }
    }

    @Test
    void generated_ids_are_valid_client_ids_and_unique() {
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 20_000; i++) {
            String id = JobIds.generate(i % 8, NOW);
            assertThat(JobIds.CLIENT_ID.matcher(id).matches()).as(id).isTrue();
            ids.add(id);
        }

        assertThat(ids).hasSize(20_000);
    }

    @Test
    void generated_id_keeps_its_shard_at_any_time() {
        for (long now : new long[] {0, 1, NOW, Long.MAX_VALUE}) {
            assertThat(JobIds.shardOf(JobIds.generate(5, now), 8)).isEqualTo(5);
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
        assertThat(JobIds.shardOf(JobIds.generate(0, NOW), 1)).isZero();
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
}
