package io.delayqueue.e2e.support;

import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

/**
 * A real ZooKeeper in the test JVM (Curator's {@link TestingServer}) for the service JVMs the test starts.
 * Its tick is {@value #TICK_MS} ms, so sessions may be as short as 2 ticks and as long as 20 (4 s); the
 * server expires a session at most one tick after its timeout.
 */
public final class TestZooKeeper {
    public static final int TICK_MS = 200;

    private TestZooKeeper() {}

    public static TestingServer start() throws Exception {
        return new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, TICK_MS, -1), true);
    }
}
