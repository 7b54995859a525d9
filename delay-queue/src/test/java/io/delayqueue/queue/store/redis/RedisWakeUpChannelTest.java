package io.delayqueue.queue.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.queue.coordination.WakeUpChannel;
import io.delayqueue.queue.testing.RedisFixture;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * Three instances' wake-up channels on one real Redis: {@code pusher} owns no shard, {@code owner1} shard 1 and
 * {@code owner2} shard 2. A shard's wake-up must reach the instance that scans the shard and no other, so that a
 * push due soon costs one delivery however many instances share the queue; ready topics reach every instance.
 */
class RedisWakeUpChannelTest {
    private static final int SHARDS = 4;
    private static final Duration BOUND = Duration.ofSeconds(5);

    private RedisFixture redis;
    private final List<RedisWakeUpChannel> channels = new CopyOnWriteArrayList<>();
    private Recording pusher;
    private Recording owner1;
    private Recording owner2;

    /** A listener that owns the shards it is given and records what it hears. */
    private static final class Recording implements WakeUpChannel.Listener {
        final Set<Integer> owned = ConcurrentHashMap.newKeySet();
        final List<Map.Entry<Integer, Long>> scheduled = new CopyOnWriteArrayList<>();
        final List<String> ready = new CopyOnWriteArrayList<>();
        RedisWakeUpChannel channel;

        Recording(Integer... shards) {
            owned.addAll(List.of(shards));
        }

        @Override
        public void scheduled(int shard, long dueAt) {
            scheduled.add(Map.entry(shard, dueAt));
        }

        @Override
        public void ready(String topic) {
            ready.add(topic);
        }

        @Override
        public void resynchronize() {}

        @Override
        public boolean owns(int shard) {
            return owned.contains(shard);
        }

        boolean heardOf(int shard) {
            return scheduled.stream().anyMatch(e -> e.getKey() == shard);
        }

        boolean heardOf(int shard, long dueAt) {
            return scheduled.contains(Map.entry(shard, dueAt));
        }
    }

    @BeforeEach
    void setUp() {
        redis = new RedisFixture();
        pusher = start(new Recording());
        owner1 = start(new Recording(1));
        owner2 = start(new Recording(2));
        await("every instance follows the ready topics and its own shards")
                .atMost(BOUND)
                .until(() -> subscribers(pusher.channel.channel()) == 3
                        && subscribers(owner1.channel.shardChannel(1)) == 1
                        && subscribers(owner2.channel.shardChannel(2)) == 1);
    }

    private Recording start(Recording listener) {
        RedisWakeUpChannel channel = new RedisWakeUpChannel(redis.redis(), redis.prefix(), SHARDS);
        listener.channel = channel;
        channels.add(channel);
        channel.start(listener);
        return listener;
    }

    private long subscribers(String channel) {
        try (Jedis jedis = new Jedis(RedisFixture.HOST, RedisFixture.PORT)) {
            return jedis.pubsubNumSub(channel).getOrDefault(channel, 0L);
        }
    }

    @AfterEach
    void tearDown() {
        try {
            channels.forEach(RedisWakeUpChannel::close);
        } finally {
            redis.close();
        }
    }

    @Test
    void a_shard_wake_up_reaches_only_the_instance_that_scans_the_shard() {
        long dueAt = System.currentTimeMillis() + 200;
        pusher.channel.publishScheduled(1, dueAt);
        // published after the wake-up, on the channel every instance follows: once each instance has it, the
        // wake-up would have reached it before, had it been sent to it
        pusher.channel.publishReady(List.of("orders"));

        await("the owner of shard 1 woken, the ready topic everywhere")
                .atMost(BOUND)
                .until(() ->
                        owner1.heardOf(1, dueAt) && owner1.ready.contains("orders") && owner2.ready.contains("orders"));
        assertThat(owner2.heardOf(1))
                .as("the owner of another shard hears nothing of shard 1")
                .isFalse();
        assertThat(owner2.channel.shardWakeUpsReceived()).isZero();
        assertThat(owner1.channel.shardWakeUpsReceived()).isEqualTo(1);
        assertThat(pusher.scheduled).as("the pusher ignores its own wake-ups").isEmpty();
    }

    @Test
    void a_shard_taken_over_is_followed_and_its_scanner_woken_once_for_what_was_published_before() {
        owner2.owned.add(3);
        owner2.channel.ownershipChanged();

        await("the new owner follows shard 3 and wakes its scanner")
                .atMost(BOUND)
                .until(() -> subscribers(owner2.channel.shardChannel(3)) == 1 && owner2.heardOf(3, Long.MIN_VALUE));
        long dueAt = System.currentTimeMillis() + 100;
        pusher.channel.publishScheduled(3, dueAt);
        await("the new owner woken").atMost(BOUND).until(() -> owner2.heardOf(3, dueAt));

        owner2.owned.remove(3);
        owner2.channel.ownershipChanged();
        await("the old owner leaves shard 3's channel")
                .atMost(BOUND)
                .until(() -> subscribers(owner2.channel.shardChannel(3)) == 0);
        assertThat(owner2.channel.followedShards()).containsExactly(2);
    }

    @Test
    void ownership_that_changes_untold_is_followed_within_the_recheck() {
        // a coordinator whose ownership comes back after a silence may not tell the engine; the channel looks anyway
        owner1.owned.add(0);

        await("shard 0 followed without being told")
                .atMost(Duration.ofMillis(RedisWakeUpChannel.FOLLOW_RECHECK_MS).plus(BOUND))
                .until(() -> subscribers(owner1.channel.shardChannel(0)) == 1);
        long dueAt = System.currentTimeMillis() + 100;
        pusher.channel.publishScheduled(0, dueAt);
        await("the owner of shard 0 woken").atMost(BOUND).until(() -> owner1.heardOf(0, dueAt));
    }
}
