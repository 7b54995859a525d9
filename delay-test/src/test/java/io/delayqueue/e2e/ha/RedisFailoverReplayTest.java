package io.delayqueue.e2e.ha;

import io.delayqueue.core.DelayQueueApplication;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.LaggingReplicaDrill;
import io.delayqueue.e2e.support.RecordingDispatcherConfig;
import io.delayqueue.e2e.support.RedisSentinelFixture;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.StaticResources;
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

/**
 * A Sentinel fail-over to a replica that lags (issue 25): real Redis processes (master, replica, sentinel), the
 * MariaDB journal in sync mode and the real HTTP service, through {@link LaggingReplicaDrill}: after the promotion no
 * job answered deleted is handed over, the pushes the replica lacked are handed over within 5 s of their due time or
 * the promotion, and no job whose hand-over was journaled is handed over again.
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
class RedisFailoverReplayTest {
    static final ServiceStores STORES = ServiceStores.redisAndJournal("fover");
    private static RedisSentinelFixture sentinel;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        sentinel = RedisSentinelFixture.withReplicaLink();
        registry.add("delay.redis.sentinel.master", () -> RedisSentinelFixture.MASTER_NAME);
        registry.add("delay.redis.sentinel.nodes", sentinel::sentinelNodes);
        STORES.registerOnOtherRedis(registry);
    }

    @LocalServerPort
    int port;

    @Autowired
    RecordingDispatcher recorder;

    @Test
    void a_promoted_replica_that_lags_hands_over_nothing_deleted_or_finished_and_everything_pushed_on_time() {
        int replicaPort = sentinel.replica().port();
        new LaggingReplicaDrill(
                        new Api(port),
                        recorder,
                        STORES.journal(),
                        new LaggingReplicaDrill.Deployment() {
                            @Override
                            public void awaitReplicaInSync() {
                                sentinel.awaitReplicaInSync();
                            }

                            @Override
                            public void cutReplicaLink() {
                                sentinel.cutReplicaLink();
                            }

                            @Override
                            public void killMaster() {
                                sentinel.master().kill();
                            }

                            @Override
                            public boolean promoted() {
                                return sentinel.currentMasterPort() == replicaPort;
                            }
                        },
                        id -> true)
                .run("Sentinel");
    }
}
