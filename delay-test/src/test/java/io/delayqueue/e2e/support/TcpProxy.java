package io.delayqueue.e2e.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on a free port of 127.0.0.1 that forwards to a target (MariaDB, say) and that a test can
 * {@link #cut()}: every open connection is closed and new ones are accepted and closed at once, as if the
 * server were down; {@link #restore()} forwards again.
 */
public final class TcpProxy implements AutoCloseable {
    private final String targetHost;
    private volatile int targetPort;
    private final ServerSocket server;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final AtomicInteger refused = new AtomicInteger();
    private final AtomicInteger accepted = new AtomicInteger();
    private volatile boolean cut;
    private volatile boolean closed;

    public TcpProxy(String targetHost, int targetPort) {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        try {
            this.server = new ServerSocket(0, 100, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new IllegalStateException("no free port for the proxy", e);
        }
        daemon(this::acceptLoop, "tcp-proxy-accept-" + port()).start();
    }

    public int port() {
        return server.getLocalPort();
    }

    /**
     * Forwards new connections to {@code port} of the target host from now on (a service started again on another
     * port, say); open ones stay as they are.
     */
    public void forwardTo(int port) {
        targetPort = port;
    }

    /** Closes every forwarded connection and refuses new ones until {@link #restore()}. */
    public void cut() {
        cut = true;
        closeAll();
    }

    public void restore() {
        cut = false;
    }

    public boolean isCut() {
        return cut;
    }

    /** Connections closed at once because the proxy was cut. */
    public int refused() {
        return refused.get();
    }

    /** Connections forwarded so far. */
    public int accepted() {
        return accepted.get();
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("TcpProxy: accept failed: " + e);
                }
                return;
            }
            if (cut) {
                refused.incrementAndGet();
                closeQuietly(client);
                continue;
            }
            Socket upstream;
            try {
                upstream = new Socket(targetHost, targetPort);
            } catch (IOException e) {
                closeQuietly(client);
                continue;
            }
            open.add(client);
            open.add(upstream);
            if (cut) { // cut while this one was being connected
                refused.incrementAndGet();
                closeQuietly(client);
                closeQuietly(upstream);
                continue;
            }
            accepted.incrementAndGet();
            daemon(() -> pump(client, upstream), "tcp-proxy-up").start();
            daemon(() -> pump(upstream, client), "tcp-proxy-down").start();
        }
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException ignored) {
            // closed on either side, or cut
        } finally {
            closeQuietly(from);
            closeQuietly(to);
            open.remove(from);
            open.remove(to);
        }
    }

    private void closeAll() {
        for (Socket s : open) {
            closeQuietly(s);
        }
        open.clear();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // nothing to do
        }
        closeAll();
    }
}
