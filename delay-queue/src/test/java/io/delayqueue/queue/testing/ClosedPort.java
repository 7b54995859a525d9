package io.delayqueue.queue.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;

/** A local port that nothing listens on: connecting to it is refused at once. */
public final class ClosedPort {
    private ClosedPort() {}

    /** A port the system just handed out and that was closed again. */
    public static int get() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
