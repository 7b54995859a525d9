package io.delayqueue.config;

import io.delayqueue.queue.dispatch.http.CallbackHosts;
import io.delayqueue.queue.dispatch.http.CallbackSigning;
import io.delayqueue.queue.dispatch.http.HttpCallbackSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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

    private final Signing signing = new Signing();

    /** The callback settings; throws {@link IllegalArgumentException} naming a value they cannot work with. */
    public HttpCallbackSettings toSettings() {
        return new HttpCallbackSettings(
                connectTimeout,
                readTimeout,
                maxConnectionsPerHost,
                new CallbackHosts(allowedHosts),
                CallbackSigning.parse(signing.secrets, signing.topics));
    }

    public Signing getSigning() {
        return signing;
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

    /**
     * Signatures of HTTP callbacks, as Standard Webhooks has them ({@code webhook-id}, {@code webhook-timestamp},
     * {@code webhook-signature}). No secret for a topic: its callbacks go out unsigned.
     */
    public static class Signing {
        /**
         * Secrets that sign the callbacks of every topic without its own, each {@code whsec_} and the Base64 of 24 to
         * 64 random bytes; each signs, so a receiver holding any one of them accepts (rotation).
         */
        private List<String> secrets = new ArrayList<>();

        /**
         * A topic's own secrets in place of {@code secrets}, e.g. {@code delay.http.signing.topics.order=whsec_...};
         * a topic with dots in brackets: {@code delay.http.signing.topics[order.paid]=whsec_...}.
         */
        private Map<String, List<String>> topics = new LinkedHashMap<>();

        public List<String> getSecrets() {
            return secrets;
        }

        public void setSecrets(List<String> secrets) {
            this.secrets = secrets;
        }

        public Map<String, List<String>> getTopics() {
            return topics;
        }

        public void setTopics(Map<String, List<String>> topics) {
            this.topics = topics;
        }

        /** Never the secrets. */
        @Override
        public String toString() {
            return "Signing{" + secrets.size() + " secrets, own secrets for " + topics.keySet() + "}";
        }
    }
}
