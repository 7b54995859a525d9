package io.delayqueue.e2e.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * A broker that hangs: it accepts TCP connections on a free port and never answers, the way a stuck
 * process or a half-open network path behaves. Clients neither get a refusal nor a reply until their own
 * timeouts fire. {@link #close()} drops every connection.
 */
public final class HungServer implements AutoCloseable {
    private final ServerSocket server;
    private final List<Socket> accepted = new ArrayList<>();
    private final Thread acceptor;

    private HungServer() {
        try {
            server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        acceptor = new Thread(this::acceptForever, "hung-server-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public static HungServer started() {
        return new HungServer();
    }

    public int port() {
        return server.getLocalPort();
    }

    private void acceptForever() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                synchronized (accepted) {
                    accepted.add(socket);
                }
            } catch (IOException closed) {
                return;
            }
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        synchronized (accepted) {
            for (Socket s : accepted) {
                s.close();
            }
            accepted.clear();
        }
    }
}
