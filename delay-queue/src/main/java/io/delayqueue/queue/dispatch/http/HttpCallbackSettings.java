package io.delayqueue.queue.dispatch.http;

import java.time.Duration;

/**
 * Settings of the HTTP-callback dispatcher. The {@code DEFAULT_*} constants are the one source of the
 * defaults.
 *
 * @param connectTimeout longest wait for a TCP (and TLS) connection to the callback's host
 * @param readTimeout longest wait for the callback's response once the request is sent
 * @param maxConnectionsPerHost most callbacks open at once to one host (scheme, host, port), each on a kept-alive
 *     connection; more wait for one of them
 * @param allowedHosts the hosts a callback may call ({@link CallbackHosts}); {@link CallbackHosts#ANY} by default
 * @param signing the secrets that sign each topic's callbacks ({@link CallbackSigning}); {@link CallbackSigning#NONE}
 *     (unsigned) by default
 */
public record HttpCallbackSettings(
        Duration connectTimeout,
        Duration readTimeout,
        int maxConnectionsPerHost,
        CallbackHosts allowedHosts,
        CallbackSigning signing) {
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);
    public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(10);
    public static final int DEFAULT_MAX_CONNECTIONS_PER_HOST = 64;

    public HttpCallbackSettings {
        requirePositive(connectTimeout, "http connect timeout");
        requirePositive(readTimeout, "http read timeout");
        if (maxConnectionsPerHost < 1) {
            throw new IllegalArgumentException("delay.http.max-connections-per-host must be at least 1");
        }
        if (allowedHosts == null) {
            throw new IllegalArgumentException("delay.http.allowed-hosts must be given ('*' for any host)");
        }
        if (signing == null) {
            signing = CallbackSigning.NONE;
        }
    }

    /** The given timeouts, connections per host and hosts; callbacks unsigned. */
    public HttpCallbackSettings(
            Duration connectTimeout, Duration readTimeout, int maxConnectionsPerHost, CallbackHosts allowedHosts) {
        this(connectTimeout, readTimeout, maxConnectionsPerHost, allowedHosts, CallbackSigning.NONE);
    }

    /** The given timeouts and connections per host; any host ({@link CallbackHosts#ANY}). */
    public HttpCallbackSettings(Duration connectTimeout, Duration readTimeout, int maxConnectionsPerHost) {
        this(connectTimeout, readTimeout, maxConnectionsPerHost, new CallbackHosts(CallbackHosts.ANY));
    }

    /** The given timeouts, {@link #DEFAULT_MAX_CONNECTIONS_PER_HOST} connections per host. */
    public HttpCallbackSettings(Duration connectTimeout, Duration readTimeout) {
        this(connectTimeout, readTimeout, DEFAULT_MAX_CONNECTIONS_PER_HOST);
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
