package io.delayqueue.e2e.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.RecordingDispatcherConfig;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.ServiceTest;
import io.delayqueue.queue.coordination.Coordinator;
import io.delayqueue.queue.engine.EngineConfig;
import io.delayqueue.queue.testing.RecordingDispatcher;
import io.delayqueue.queue.testing.TestIds;
import io.delayqueue.queue.testing.ZooKeeperFixture;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Issue 19 item 9 over HTTP, in cluster mode on a real ZooKeeper, Redis and MariaDB: an instance that lost a shard
 * between its owner check and its fence (its ZooKeeper lock is gone, {@code owns} has not caught up) holds no term
 * for it. "Not owned" is not "not fenced": it neither moves the shard's due jobs nor loads its far ones until it
 * holds the shard again, and then it moves them under an owner epoch. The interleaving is fixed: the service's
 * coordinator answers that it has no term for the shard while the test says so.
 */
@ServiceTest(
        properties = {
            "delay.dispatch.default=" + RecordingDispatcher.NAME,
            "delay.tier.horizon=2s",
            "delay.ha.mode=cluster",
            "delay.ha.instance-id=unowned-a",
            "delay.zk.session-timeout=3s",
            "delay.zk.connection-timeout=3s"
        })
@Import({RecordingDispatcherConfig.class, UnownedShardTest.LosingConfig.class})
class UnownedShardTest {
    static final ServiceStores STORES = ServiceStores.redisAndJournal("unowned");
    static final TestingServer ZOOKEEPER = startZooKeeper();
    /** The shard this instance has just lost, though {@code owns} still says it holds it; -1: none. */
    static final AtomicInteger LOST = new AtomicInteger(-1);

    private static TestingServer startZooKeeper() {
        try {
            return ZooKeeperFixture.startServer();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        STORES.register(registry);
        registry.add("delay.zk.connect", ZOOKEEPER::getConnectString);
    }

    /** Wraps the service's coordinator: for the {@link #LOST} shard, the term is gone. */
    @TestConfiguration(proxyBeanMethods = false)
    static class LosingConfig {
        @Bean
        static BeanPostProcessor loseTerms() {
            return new BeanPostProcessor() {
                @Override
                public Object postProcessAfterInitialization(Object bean, String name) {
                    return bean instanceof Coordinator c && name.equals("coordinator") ? new Losing(c) : bean;
                }
            };
        }
    }

    private record Losing(Coordinator real) implements Coordinator {
        @Override
        public void start(OwnershipListener listener) {
            real.start(listener);
        }

        @Override
        public boolean owns(int shard) {
            return real.owns(shard);
        }

        @Override
        public boolean tryBeginScan(int shard) {
            return real.tryBeginScan(shard);
        }

        @Override
        public void endScan(int shard) {
            real.endScan(shard);
        }

        @Override
        public boolean fencesOwnership() {
            return real.fencesOwnership();
        }

        @Override
        public String ownershipTerm(int shard) {
            return shard == LOST.get() ? null : real.ownershipTerm(shard);
        }

        @Override
        public boolean confirmTerm(int shard, String term) {
            return real.confirmTerm(shard, term);
        }

        @Override
        public String role() {
            return real.role();
        }

        @Override
        public void close() {
            real.close();
        }
    }

    @LocalServerPort
    int port;

    @Autowired
    RecordingDispatcher recorder;

    @Autowired
    EngineConfig engineConfig;

    @Autowired
    Coordinator coordinator;

    @Test
    void a_shard_whose_term_is_gone_is_neither_moved_nor_loaded_until_it_is_held_again() {
        Api api = new Api(port);
        int shards = engineConfig.shards();
        await("the only member holds every shard")
                .atMost(Duration.ofSeconds(60))
                .until(() -> IntStream.range(0, shards).allMatch(s -> coordinator.ownershipTerm(s) != null));
        int lost = 0;
        LOST.set(lost);
        String near = push(api, TestIds.inShard(lost, shards), 500);
        String far = push(api, TestIds.inShard(lost, shards), 4_000);
        String control = push(api, TestIds.inShard(1, shards), 500);

        await("a job of a shard still held is delivered")
                .atMost(Duration.ofSeconds(30))
                .until(() -> !recorder.deliveriesOf(Set.of(control)).isEmpty());
        await("nothing of the lost shard is delivered while its term is gone")
                .during(Duration.ofSeconds(6))
                .atMost(Duration.ofSeconds(30))
                .until(() -> recorder.deliveriesOf(Set.of(near, far)).isEmpty());
        String pool = "{" + STORES.prefix() + ":" + lost + "}:pool";
        assertThat(STORES.redis().redis().hexists(pool, far))
                .as("the far job, loaded by an instance without the shard's term")
                .isFalse();

        LOST.set(-1);
        await("the shard's jobs are delivered once it is held again")
                .atMost(Duration.ofSeconds(60))
                .until(() -> recorder.deliveriesOf(Set.of(near, far)).size() == 2);
        assertThat(STORES.redis().redis().get("{" + STORES.prefix() + ":" + lost + "}:epoch"))
                .as("moved under an owner epoch")
                .isNotNull();
    }

    private static String push(Api api, String id, long delayMs) {
        Api.Response pushed =
                api.postJson("/push", Map.of("topic", "e2e.unowned", "body", "b", "delay", delayMs, "id", id));
        assertThat(pushed.status()).as("push: %s", pushed).isEqualTo(200);
        return id;
    }
}
