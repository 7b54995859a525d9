package io.delayqueue.e2e.support;

import java.nio.file.Path;
import org.apache.activemq.broker.BrokerService;

/**
 * A real ActiveMQ broker in this JVM: {@link BrokerService} with a TCP connector on a free port and a
 * persistent KahaDB store in a temporary directory, so that messages it confirmed survive {@link #stop()}
 * and {@link #start()}. {@link #close()} stops it and deletes the store.
 */
public final class EmbeddedActiveMq implements AutoCloseable {
    private final Path dataDir = TempDirs.create("delay-activemq-");
    private final int port = FreePorts.free();
    private BrokerService broker;

    private EmbeddedActiveMq() {}

    /** A broker, started. */
    public static EmbeddedActiveMq started() {
        EmbeddedActiveMq mq = new EmbeddedActiveMq();
        mq.start();
        return mq;
    }

    /** Starts the broker (again) on the same port and store. */
    public synchronized void start() {
        try {
            BrokerService b = new BrokerService();
            b.setBrokerName("delay-test-" + port);
            b.setDataDirectoryFile(dataDir.toFile());
            b.setPersistent(true);
            b.setUseJmx(false);
            b.setUseShutdownHook(false);
            b.setAdvisorySupport(false);
            b.getSystemUsage().getStoreUsage().setLimit(512L * 1024 * 1024);
            b.getSystemUsage().getTempUsage().setLimit(128L * 1024 * 1024);
            b.addConnector("tcp://127.0.0.1:" + port);
            b.start();
            b.waitUntilStarted();
            broker = b;
        } catch (Exception e) {
            throw new IllegalStateException("the embedded ActiveMQ broker did not start on port " + port, e);
        }
    }

    /** Stops the broker; what it stored stays for the next {@link #start()}. */
    public synchronized void stop() {
        if (broker == null) {
            return;
        }
        try {
            broker.stop();
            broker.waitUntilStopped();
        } catch (Exception e) {
            throw new IllegalStateException("the embedded ActiveMQ broker did not stop", e);
        } finally {
            broker = null;
        }
    }

    /** What the service is given: a plain TCP URL, so that sends fail while the broker is down. */
    public String url() {
        return "tcp://127.0.0.1:" + port;
    }

    /** What a consumer is given: it reconnects by itself after a restart. */
    public String consumerUrl() {
        return "failover:(" + url() + ")?initialReconnectDelay=50&maxReconnectDelay=500";
    }

    @Override
    public void close() {
        try {
            stop();
        } finally {
            TempDirs.delete(dataDir);
        }
    }
}
