package io.delayqueue.queue.dispatch.http;

import java.time.Duration;

/**
 * Settings of the HTTP-callback dispatcher. The {@code DEFAULT_*} constants are the one source of the
 * defaults.
 *
 * @param connectTimeout longest wait for a TCP (and TLS) connection to the callback's host
 * @param readTimeout longest wait for the callback's response once the request is sent
 */
public record HttpCallbackSettings(Duration connectTimeout, Duration readTimeout) {
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);
    public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(10);

    public HttpCallbackSettings {
        requirePositive(connectTimeout, "http connect timeout");
        requirePositive(readTimeout, "http read timeout");
    }

    public static HttpCallbackSettings defaults() {
        return new HttpCallbackSettings(DEFAULT_CONNECT_TIMEOUT, DEFAULT_READ_TIMEOUT);
    }

    /** The longest one callback can take. */
    public Duration sendTimeout() {
        return connectTimeout.plus(readTimeout);
    }

    private static void requirePositive(Duration d, String what) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(what + " must be positive");
        }
    }
}
