package io.delayqueue.queue.coordination.curator;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.curator.utils.CloseableUtils;

/**
 * A real ZooKeeper (Curator's {@link TestingServer}) with a 200 ms tick, so that sessions may be as short as
 * {@link #SESSION_TIMEOUT}, and the clients made for it; {@link #close()} closes them all.
 */
final class ZooKeeperFixture implements AutoCloseable {
    static final Duration SESSION_TIMEOUT = Duration.ofSeconds(2);
    private static final int TICK_MS = 200;

    final TestingServer server;
    private final List<CuratorFramework> clients = new ArrayList<>();

    ZooKeeperFixture() throws Exception {
        server = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, TICK_MS, -1), true);
    }

    /** A started client with the test's short session, connected. */
    CuratorFramework connectedClient() throws InterruptedException {
        CuratorFramework client = ZooKeeperSettings.of(server.getConnectString())
                .withTimeouts(SESSION_TIMEOUT, SESSION_TIMEOUT)
                .newClient();
        clients.add(client);
        client.start();
        if (!client.blockUntilConnected(10, TimeUnit.SECONDS)) {
            throw new AssertionError("no connection to the test ZooKeeper at " + server.getConnectString());
        }
        return client;
    }

    @Override
    public void close() {
        clients.forEach(CloseableUtils::closeQuietly);
        CloseableUtils.closeQuietly(server);
    }
}
