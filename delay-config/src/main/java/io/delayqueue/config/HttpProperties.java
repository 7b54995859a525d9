package io.delayqueue.config;

import io.delayqueue.queue.dispatch.http.CallbackHosts;
import io.delayqueue.queue.dispatch.http.HttpCallbackSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

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

    /**
     * Hosts a callback url may name: host names or IP literals ({@code hooks.example.com}, {@code 10.1.2.3}), {@code
     * *.example.com} for any name under a domain, {@code *} for any host (the default). A push whose url names
     * another host is refused with a 400 naming {@code url}.
     */
    private List<String> allowedHosts = new ArrayList<>(CallbackHosts.ANY);

    public HttpCallbackSettings toSettings() {
        return new HttpCallbackSettings(
                connectTimeout, readTimeout, maxConnectionsPerHost, new CallbackHosts(allowedHosts));
    }

    public List<String> getAllowedHosts() {
        return allowedHosts;
    }

    public void setAllowedHosts(List<String> allowedHosts) {
        this.allowedHosts = allowedHosts;
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
