package io.delayqueue.e2e.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Free TCP ports on 127.0.0.1, for brokers and servers the tests start. */
public final class FreePorts {
    private FreePorts() {}

    /** A port nothing listens on right now. */
    public static int free() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A free port whose neighbour two below is free too (a RocketMQ broker also listens on port - 2). */
    public static int freeWithTwoBelow() {
        for (int i = 0; i < 50; i++) {
            int port = free();
            if (port > 1026 && isFree(port - 2)) {
                return port;
            }
        }
        throw new IllegalStateException("found no free port p with p - 2 free");
    }

    private static boolean isFree(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
