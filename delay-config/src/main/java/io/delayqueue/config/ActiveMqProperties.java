package io.delayqueue.config;

import io.delayqueue.queue.dispatch.activemq.ActiveMqSettings;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** The ActiveMQ dispatcher ({@code activemq}); created only when {@code url} is set. */
public class ActiveMqProperties {
    /** Broker URL, e.g. {@code tcp://host:61616}. */
    private String url;

    /** User name, unset for none. */
    private String user;

    /** Password, unset for none. */
    private String password;

    /** {@code queue} or {@code topic}: what a job's topic names on the broker. */
    private String destinationType =
            ActiveMqSettings.DEFAULT_DESTINATION_TYPE.name().toLowerCase(Locale.ROOT);

    /** {@code queue} or {@code topic} per job topic, e.g. {@code delay.activemq.destinations.news=topic}. */
    private Map<String, String> destinations = new LinkedHashMap<>();

    /** Longest a synchronous send or a connection attempt may take; keep it well below the dispatch timeout. */
    private Duration sendTimeout = ActiveMqSettings.DEFAULT_SEND_TIMEOUT;

    /** Sends running at once (pooled sessions). */
    private int threads = ActiveMqSettings.DEFAULT_THREADS;

    /** Sends waiting for a thread; more are put back unsent for a moment. */
    private int maxPending = ActiveMqSettings.DEFAULT_MAX_PENDING;

    public ActiveMqSettings toSettings() {
        Map<String, ActiveMqSettings.DestinationType> types = new LinkedHashMap<>();
        destinations.forEach((topic, type) ->
                types.put(topic, ActiveMqSettings.DestinationType.parse(type, "delay.activemq.destinations." + topic)));
        return new ActiveMqSettings(
                url,
                user,
                password,
                ActiveMqSettings.DestinationType.parse(destinationType, "delay.activemq.destination-type"),
                types,
                sendTimeout,
                threads,
                maxPending);
    }

    public String getUrl() {
        return url;
    }

    public void setUrl(String url) {
        this.url = url;
    }

    public String getUser() {
        return user;
    }

    public void setUser(String user) {
        this.user = user;
    }

    public String getPassword() {
        return password;
    }

    public void setPassword(String password) {
        this.password = password;
    }

    public String getDestinationType() {
        return destinationType;
    }

    public void setDestinationType(String destinationType) {
        this.destinationType = destinationType;
    }

    public Map<String, String> getDestinations() {
        return destinations;
    }

    public void setDestinations(Map<String, String> destinations) {
        this.destinations = destinations;
    }

    public Duration getSendTimeout() {
        return sendTimeout;
    }

    public void setSendTimeout(Duration sendTimeout) {
        this.sendTimeout = sendTimeout;
    }

    public int getThreads() {
        return threads;
    }

    public void setThreads(int threads) {
        this.threads = threads;
    }

    public int getMaxPending() {
        return maxPending;
    }

    public void setMaxPending(int maxPending) {
        this.maxPending = maxPending;
    }
}
