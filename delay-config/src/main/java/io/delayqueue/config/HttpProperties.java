package io.delayqueue.config;

import io.delayqueue.queue.dispatch.http.HttpCallbackSettings;
import java.time.Duration;

/** The HTTP-callback dispatcher ({@code http}): POSTs each job to its {@code url}. */
public class HttpProperties {
    /** Longest wait for a connection to the callback's host. */
    private Duration connectTimeout = HttpCallbackSettings.DEFAULT_CONNECT_TIMEOUT;

    /** Longest wait for the callback's answer once the request is sent. */
    private Duration readTimeout = HttpCallbackSettings.DEFAULT_READ_TIMEOUT;

    /**
     * Most callbacks open at once to one host (scheme, host, port), each on a kept-alive connection; more wait for
     * one of them.
     */
    private int maxConnectionsPerHost = HttpCallbackSettings.DEFAULT_MAX_CONNECTIONS_PER_HOST;

    public HttpCallbackSettings toSettings() {
        return new HttpCallbackSettings(connectTimeout, readTimeout, maxConnectionsPerHost);
    }

    public int getMaxConnectionsPerHost() {
        return maxConnectionsPerHost;
    }

    public void setMaxConnectionsPerHost(int maxConnectionsPerHost) {
        this.maxConnectionsPerHost = maxConnectionsPerHost;
    }

    public Duration getConnectTimeout() {
        return connectTimeout;
    }

    public void setConnectTimeout(Duration connectTimeout) {
        this.connectTimeout = connectTimeout;
    }

    public Duration getReadTimeout() {
        return readTimeout;
    }

    public void setReadTimeout(Duration readTimeout) {
        this.readTimeout = readTimeout;
    }
}
