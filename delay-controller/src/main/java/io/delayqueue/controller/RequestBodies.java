package io.delayqueue.controller;

import io.delayqueue.common.DelayQueueException;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;

/** Reads request bodies whole, up to a limit. */
final class RequestBodies {
    private RequestBodies() {}

    /**
     * The raw body: 413 when it is (or is declared by {@code Content-Length} to be) over {@code limit} bytes,
     * 400 when its bytes do not arrive as HTTP says (bad chunked encoding, a body shorter than declared), never
     * a 500. A declared length over the limit is refused before a byte is read.
     */
    static byte[] read(HttpServletRequest request, int limit) {
        if (request.getContentLengthLong() > limit) {
            throw tooLarge(limit);
        }
        byte[] body;
        try {
            body = request.getInputStream().readNBytes(limit + 1);
        } catch (IOException e) {
            throw new DelayQueueException.InvalidField("body", "of the request cannot be read: " + e.getMessage());
        }
        if (body.length > limit) {
            throw tooLarge(limit);
        }
        return body;
    }

    private static DelayQueueException tooLarge(int limit) {
        return new DelayQueueException(413, "body of the request is over " + limit + " bytes");
    }
}
