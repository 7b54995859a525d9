package io.delayqueue.bench;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One persistent (keep-alive) HTTP/1.1 connection, one request at a time, for the user paths' calls (pull,
 * finish, the paced pushes; the push figures use {@link HttpPushLoad}). Kept this small on purpose: the load
 * generator shares the two cores with the service, Redis and MariaDB, and a lean client leaves more of them to the
 * service than the JDK's {@code HttpClient} does. Understands
 * {@code Content-Length} and chunked responses, which is all Tomcat sends, and opens a new connection when the
 * server closed the last one.
 */
final class HttpConnection implements AutoCloseable {
    private final String host;
    private final int port;
    private Socket socket;
    private OutputStream out;
    private InputStream in;
    private int reconnects;

    HttpConnection(String host, int port) throws IOException {
        this.host = host;
        this.port = port;
        connect();
    }

    private void connect() throws IOException {
        socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.connect(new InetSocketAddress(host, port), 5_000);
        socket.setSoTimeout(60_000);
        out = new BufferedOutputStream(socket.getOutputStream(), 64 * 1024);
        in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
    }

    /**
     * Times the server ended the connection and the next request opened a new one (Tomcat closes a keep-alive
     * connection after {@code server.tomcat.max-keep-alive-requests}, 100 by default, as clients expect).
     */
    int reconnects() {
        return reconnects;
    }

    private void ensureOpen() throws IOException {
        if (socket == null) {
            reconnects++;
            connect();
        }
    }

    /** A response: its status and body. */
    record Response(int status, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /** What a response's header lines say of its body and its connection. */
    record Head(long length, boolean chunked, boolean close) {
        /** From the header lines (the status line, if among them, is skipped); {@code length} -1 when not given. */
        static Head of(List<String> lines) {
            long length = -1;
            boolean chunked = false;
            boolean close = false;
            for (String line : lines) {
                int colon = line.indexOf(':');
                if (colon < 0) {
                    continue;
                }
                String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
                String value = line.substring(colon + 1).trim();
                switch (name) {
                    case "content-length" -> length = Long.parseLong(value);
                    case "transfer-encoding" -> chunked =
                            value.toLowerCase(Locale.ROOT).contains("chunked");
                    case "connection" -> close = value.equalsIgnoreCase("close");
                    default -> {}
                }
            }
            return new Head(length, chunked, close);
        }
    }

    /** POSTs a JSON body and reads the whole response. */
    Response postJson(String path, byte[] json) throws IOException {
        ensureOpen();
        String head = "POST " + path + " HTTP/1.1\r\nHost: " + host + ":" + port
                + "\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: " + json.length
                + "\r\n\r\n";
        out.write(head.getBytes(StandardCharsets.US_ASCII));
        out.write(json);
        out.flush();
        return read();
    }

    /** GETs {@code path} and reads the whole response. */
    Response get(String path) throws IOException {
        ensureOpen();
        out.write(("GET " + path + " HTTP/1.1\r\nHost: " + host + ":" + port + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return read();
    }

    private Response read() throws IOException {
        String status = line();
        if (!status.startsWith("HTTP/1.1 ") || status.length() < 12) {
            throw new IOException("not an HTTP/1.1 status line: " + status);
        }
        int code = Integer.parseInt(status.substring(9, 12));
        List<String> headers = new ArrayList<>();
        String header;
        while (!(header = line()).isEmpty()) {
            headers.add(header);
        }
        Head head = Head.of(headers);
        long length = head.length();
        boolean chunked = head.chunked();
        boolean close = head.close();
        byte[] body;
        if (chunked) {
            ByteArrayOutputStream buffer = new ByteArrayOutputStream();
            while (true) {
                String size = line();
                int semi = size.indexOf(';');
                int n = Integer.parseInt((semi >= 0 ? size.substring(0, semi) : size).trim(), 16);
                if (n == 0) {
                    while (!line().isEmpty()) {
                        // trailers
                    }
                    break;
                }
                buffer.write(in.readNBytes(n));
                line();
            }
            body = buffer.toByteArray();
        } else if (length >= 0) {
            body = in.readNBytes((int) length);
            if (body.length != length) {
                throw new EOFException("connection closed after " + body.length + " of " + length + " bytes");
            }
        } else {
            throw new IOException("response without Content-Length or chunked encoding (status " + code + ")");
        }
        if (close) {
            socket.close();
            socket = null;
        }
        return new Response(code, body);
    }

    private String line() throws IOException {
        StringBuilder sb = new StringBuilder(64);
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\n') {
                int len = sb.length();
                if (len > 0 && sb.charAt(len - 1) == '\r') {
                    sb.setLength(len - 1);
                }
                return sb.toString();
            }
            sb.append((char) c);
        }
        throw new EOFException("connection closed by the server");
    }

    @Override
    public void close() throws IOException {
        if (socket != null) {
            socket.close();
            socket = null;
        }
    }
}
