package io.delayqueue.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * The load of the HTTP push figures: {@code connections} keep-alive HTTP/1.1 connections, each one request at a
 * time (closed loop, as a client's connection pool), driven by {@link #LOOPS} selector threads instead of a thread
 * per connection. The load generator shares the two cores with the service, Redis and MariaDB: with a blocking
 * thread per connection it took 31% of a core at 128 connections and 13,900 pushes/s (two thread switches per
 * call, and a poll before each timed read); a selector switches no thread per call, as {@code wrk} does (13% of a
 * core at the same rate). Understands {@code Content-Length} and chunked responses, which is all Tomcat sends;
 * opens a new connection (counted in {@code reconnects}) when the server closes one, and sends the call again when
 * the server closed it before answering anything.
 */
final class HttpPushLoad {
    /** Selector threads. */
    static final int LOOPS = 2;

    private final byte[] request;
    private final String host;
    private final int port;
    private final int jobsPerCall;
    private final long measureFrom;
    private final long measureTo;
    private final AtomicLong counted = new AtomicLong();
    private final AtomicLong calls = new AtomicLong();
    private final AtomicLong reconnects = new AtomicLong();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    private HttpPushLoad(
            String host, int port, String path, byte[] json, int jobsPerCall, long measureFrom, long measureTo) {
        this.host = host;
        this.port = port;
        this.jobsPerCall = jobsPerCall;
        this.measureFrom = measureFrom;
        this.measureTo = measureTo;
        byte[] head = ("POST " + path + " HTTP/1.1\r\nHost: " + host + ":" + port
                        + "\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: "
                        + json.length + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        this.request = new byte[head.length + json.length];
        System.arraycopy(head, 0, request, 0, head.length);
        System.arraycopy(json, 0, request, head.length, json.length);
    }

    /**
     * POSTs {@code json} to {@code path} from {@code connections} connections for {@code preRoll + measure};
     * calls answered within the measured window count ({@code jobsPerSecond}, each call {@code jobsPerCall} jobs)
     * with their latency ({@code callP50Ms}, {@code callP99Ms}). Any answer but 200 fails the run.
     */
    static RunResult run(
            String host,
            int port,
            String path,
            byte[] json,
            int jobsPerCall,
            int connections,
            Duration preRoll,
            Duration measure)
            throws Exception {
        long start = System.nanoTime();
        long from = start + preRoll.toNanos();
        HttpPushLoad load = new HttpPushLoad(host, port, path, json, jobsPerCall, from, from + measure.toNanos());
        List<Loop> loops = new ArrayList<>();
        for (int i = 0; i < LOOPS; i++) {
            int mine = connections / LOOPS + (i < connections % LOOPS ? 1 : 0);
            if (mine > 0) {
                loops.add(load.new Loop(mine));
            }
        }
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < loops.size(); i++) {
            Loop loop = loops.get(i);
            Thread t = new Thread(loop, "bench-http-load-" + i);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        LoadDriver.awaitAll(threads, preRoll.plus(measure), load.failure);
        if (load.failure.get() != null) {
            throw new IllegalStateException("a push failed: " + load.failure.get(), load.failure.get());
        }
        Histogram callMicros = new Histogram(3);
        loops.forEach(l -> callMicros.add(l.callMicros));
        double seconds = measure.toNanos() / 1e9;
        return RunResult.of("jobsPerSecond", load.counted.get() / seconds)
                .and("callP50Ms", callMicros.getValueAtPercentile(50) / 1e3)
                .and("callP99Ms", callMicros.getValueAtPercentile(99) / 1e3)
                .with("callMeanMs", callMicros.getMean() / 1e3)
                .with("callMaxMs", callMicros.getMaxValue() / 1e3)
                .with("jobs", load.counted.get())
                .with("calls", load.calls.get())
                .with("seconds", seconds)
                .with("callers", connections)
                .with("reconnects", load.reconnects.get());
    }

    /** One selector and its connections. */
    private final class Loop implements Runnable {
        private final int connections;
        private final Histogram callMicros = new Histogram(3);
        private Selector selector;

        Loop(int connections) {
            this.connections = connections;
        }

        @Override
        public void run() {
            List<Connection> open = new ArrayList<>();
            try (Selector s = Selector.open()) {
                selector = s;
                for (int i = 0; i < connections; i++) {
                    Connection c = new Connection();
                    open.add(c);
                    c.connect();
                    c.send();
                }
                int busy = connections;
                while (busy > 0 && failure.get() == null) {
                    selector.select(100);
                    for (SelectionKey key : selector.selectedKeys()) {
                        Connection c = (Connection) key.attachment();
                        if (key.isValid() && key.isWritable()) {
                            c.write();
                        } else if (key.isValid() && key.isReadable() && c.read()) {
                            busy--;
                        }
                    }
                    selector.selectedKeys().clear();
                }
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            } finally {
                for (Connection c : open) {
                    c.close();
                }
            }
        }

        /** One keep-alive connection with at most one call open. */
        private final class Connection {
            private SocketChannel channel;
            private SelectionKey key;
            private final ByteBuffer out = ByteBuffer.wrap(request);
            private ByteBuffer in = ByteBuffer.allocate(4096);
            private long begun;

            void connect() throws IOException {
                channel = SocketChannel.open(new InetSocketAddress(host, port));
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                channel.configureBlocking(false);
                key = channel.register(selector, SelectionKey.OP_READ, this);
            }

            void send() throws IOException {
                begun = System.nanoTime();
                out.clear();
                in.clear();
                write();
            }

            void write() throws IOException {
                channel.write(out);
                key.interestOps(out.hasRemaining() ? SelectionKey.OP_WRITE : SelectionKey.OP_READ);
            }

            /** Reads what arrived; true once this connection is done with the run. */
            boolean read() throws IOException {
                if (!in.hasRemaining()) {
                    ByteBuffer larger = ByteBuffer.allocate(in.capacity() * 2);
                    in.flip();
                    larger.put(in);
                    in = larger;
                }
                int n = channel.read(in);
                if (n < 0) {
                    if (in.position() > 0) {
                        throw new IOException("the server closed the connection in the middle of an answer");
                    }
                    reopen(); // closed while idle (keep-alive ended): the call was not answered, send it again
                    send();
                    return false;
                }
                Answer answer = Answer.of(in);
                if (answer == null) {
                    return false; // more to come
                }
                long ended = System.nanoTime();
                if (answer.status() != 200) {
                    throw new IllegalStateException("POST answered " + answer.status() + ": " + answer.text());
                }
                if (ended >= measureFrom && ended < measureTo) {
                    counted.addAndGet(jobsPerCall);
                    calls.incrementAndGet();
                    callMicros.recordValue((ended - begun) / 1_000);
                }
                if (answer.close()) {
                    reopen();
                }
                if (ended >= measureTo || failure.get() != null) {
                    return true;
                }
                send();
                return false;
            }

            private void reopen() throws IOException {
                close();
                reconnects.incrementAndGet();
                connect();
            }

            void close() {
                try {
                    if (channel != null) {
                        channel.close();
                    }
                } catch (IOException ignored) {
                    // closing at the end of the run
                }
            }
        }
    }

    /** A whole answer read into a buffer. */
    private record Answer(int status, boolean close, String text) {
        /** The answer in {@code in} (written from 0 to its position), or null while it is incomplete. */
        static Answer of(ByteBuffer in) {
            byte[] a = in.array();
            int end = in.position();
            int headEnd = -1;
            for (int i = 3; i < end; i++) {
                if (a[i] == '\n' && a[i - 1] == '\r' && a[i - 2] == '\n' && a[i - 3] == '\r') {
                    headEnd = i + 1;
                    break;
                }
            }
            if (headEnd < 0) {
                return null;
            }
            String head = new String(a, 0, headEnd, StandardCharsets.ISO_8859_1);
            if (!head.startsWith("HTTP/1.1 ") || head.length() < 12) {
                throw new IllegalStateException("not an HTTP/1.1 status line: " + head);
            }
            int status = Integer.parseInt(head.substring(9, 12));
            HttpConnection.Head h = HttpConnection.Head.of(List.of(head.split("\r\n")));
            long length = h.length();
            boolean chunked = h.chunked();
            boolean close = h.close();
            if (chunked) {
                // one call at a time: the answer ends the data, with the last chunk and no trailers
                boolean last = end - headEnd >= 5
                        && a[end - 5] == '0'
                        && a[end - 4] == '\r'
                        && a[end - 3] == '\n'
                        && a[end - 2] == '\r'
                        && a[end - 1] == '\n'
                        && (end - 5 == headEnd || a[end - 6] == '\n');
                return last
                        ? new Answer(status, close, new String(a, headEnd, end - headEnd, StandardCharsets.UTF_8))
                        : null;
            }
            if (length < 0) {
                throw new IllegalStateException("an answer without Content-Length or chunked encoding: " + head);
            }
            if (end - headEnd < length) {
                return null;
            }
            return new Answer(status, close, new String(a, headEnd, (int) length, StandardCharsets.UTF_8));
        }
    }
}
