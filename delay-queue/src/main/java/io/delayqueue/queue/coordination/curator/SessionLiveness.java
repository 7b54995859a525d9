package io.delayqueue.queue.coordination.curator;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEventType;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether ZooKeeper answered this client recently: a background request every tenth of the session timeout,
 * and the time each answered request was sent. A session cannot expire within a session timeout of the server
 * hearing from it, so while the last answered request was sent less than {@value #SILENCE_FRACTION} of a
 * session timeout ago, no other instance can have taken over what this one holds.
 *
 * <p>This covers what the connection state cannot: an instance frozen past its session (a long GC pause,
 * SIGSTOP) wakes with Curator still reporting {@code CONNECTED}, and learns of the expiry only when the
 * client's next exchange with the server fails, some 100 ms later. Its clock kept running meanwhile, so
 * {@link #answeredRecently()} is {@code false} from the moment it wakes.
 */
final class SessionLiveness implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SessionLiveness.class);

    /** The share of the session timeout without an answer after which this instance stops scanning. */
    static final double SILENCE_FRACTION = 0.5;

    private final CuratorFramework client;
    private final String path;
    private final Runnable answeredAgain;
    private final ScheduledExecutorService pinger;
    /** {@link System#nanoTime()} when the last answered request was sent. */
    private volatile long lastAnsweredSentAt;

    private volatile boolean everAnswered;
    /** Whether the last look found an answer recent (guarded by this; flips log and wake). */
    private boolean wasRecent;

    /**
     * @param path a path to ask about (it need not exist: an answer that it does not is an answer)
     * @param answeredAgain told when ZooKeeper answers again after a silence that made {@link
     *     #answeredRecently()} false
     */
    SessionLiveness(CuratorFramework client, String path, Runnable answeredAgain) {
        this.client = client;
        this.path = path;
        this.answeredAgain = answeredAgain;
        this.pinger = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "delay-zk-liveness");
            t.setDaemon(true);
            return t;
        });
    }

    void start() {
        pinger.schedule(this::ping, 0, TimeUnit.MILLISECONDS);
    }

    private void ping() {
        long sentAt = System.nanoTime();
        try {
            client.checkExists()
                    .inBackground((c, event) -> {
                        int rc = event.getResultCode();
                        if (event.getType() == CuratorEventType.EXISTS
                                && (rc == KeeperException.Code.OK.intValue()
                                        || rc == KeeperException.Code.NONODE.intValue())) {
                            answered(sentAt);
                        }
                    })
                    .forPath(path);
        } catch (Exception e) {
            log.debug("ZooKeeper liveness request failed: {}", e.toString());
        }
        try {
            pinger.schedule(this::ping, intervalMs(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closed) {
            // closed
        }
    }

    private void answered(long sentAt) {
        synchronized (this) {
            if (!everAnswered || sentAt - lastAnsweredSentAt > 0) {
                lastAnsweredSentAt = sentAt;
                everAnswered = true;
            }
            if (wasRecent) {
                return;
            }
            wasRecent = true;
        }
        log.info("ZooKeeper answers: scanning may go on");
        answeredAgain.run();
    }

    private long sessionTimeoutMs() {
        return client.getZookeeperClient().getLastNegotiatedSessionTimeoutMs();
    }

    private long intervalMs() {
        long session = sessionTimeoutMs();
        return Math.max(10, (session > 0 ? session : client.getZookeeperClient().getConnectionTimeoutMs()) / 10);
    }

    /**
     * Whether a request sent less than {@value #SILENCE_FRACTION} of the session timeout ago was answered. Cheap:
     * no ZooKeeper call.
     */
    boolean answeredRecently() {
        long session = sessionTimeoutMs();
        if (!everAnswered || session <= 0) {
            return false;
        }
        long silentNanos = System.nanoTime() - lastAnsweredSentAt;
        boolean recent = silentNanos < TimeUnit.MILLISECONDS.toNanos((long) (session * SILENCE_FRACTION));
        if (!recent && flipToSilent()) {
            log.warn(
                    "ZooKeeper has not answered for {} ms (session timeout {} ms): not scanning until it does",
                    TimeUnit.NANOSECONDS.toMillis(silentNanos),
                    session);
        }
        return recent;
    }

    /**
     * Whether {@code path} exists, asked of ZooKeeper now; {@code false} when it does not, or when no answer came
     * within the session timeout. A node of this client's that still exists proves its session alive, and with
     * it whatever lock or leadership the node holds.
     */
    static boolean existsNow(CuratorFramework client, String path) {
        CompletableFuture<Boolean> exists = new CompletableFuture<>();
        long timeoutMs = Math.max(1_000, client.getZookeeperClient().getLastNegotiatedSessionTimeoutMs());
        try {
            client.checkExists()
                    .inBackground(
                            (c, event) -> exists.complete(event.getResultCode() == KeeperException.Code.OK.intValue()))
                    .forPath(path);
            return exists.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (Exception e) {
            log.warn("could not ask ZooKeeper whether {} exists: {}", path, e.toString());
            return false;
        }
    }

    private synchronized boolean flipToSilent() {
        boolean was = wasRecent;
        wasRecent = false;
        return was;
    }

    @Override
    public void close() {
        pinger.shutdownNow();
    }
}
