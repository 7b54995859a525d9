package io.delayqueue.e2e.support;

import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import org.apache.rocketmq.broker.BrokerController;
import org.apache.rocketmq.common.BrokerConfig;
import org.apache.rocketmq.common.MQVersion;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.constant.PermName;
import org.apache.rocketmq.common.namesrv.NamesrvConfig;
import org.apache.rocketmq.namesrv.NamesrvController;
import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.netty.NettyServerConfig;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.route.TopicRouteData;
import org.apache.rocketmq.store.config.MessageStoreConfig;

/**
 * A real RocketMQ name server and broker ({@code rocketmq-namesrv}, {@code rocketmq-broker}, the client's
 * version) in this JVM, on free ports, with their store in a temporary directory. The broker can be
 * stopped and started again on the same ports and store; {@link #close()} shuts both down and deletes the
 * store.
 */
public final class EmbeddedRocketMq implements AutoCloseable {
    private static final String CLUSTER = "DefaultCluster";

    static {
        // RocketMQ's own launchers set the protocol version; without it the name server takes the broker
        // for a pre-3.0.11 one and drops the topics it registers (the client sets it, but only once loaded)
        System.setProperty(RemotingCommand.REMOTING_VERSION_KEY, Integer.toString(MQVersion.CURRENT_VERSION));
    }

    private static final String BROKER = "delay-test-broker";

    private final Path dir = TempDirs.create("delay-rocketmq-");
    private final int namesrvPort = FreePorts.free();
    // the broker listens on its port and on port - 2 (its "fast" channel), and on an HA port
    private final int brokerPort = FreePorts.freeWithTwoBelow();
    private final int haPort = FreePorts.free();
    private NamesrvController namesrv;
    private BrokerController broker;

    private EmbeddedRocketMq() {}

    /** A name server and a broker, started. */
    public static EmbeddedRocketMq started() {
        EmbeddedRocketMq mq = new EmbeddedRocketMq();
        try {
            mq.startNamesrv();
            mq.startBroker();
        } catch (RuntimeException e) {
            mq.close();
            throw e;
        }
        return mq;
    }

    public String namesrv() {
        return "127.0.0.1:" + namesrvPort;
    }

    private void startNamesrv() {
        NamesrvConfig config = new NamesrvConfig();
        config.setKvConfigPath(dir.resolve("namesrv/kvConfig.json").toString());
        config.setConfigStorePath(dir.resolve("namesrv/namesrv.properties").toString());
        NettyServerConfig server = new NettyServerConfig();
        server.setListenPort(namesrvPort);
        NamesrvController controller = new NamesrvController(config, server);
        try {
            if (!controller.initialize()) {
                throw new IllegalStateException("the name server did not initialize");
            }
            controller.start();
        } catch (Exception e) {
            controller.shutdown();
            throw new IllegalStateException("the embedded RocketMQ name server did not start on " + namesrvPort, e);
        }
        namesrv = controller;
    }

    /** Starts the broker (again) on the same ports and store; it registers with the name server. */
    public synchronized void startBroker() {
        BrokerConfig config = new BrokerConfig();
        config.setBrokerClusterName(CLUSTER);
        config.setBrokerName(BROKER);
        config.setBrokerIP1("127.0.0.1");
        config.setNamesrvAddr(namesrv());
        config.setAutoCreateTopicEnable(true);
        config.setRegisterNameServerPeriod(2_000);
        NettyServerConfig server = new NettyServerConfig();
        server.setListenPort(brokerPort);
        MessageStoreConfig store = new MessageStoreConfig();
        store.setStorePathRootDir(dir.resolve("store").toString());
        store.setStorePathCommitLog(dir.resolve("store/commitlog").toString());
        store.setMappedFileSizeCommitLog(64 * 1024 * 1024);
        store.setMappedFileSizeConsumeQueue(30_000 * 20);
        store.setMaxIndexNum(10_000);
        store.setMaxHashSlotNum(40_000);
        store.setHaListenPort(haPort);
        store.setTimerWheelEnable(false);
        BrokerController controller = new BrokerController(config, server, new NettyClientConfig(), store);
        try {
            if (!controller.initialize()) {
                throw new IllegalStateException("the broker did not initialize");
            }
            controller.start();
        } catch (Exception e) {
            controller.shutdown();
            throw new IllegalStateException("the embedded RocketMQ broker did not start on " + brokerPort, e);
        }
        broker = controller;
    }

    /** Stops the broker; the name server stays, and the store stays for the next {@link #startBroker()}. */
    public synchronized void stopBroker() {
        if (broker != null) {
            broker.shutdown();
            broker = null;
        }
    }

    /**
     * Creates {@code topic} with {@code queues} read and write queues and registers it with the name
     * server at once, so that consumers started right after see its route.
     */
    public synchronized void createTopic(String topic, int queues) {
        TopicConfig config = new TopicConfig(topic, queues, queues, PermName.PERM_READ | PermName.PERM_WRITE);
        broker.getTopicConfigManager().updateTopicConfig(config);
        broker.registerBrokerAll(true, false, true);
        awaitRoute(topic);
    }

    /** Waits until the name server hands out a route of {@code topic} with at least one queue to write. */
    public void awaitRoute(String topic) {
        await("the name server knows a route of topic " + topic)
                .atMost(Duration.ofSeconds(30))
                .until(() -> {
                    TopicRouteData route = namesrv.getRouteInfoManager().pickupTopicRouteData(topic);
                    return route != null && !route.getQueueDatas().isEmpty();
                });
    }

    @Override
    public synchronized void close() {
        try {
            stopBroker();
        } finally {
            try {
                if (namesrv != null) {
                    namesrv.shutdown();
                    namesrv = null;
                }
            } finally {
                TempDirs.delete(dir);
            }
        }
    }
}
