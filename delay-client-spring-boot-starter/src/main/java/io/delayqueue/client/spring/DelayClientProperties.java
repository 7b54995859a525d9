package io.delayqueue.client.spring;

import io.delayqueue.client.DelayQueueClient;
import io.delayqueue.client.PullConsumer;
import io.delayqueue.client.RetryPolicy;
import io.delayqueue.client.callback.CallbackVerifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code delay.client.*}: where the service is, how long to wait for it and how to retry, how {@link DelayListener}
 * methods consume, and how {@link DelayCallback} methods check what they receive.
 */
@ConfigurationProperties(prefix = "delay.client")
public class DelayClientProperties {
    /**
     * The service's base URL: scheme, host, port and any path prefix. The starter does nothing until it is set.
     */
    private String url;

    /** The service's API token (delay.security.token on the service), sent as a bearer token; none when empty. */
    private String token;

    /** Longest wait for a connection to the service. */
    private Duration connectTimeout = DelayQueueClient.Builder.DEFAULT_CONNECT_TIMEOUT;

    /** Longest wait for one answer (a long poll adds its own wait to it). */
    private Duration requestTimeout = DelayQueueClient.Builder.DEFAULT_REQUEST_TIMEOUT;

    private final Retry retry = new Retry();
    private final Listener listener = new Listener();
    private final Callback callback = new Callback();

    public String getUrl() {
        return url;
    }

    public void setUrl(String url) {
        this.url = url;
    }

    public String getToken() {
        return token;
    }

    public void setToken(String token) {
        this.token = token;
    }

    public Duration getConnectTimeout() {
        return connectTimeout;
    }

    public void setConnectTimeout(Duration connectTimeout) {
        this.connectTimeout = connectTimeout;
    }

    public Duration getRequestTimeout() {
        return requestTimeout;
    }

    public void setRequestTimeout(Duration requestTimeout) {
        this.requestTimeout = requestTimeout;
    }

    public Retry getRetry() {
        return retry;
    }

    public Listener getListener() {
        return listener;
    }

    public Callback getCallback() {
        return callback;
    }

    /** How a call is repeated after a 503, a 504, another 5xx or no answer (pushes carry an id, so stay one job). */
    public static class Retry {
        /** Calls in all, the first included; 1 does not retry. */
        private int maxAttempts = RetryPolicy.DEFAULT_MAX_ATTEMPTS;

        /** The wait before the first retry; it doubles up to max-backoff. */
        private Duration initialBackoff = RetryPolicy.DEFAULT_INITIAL_BACKOFF;

        /** The longest wait between two calls. */
        private Duration maxBackoff = RetryPolicy.DEFAULT_MAX_BACKOFF;

        /** The longest a call and its retries take in all; no retry starts after it. */
        private Duration deadline = RetryPolicy.DEFAULT_DEADLINE;

        public int getMaxAttempts() {
            return maxAttempts;
        }

        public void setMaxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
        }

        public Duration getInitialBackoff() {
            return initialBackoff;
        }

        public void setInitialBackoff(Duration initialBackoff) {
            this.initialBackoff = initialBackoff;
        }

        public Duration getMaxBackoff() {
            return maxBackoff;
        }

        public void setMaxBackoff(Duration maxBackoff) {
            this.maxBackoff = maxBackoff;
        }

        public Duration getDeadline() {
            return deadline;
        }

        public void setDeadline(Duration deadline) {
            this.deadline = deadline;
        }

        RetryPolicy toPolicy() {
            return new RetryPolicy(maxAttempts, initialBackoff, maxBackoff, deadline);
        }
    }

    /** Defaults of the {@link DelayListener} consumers; an annotation's own values win. */
    public static class Listener {
        /** Whether the consumers start with the application. */
        private boolean autoStartup = true;

        /** Handlers running at once, per listener. */
        private int concurrency = PullConsumer.DEFAULT_CONCURRENCY;

        /** Jobs reserved per call (count). */
        private int batchSize = PullConsumer.DEFAULT_BATCH_SIZE;

        /** How long one reserve call waits for a job (the long poll). */
        private Duration pollTimeout = PullConsumer.DEFAULT_POLL_TIMEOUT;

        /** At shutdown, how long running handlers may take to finish before they are interrupted. */
        private Duration shutdownGrace = PullConsumer.DEFAULT_SHUTDOWN_GRACE;

        public boolean isAutoStartup() {
            return autoStartup;
        }

        public void setAutoStartup(boolean autoStartup) {
            this.autoStartup = autoStartup;
        }

        public int getConcurrency() {
            return concurrency;
        }

        public void setConcurrency(int concurrency) {
            this.concurrency = concurrency;
        }

        public int getBatchSize() {
            return batchSize;
        }

        public void setBatchSize(int batchSize) {
            this.batchSize = batchSize;
        }

        public Duration getPollTimeout() {
            return pollTimeout;
        }

        public void setPollTimeout(Duration pollTimeout) {
            this.pollTimeout = pollTimeout;
        }

        public Duration getShutdownGrace() {
            return shutdownGrace;
        }

        public void setShutdownGrace(Duration shutdownGrace) {
            this.shutdownGrace = shutdownGrace;
        }
    }

    /** The receiver of {@link DelayCallback} methods. */
    public static class Callback {
        /** The path the service's callbacks are sent to (the jobs' url): one receiver for every topic. */
        private String path = "/delay/callback";

        /**
         * The signing secrets (whsec_ form, as the service is given them) a callback may be signed with, for every
         * topic without its own; more than one while a secret is rotated.
         */
        private List<String> secrets = new ArrayList<>();

        /** Per topic, the secrets its callbacks are signed with, when the service signs that topic with its own. */
        private Map<String, TopicSecrets> topics = new LinkedHashMap<>();

        /** How far a callback's timestamp may be from this application's clock. */
        private Duration tolerance = CallbackVerifier.DEFAULT_TOLERANCE;

        /** Accepted deliveries remembered to refuse one sent again as it was; 0 remembers none. */
        private int replayMemory = 100_000;

        public String getPath() {
            return path;
        }

        public void setPath(String path) {
            this.path = path;
        }

        public List<String> getSecrets() {
            return secrets;
        }

        public void setSecrets(List<String> secrets) {
            this.secrets = secrets;
        }

        public Map<String, TopicSecrets> getTopics() {
            return topics;
        }

        public void setTopics(Map<String, TopicSecrets> topics) {
            this.topics = topics;
        }

        public Duration getTolerance() {
            return tolerance;
        }

        public void setTolerance(Duration tolerance) {
            this.tolerance = tolerance;
        }

        public int getReplayMemory() {
            return replayMemory;
        }

        public void setReplayMemory(int replayMemory) {
            this.replayMemory = replayMemory;
        }
    }

    /** One topic's signing secrets. */
    public static class TopicSecrets {
        /** The secrets (whsec_ form) this topic's callbacks may be signed with. */
        private List<String> secrets = new ArrayList<>();

        public List<String> getSecrets() {
            return secrets;
        }

        public void setSecrets(List<String> secrets) {
            this.secrets = secrets;
        }
    }
}
