package io.delayqueue.e2e.ha;

import io.delayqueue.common.JobIds;
import io.delayqueue.core.DelayQueueApplication;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.LaggingReplicaDrill;
import io.delayqueue.e2e.support.RecordingDispatcherConfig;
import io.delayqueue.e2e.support.RedisClusterFixture;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.StaticResources;
import io.delayqueue.queue.engine.EngineConfig;
import io.delayqueue.queue.store.redis.RedisKeys;
import io.delayqueue.queue.testing.RecordingDispatcher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * A Redis Cluster fail-over to a replica that lags (issue 25, item 5): three masters with a replica each, started by
 * the test; the replica of the master that holds shard 0's slot is cut off, and that master killed with {@code kill
 * -9}, after which the cluster promotes the replica. The drill ({@link LaggingReplicaDrill}) uses jobs of that
 * master's shards only: after the promotion no job answered deleted is handed over, the pushes the replica lacked are
 * handed over within 5 s of their due time or the promotion, and no job whose hand-over was journaled is handed over
 * again.
 */
@ExtendWith(StaticResources.class)
@SpringBootTest(
        classes = DelayQueueApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "delay.dispatch.default=" + RecordingDispatcher.NAME,
            "delay.dispatch.timeout=5s",
            // the reconciler must not be what heals the queue
            "delay.journal.reconcile-grace=60s"
        })
@Import(RecordingDispatcherConfig.class)
@DirtiesContext
class RedisClusterFailoverReplayTest {
    static final ServiceStores STORES = ServiceStores.redisAndJournal("cfover");
    private static RedisClusterFixture cluster;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        cluster = RedisClusterFixture.withReplicas(3);
        registry.add("delay.redis.cluster.nodes", cluster::nodes);
        STORES.registerOnOtherRedis(registry);
    }

    @LocalServerPort
    int port;

    @Autowired
    RecordingDispatcher recorder;

    @Autowired
    EngineConfig config;

    @Test
    void a_promoted_cluster_replica_that_lags_hands_over_nothing_deleted_or_finished_and_everything_pushed_on_time() {
        RedisKeys keys = new RedisKeys(STORES.prefix());
        int victim = cluster.masterOfSlot(JedisClusterCRC16.getSlot(keys.pool(0)));
        new LaggingReplicaDrill(
                        new Api(port),
                        recorder,
                        STORES.journal(),
                        new LaggingReplicaDrill.Deployment() {
                            @Override
                            public void awaitReplicaInSync() {
                                cluster.awaitReplicaInSync(victim);
                            }

                            @Override
                            public void cutReplicaLink() {
                                cluster.cutReplicaLink(victim);
                            }

                            @Override
                            public void killMaster() {
                                cluster.servers().get(victim).kill();
                            }

                            @Override
                            public boolean promoted() {
                                return cluster.promoted(victim);
                            }
                        },
                        id -> cluster.masterOfSlot(
                                        JedisClusterCRC16.getSlot(keys.pool(JobIds.shardOf(id, config.shards()))))
                                == victim)
                .run("Redis Cluster");
    }
}
