package io.delayqueue.client;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The client of a delay-queue service: push, delete, look up and restore jobs, and consume pull topics ({@link
 * #consumer}). Thread-safe; build one per service and share it.
 *
 * <p><b>Pushes are safe to retry.</b> Every push carries an id: the caller's, or one the client makes before the
 * first call ({@link Builder#idSupplier}, a random UUID by default, never of the service's generated form). The
 * service keeps an id as one job whatever happens, so the client repeats a push after a 503, a 504, a 5xx or no
 * answer at all, as its {@link RetryPolicy} allows, and a push the service took while its answer was lost is one job
 * all the same. The result says which answer ended it ({@link PushOutcome}); {@link PushOutcome#UNKNOWN} carries
 * the id to push again with.
 *
 * <pre>{@code
 * DelayQueueClient client = DelayQueueClient.builder("http://queue:8080").token(token).build();
 * PushResult r = client.push("order", "close 42", Duration.ofMinutes(30));
 * }</pre>
 */
public final class DelayQueueClient {
    /** The most jobs one {@code POST /push/batch} or {@code POST /jobs/finish} takes. */
    public static final int MAX_BATCH = 1000;

    private static final Pattern CONFLICTING_ID = Pattern.compile("id '([A-Za-z0-9._:-]+)' already names another job");
    private static final TypeReference<List<Job>> JOBS = new TypeReference<>() {};

    private final Transport transport;
    private final RetryPolicy retry;
    private final Supplier<String> ids;

    private DelayQueueClient(Builder b) {
        HttpClient http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(b.connectTimeout)
                .build();
        this.transport = new Transport(http, b.baseUrl, b.token, b.requestTimeout);
        this.retry = b.retry;
        this.ids = b.ids;
    }

    /** A builder for the service at {@code baseUrl} ({@code http://host:8080}, a path prefix allowed). */
    public static Builder builder(String baseUrl) {
        return new Builder(baseUrl);
    }

    /** The retry policy of pushes, deletes, finishes and look-ups. */
    public RetryPolicy retryPolicy() {
        return retry;
    }

    Transport transport() {
        return transport;
    }

    /** Pushes a job of {@code topic} with {@code body}, due after {@code delay}, under an id the client makes. */
    public PushResult push(String topic, String body, Duration delay) {
        return push(PushRequest.of(topic, body, delay));
    }

    /**
     * Pushes {@code job} (under an id the client makes when it has none), repeated as the retry policy allows after
     * a 503, 504, another 5xx or no answer. Never throws for an answer: the result says which ended it.
     */
    public PushResult push(PushRequest job) {
        PushRequest withId = job.id() == null ? job.withId(ids.get()) : job;
        Transport.Exchange x = transport.call("POST", "/push", Transport.toJson(withId), retry, Duration.ZERO);
        return new PushResult(withId.id(), outcomeOf(x), x.status(), x.message(), x.calls(), fieldOf(x));
    }

    /**
     * Pushes {@code jobs} with {@code POST /push/batch}, {@value #MAX_BATCH} a call (a longer list is split, each
     * part written whole or not at all, and retried on its own), each job under its own id or one the client makes.
     * Answers a result per job, in order. A 409 names the jobs whose ids name other jobs: those are {@link
     * PushOutcome#CONFLICT}, the batch's others were pushed ({@link PushOutcome#DURABLE}).
     */
    public List<PushResult> pushAll(List<PushRequest> jobs) {
        List<PushResult> results = new ArrayList<>(jobs.size());
        for (int from = 0; from < jobs.size(); from += MAX_BATCH) {
            List<PushRequest> part = new ArrayList<>(jobs.subList(from, Math.min(jobs.size(), from + MAX_BATCH)));
            part.replaceAll(j -> j.id() == null ? j.withId(ids.get()) : j);
            Transport.Exchange x = transport.call("POST", "/push/batch", Transport.toJson(part), retry, Duration.ZERO);
            PushOutcome outcome = outcomeOf(x);
            Set<String> conflicting = outcome == PushOutcome.CONFLICT ? conflictingIds(x) : Set.of();
            for (PushRequest j : part) {
                PushOutcome own = outcome;
                if (outcome == PushOutcome.CONFLICT && !conflicting.isEmpty() && !conflicting.contains(j.id())) {
                    own = PushOutcome.DURABLE;
                }
                results.add(new PushResult(j.id(), own, x.status(), x.message(), x.calls(), fieldOf(x)));
            }
        }
        return results;
    }

    /**
     * The field a 400 or 409 names: a 400's {@code data.field}, or else the first word of the message (a 409's, or
     * a 400 of a service older than that); null for any other answer.
     */
    private static String fieldOf(Transport.Exchange x) {
        if (x.status() != 400 && x.status() != 409) {
            return null;
        }
        String field = x.reply().data().path("field").asText(null);
        if (field != null && !field.isEmpty()) {
            return field;
        }
        String message = x.message();
        if (message == null) {
            return null;
        }
        int end = 0;
        while (end < message.length() && message.charAt(end) != ' ' && message.charAt(end) != ':') {
            end++;
        }
        return end == 0 ? null : message.substring(0, end);
    }

    /**
     * Cancels a job not handed over yet, or deletes a dead letter ({@code DELETE /jobs/{id}}), repeated after a 503,
     * 504 or no answer (a delete is safe to repeat: deleting a deleted job is 200).
     */
    public DeleteResult delete(String id) {
        Transport.Exchange x = transport.call("DELETE", "/jobs/" + encode(id), null, retry, Duration.ZERO);
        DeleteResult.Outcome outcome;
        if (!x.answered() || RetryPolicy.isRetryable(x.status())) {
            outcome = DeleteResult.Outcome.UNKNOWN;
        } else if (x.status() == 200) {
            outcome = DeleteResult.Outcome.DELETED;
        } else if (x.status() == 404) {
            outcome = DeleteResult.Outcome.NOT_FOUND;
        } else if (x.status() == 409) {
            outcome = DeleteResult.Outcome.CONFLICT;
        } else {
            outcome = DeleteResult.Outcome.REFUSED;
        }
        return new DeleteResult(id, outcome, x.status(), x.message());
    }

    /**
     * The job with its status, tier and journaled history ({@code GET /jobs/{id}}); empty when the service has no
     * such job.
     *
     * @throws DelayQueueClientException when the service refused the call or its retries ran out
     */
    public Optional<JobDetails> get(String id) {
        Transport.Exchange x = transport.call("GET", "/jobs/" + encode(id), null, retry, Duration.ZERO);
        if (x.status() == 404) {
            return Optional.empty();
        }
        return Optional.of(read(require(x, "GET /jobs/" + id), JobDetails.class));
    }

    /** Puts every non-final journaled job Redis lacks back into Redis ({@code GET /reStore}), due ones included. */
    public RestoreReport restore() {
        return restore(true);
    }

    /**
     * Puts every non-final journaled job Redis lacks back into Redis ({@code GET /reStore?expire=}); idempotent, so
     * repeated after a 503 or no answer.
     *
     * @param includeDue false skips the jobs already due
     */
    public RestoreReport restore(boolean includeDue) {
        Transport.Exchange x = transport.call("GET", "/reStore?expire=" + includeDue, null, retry, Duration.ZERO);
        return read(require(x, "GET /reStore"), RestoreReport.class);
    }

    /**
     * Reserves up to {@code count} ready jobs of the pull topic for their ttr ({@code GET /get/{topic}?count=}),
     * waiting up to {@code wait} when none is ready. Called once, never repeated: a lost answer leaves the jobs it
     * reserved to come back after their ttr.
     *
     * @return the jobs reserved, in due order; empty when none came
     * @throws DelayQueueClientException when the service refused the call or did not answer
     */
    public List<Job> reserve(String topic, int count, Duration wait) {
        if (count < 1 || count > MAX_BATCH) {
            throw new IllegalArgumentException("count must be between 1 and " + MAX_BATCH + ": " + count);
        }
        String path = "/get/" + encode(topic) + "?count=" + count + "&timeout=" + Transport.millis(wait);
        Transport.Exchange x = transport.call("GET", path, null, RetryPolicy.none(retry.deadline()), wait);
        return read(require(x, "GET /get/" + topic), JOBS);
    }

    /**
     * Finishes one reservation ({@code POST /jobs/{id}/finish?attempts=}), repeated after a 503 or no answer (a
     * finish is safe to repeat). A 409 is {@link FinishOutcome.Outcome#STALE} when that reservation expired and
     * the job was handed over again, else {@link FinishOutcome.Outcome#NOT_RESERVED}.
     */
    public FinishOutcome finish(String id, int attempts) {
        Transport.Exchange x = transport.call(
                "POST", "/jobs/" + encode(id) + "/finish?attempts=" + attempts, null, retry, Duration.ZERO);
        FinishOutcome.Outcome outcome;
        if (!x.answered() || RetryPolicy.isRetryable(x.status())) {
            outcome = FinishOutcome.Outcome.UNKNOWN;
        } else if (x.status() == 200) {
            outcome = FinishOutcome.Outcome.FINISHED;
        } else if (x.status() == 404) {
            outcome = FinishOutcome.Outcome.NOT_FOUND;
        } else if (x.status() == 409) {
            outcome = x.reply().message().contains("is over")
                    ? FinishOutcome.Outcome.STALE
                    : FinishOutcome.Outcome.NOT_RESERVED;
        } else {
            throw new DelayQueueClientException(x.status(), "POST /jobs/" + id + "/finish: " + x.describe(), null);
        }
        return new FinishOutcome(id, outcome, null);
    }

    /**
     * Finishes reservations ({@code POST /jobs/finish} with each one's id and {@code attempts}), {@value
     * #MAX_BATCH} a call, repeated after a 503 or no answer. An outcome per job, in order; a call whose retries
     * ran out gives its jobs {@link FinishOutcome.Outcome#UNKNOWN} (they come back after their ttr).
     *
     * @throws DelayQueueClientException when the service refused the call (a 4xx)
     */
    public List<FinishOutcome> finishAll(List<Job> reservations) {
        List<FinishOutcome> outcomes = new ArrayList<>(reservations.size());
        for (int from = 0; from < reservations.size(); from += MAX_BATCH) {
            List<Job> part = reservations.subList(from, Math.min(reservations.size(), from + MAX_BATCH));
            List<FinishRequest> body = new ArrayList<>(part.size());
            for (Job j : part) {
                body.add(new FinishRequest(j.id(), j.attempts()));
            }
            Transport.Exchange x = transport.call("POST", "/jobs/finish", Transport.toJson(body), retry, Duration.ZERO);
            if (!x.answered() || RetryPolicy.isRetryable(x.status())) {
                part.forEach(j -> outcomes.add(new FinishOutcome(j.id(), FinishOutcome.Outcome.UNKNOWN, null)));
                continue;
            }
            List<FinishOutcome> answered = read(require(x, "POST /jobs/finish"), new TypeReference<>() {});
            if (answered.size() != part.size()) {
                throw new DelayQueueClientException(
                        x.status(),
                        "POST /jobs/finish answered " + answered.size() + " outcomes for " + part.size(),
                        null);
            }
            outcomes.addAll(answered);
        }
        return outcomes;
    }

    /** One job of {@code POST /jobs/finish}: its id and its attempts as reserved. */
    private record FinishRequest(String id, int attempts) {}

    /**
     * The service's health as {@code GET /actuator/health} says it ({@code UP}, {@code DOWN}, ...; open without the
     * token), asked once, never repeated: for a health check of the service's reachability.
     *
     * @throws DelayQueueClientException when the service did not answer, or answered without a status
     */
    public String health() {
        Transport.Exchange x =
                transport.call("GET", "/actuator/health", null, RetryPolicy.none(retry.deadline()), Duration.ZERO);
        JsonNode status = x.answered() && x.reply().envelope() != null
                ? x.reply().envelope().get("status")
                : null;
        if (status == null || !status.isTextual()) {
            throw new DelayQueueClientException(x.status(), "GET /actuator/health: " + x.describe(), x.failure());
        }
        return status.asText();
    }

    /**
     * A consumer of the pull topic {@code topic} that runs {@code handler} on each job: set it up on the builder
     * and {@link PullConsumer.Builder#start() start} it.
     */
    public PullConsumer.Builder consumer(String topic, JobHandler handler) {
        return new PullConsumer.Builder(this, topic, handler);
    }

    private static PushOutcome outcomeOf(Transport.Exchange x) {
        if (!x.answered()) {
            return PushOutcome.UNKNOWN;
        }
        int status = x.status();
        if (status == 200) {
            return PushOutcome.DURABLE;
        }
        if (status == 202) {
            return PushOutcome.JOURNALED;
        }
        if (status == 409) {
            return PushOutcome.CONFLICT;
        }
        if (status >= 400 && status < 500 && status != 429) {
            return PushOutcome.REFUSED;
        }
        return PushOutcome.UNKNOWN;
    }

    private static Set<String> conflictingIds(Transport.Exchange x) {
        Set<String> found = new HashSet<>();
        Matcher m = CONFLICTING_ID.matcher(x.reply().message());
        while (m.find()) {
            found.add(m.group(1));
        }
        return found;
    }

    private static JsonNode require(Transport.Exchange x, String call) {
        if (x.answered() && x.status() == 200) {
            return x.reply().data();
        }
        throw new DelayQueueClientException(x.status(), call + ": " + x.describe(), x.failure());
    }

    private static <T> T read(JsonNode data, Class<T> type) {
        try {
            return Transport.JSON.treeToValue(data, type);
        } catch (IOException e) {
            throw new DelayQueueClientException(200, "unexpected answer: " + data, e);
        }
    }

    private static <T> T read(JsonNode data, TypeReference<T> type) {
        try {
            return Transport.JSON.readerFor(type).readValue(data);
        } catch (IOException e) {
            throw new DelayQueueClientException(200, "unexpected answer: " + data, e);
        }
    }

    private static String encode(String segment) {
        return URLEncoder.encode(segment, StandardCharsets.UTF_8);
    }

    /** Builds a {@link DelayQueueClient}. */
    public static final class Builder {
        public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);
        public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);

        private final String baseUrl;
        private String token;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
        private RetryPolicy retry = RetryPolicy.defaults();
        private Supplier<String> ids = () -> UUID.randomUUID().toString();

        private Builder(String baseUrl) {
            Objects.requireNonNull(baseUrl, "baseUrl");
            URI uri = URI.create(baseUrl);
            if (uri.getScheme() == null
                    || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))
                    || uri.getHost() == null) {
                throw new IllegalArgumentException("baseUrl must be an http or https URL: " + baseUrl);
            }
            this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        }

        /** The service's {@code delay.security.token}, sent as {@code Authorization: Bearer <token>}; null: none. */
        public Builder token(String token) {
            this.token = token;
            return this;
        }

        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = positive(timeout, "connectTimeout");
            return this;
        }

        /**
         * How long one call waits for its answer (a long poll's wait is added). Keep it above the service's {@code
         * delay.journal.commit-timeout} (2 s by default), within which it answers a push.
         */
        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = positive(timeout, "requestTimeout");
            return this;
        }

        public Builder retryPolicy(RetryPolicy policy) {
            this.retry = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /**
         * Makes the ids of jobs pushed without one: {@code [A-Za-z0-9._:-]{1,128}}, unique. Keep clear of the
         * service's own form (14 characters of {@code [0-9a-z]}): a random UUID by default.
         */
        public Builder idSupplier(Supplier<String> ids) {
            this.ids = Objects.requireNonNull(ids, "ids");
            return this;
        }

        public DelayQueueClient build() {
            return new DelayQueueClient(this);
        }

        private static Duration positive(Duration d, String name) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + " must be positive: " + d);
            }
            return d;
        }
    }
}
