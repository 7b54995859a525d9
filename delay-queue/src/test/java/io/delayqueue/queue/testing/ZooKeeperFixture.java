package io.delayqueue.queue.testing;

import io.delayqueue.queue.coordination.curator.ZooKeeperSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.curator.utils.CloseableUtils;

/**
 * A real ZooKeeper in the test JVM (Curator's {@link TestingServer}) with a {@value #TICK_MS} ms tick, so
 * that sessions may be as short as 2 ticks and as long as 20 (4 s); the server expires a session at most
 * one tick after its timeout. The fixture also makes clients with the short {@link #SESSION_TIMEOUT};
 * {@link #close()} closes them all. The end-to-end tests take just the server ({@link #startServer()}) for
 * the service JVMs they start.
 */
public final class ZooKeeperFixture implements AutoCloseable {
    public static final Duration SESSION_TIMEOUT = Duration.ofSeconds(2);
    public static final int TICK_MS = 200;

    private final TestingServer server;
    private final List<CuratorFramework> clients = new ArrayList<>();

    public ZooKeeperFixture() throws Exception {
        server = startServer();
    }

    /** A started server with the short tick; the caller closes it. */
    public static TestingServer startServer() throws Exception {
        return new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, TICK_MS, -1), true);
    }

    public TestingServer server() {
        return server;
    }

    /** A started client with the test's short session, connected. */
    public CuratorFramework connectedClient() throws InterruptedException {
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
