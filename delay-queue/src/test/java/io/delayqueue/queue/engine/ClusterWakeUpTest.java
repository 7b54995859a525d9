package io.delayqueue.queue.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.common.JobIds;
import io.delayqueue.common.PushRequest;
import io.delayqueue.queue.coordination.curator.ShardOwnershipCoordinator;
import io.delayqueue.queue.journal.Journal;
import io.delayqueue.queue.store.redis.RedisWakeUpChannel;
import io.delayqueue.queue.testing.RecordingDispatcher;
import io.delayqueue.queue.testing.RedisFixture;
import io.delayqueue.queue.testing.ZooKeeperFixture;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * Three engines in cluster mode on one real Redis and a real ZooKeeper, one shard each. Scanners sleep up to {@link
 * #MAX_SLEEP}, so a job due soon that is handed over well within it was woken over the wake-up channel; the
 * wake-up must reach the shard's owner only, not every instance.
 */
class ClusterWakeUpTest {
    private static final int SHARDS = 3;
    private static final Duration MAX_SLEEP = Duration.ofSeconds(30);
    /** A bound on events, not a timing: the division of the shards took over 15 s at load 15. */
    private static final Duration WAIT = Duration.ofSeconds(40);

    private RedisFixture redis;
    private ZooKeeperFixture zk;
    private final List<Instance> instances = new ArrayList<>();

    private record Instance(
            DelayQueueEngine engine,
            ShardOwnershipCoordinator coordinator,
            RedisWakeUpChannel channel,
            RecordingDispatcher dispatcher) {
        Set<Integer> owned() {
            Set<Integer> owned = new TreeSet<>();
            IntStream.range(0, SHARDS).filter(coordinator::owns).forEach(owned::add);
            return owned;
        }
    }

    @BeforeEach
    void setUp() throws Exception {
        redis = new RedisFixture();
        zk = new ZooKeeperFixture();
        EngineConfig config = EngineConfig.DEFAULTS
                .withShards(SHARDS)
                .withRedisPrefix(redis.prefix())
                .withScanner(s -> s.withMaxSleep(MAX_SLEEP))
                .withDispatch(d -> d.withDefaultDispatcher("rec"));
        for (String id : List.of("a", "b", "c")) {
            ShardOwnershipCoordinator coordinator =
                    new ShardOwnershipCoordinator(zk.connectedClient(), "/wake", SHARDS, id);
            RedisWakeUpChannel channel = new RedisWakeUpChannel(redis.redis(), redis.prefix(), SHARDS);
            RecordingDispatcher dispatcher = new RecordingDispatcher("rec");
            DelayQueueEngine engine = new DelayQueueEngine(
                    config,
                    RedisFixture.agreed(redis.store(SHARDS, config.retention())),
                    List.of(dispatcher),
                    coordinator,
                    Journal.NONE,
                    Clock.systemUTC(),
                    channel);
            instances.add(new Instance(engine, coordinator, channel, dispatcher));
            engine.start();
        }
        await("one shard each, and each instance following its own shard's wake-ups")
                .atMost(WAIT)
                .until(() -> instances.stream()
                        .allMatch(i -> i.owned().size() == 1
                                && subscribers(i.channel()
                                                .shardChannel(
                                                        i.owned().iterator().next()))
                                        == 1));
    }

    private long subscribers(String channel) {
        try (Jedis jedis = new Jedis(RedisFixture.HOST, RedisFixture.PORT)) {
            return jedis.pubsubNumSub(channel).getOrDefault(channel, 0L);
        }
    }

    @AfterEach
    void tearDown() {
        try {
            instances.forEach(i -> i.engine().close());
        } finally {
            try {
                zk.close();
            } finally {
                redis.close();
            }
        }
    }

    @Test
    void a_job_due_soon_pushed_on_one_instance_wakes_the_owner_of_its_shard_and_no_other_instance() {
        Instance pusher = instances.get(0);
        Instance owner = instances.get(1);
        Instance bystander = instances.get(2);
        int shard = owner.owned().iterator().next();
        String id = IntStream.range(0, 1_000)
                .mapToObj(i -> "wake-" + i)
                .filter(candidate -> JobIds.shardOf(candidate, SHARDS) == shard)
                .findFirst()
                .orElseThrow();

        pusher.engine().push(PushRequest.of("orders", "close 42", 300).withId(id));

        await("the owner handed the job over, well before its scanner would have looked")
                .atMost(MAX_SLEEP.dividedBy(3))
                .until(() -> owner.dispatcher().ids().contains(id));
        assertThat(owner.channel().shardWakeUpsReceived()).isPositive();
        assertThat(bystander.channel().shardWakeUpsReceived())
                .as("an instance that does not scan the shard receives none of its wake-ups")
                .isZero();
        assertThat(pusher.channel().shardWakeUpsReceived()).isZero();
        assertThat(bystander.dispatcher().count() + pusher.dispatcher().count()).isZero();
    }
}
