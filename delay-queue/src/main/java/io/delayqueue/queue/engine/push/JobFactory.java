package io.delayqueue.queue.engine.push;

import io.delayqueue.common.DelayQueueException.InvalidField;
import io.delayqueue.common.Job;
import io.delayqueue.common.JobIds;
import io.delayqueue.common.JobStatus;
import io.delayqueue.common.PushRequest;
import io.delayqueue.queue.engine.EngineConfig;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.IntSupplier;
import java.util.regex.Pattern;

/**
 * Validates push requests and turns them into jobs. Every rejection is an {@link InvalidField} naming the
 * field, thrown before anything is written. A job pushed without an id gets a generated one ({@link
 * JobIds.Generator}); the first of them claims this instance's node number from the store.
 */
public final class JobFactory {
    public static final Pattern TOPIC = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    /**
     * How far ahead of this service's clock a client's {@code createTime} may be (its clock running ahead); a
     * later one is refused as absurd.
     */
    public static final Duration CREATE_TIME_SKEW = Duration.ofMinutes(5);
    /** The journal's column limits (sql/V1__journal.sql), checked before anything is written. */
    private static final int MAX_SHORT_FIELD = 255;

    private static final int MAX_URL = 2048;
    private static final int MAX_ATTEMPTS_LIMIT = 1000;
    /** The id of a validated job that is to get a generated one; no client id is empty. */
    private static final String UNASSIGNED = "";

    private final EngineConfig config;
    private final GeneratedIds ids;
    /** The dispatchers whose jobs must carry a url ({@link io.delayqueue.queue.dispatch.Dispatcher#needsUrl()}). */
    private final Set<String> urlDispatchers;
    /** Why a url may not be called; null when it may. */
    private final Function<URI, String> urlRefusal;

    /** A factory for routes to dispatchers none of which needs a url. */
    public JobFactory(EngineConfig config, IntSupplier claimIdNode) {
        this(config, claimIdNode, Set.of());
    }

    /**
     * @param claimIdNode claims the node number of this instance's generated ids ({@link
     *     io.delayqueue.queue.store.JobStore#claimIdNode()}); called on the first job pushed without an id, and
     *     again after a claim failed (which fails that push)
     * @param urlDispatchers the names of the dispatchers whose jobs must carry a url
     */
    public JobFactory(EngineConfig config, IntSupplier claimIdNode, Set<String> urlDispatchers) {
        this(config, claimIdNode, urlDispatchers, url -> null);
    }

    /**
     * @param urlRefusal why a job's url may not be called ({@link io.delayqueue.queue.dispatch.Dispatcher#urlRefusal}),
     *     null when it may: a push of such a job is refused naming {@code url}
     */
    public JobFactory(
            EngineConfig config,
            IntSupplier claimIdNode,
            Set<String> urlDispatchers,
            Function<URI, String> urlRefusal) {
        this.config = config;
        this.ids = new GeneratedIds(claimIdNode);
        this.urlDispatchers = Set.copyOf(urlDispatchers);
        this.urlRefusal = urlRefusal;
    }

    /** @param field the name used in messages ({@code "" } for a single push, {@code "[3]."} in a batch) */
    public Job create(PushRequest r, long now, String field) {
        return withGeneratedId(validated(r, now, field), now);
    }

    /**
     * Jobs of one push, in order: every request is validated before any id is generated, since the first
     * generated id claims a node number in the store, and a rejected push writes nothing.
     *
     * @param singleField {@code ""} for a single push, {@code null} for a batch (fields are named {@code [i].})
     */
    public List<Job> createAll(List<PushRequest> requests, long now, String singleField) {
        List<Job> jobs = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            PushRequest request = requests.get(i);
            try {
                jobs.add(validated(request, now, singleField != null ? singleField : "[" + i + "]."));
            } catch (InvalidField e) {
                throw e.naming(request != null ? request.id() : null); // the answer names the job at fault
            }
        }
        for (int i = 0; i < jobs.size(); i++) {
            jobs.set(i, withGeneratedId(jobs.get(i), now));
        }
        return jobs;
    }

    /** The job a valid request makes, with {@link #UNASSIGNED} as its id if the request has none. */
    private Job validated(PushRequest r, long now, String field) {
        if (r == null) {
            throw new InvalidField(
                    field.isEmpty() ? "body" : field.substring(0, field.length() - 1), "must be a job object");
        }
        String topic = r.topic();
        if (topic == null || topic.isEmpty()) {
            throw new InvalidField(field + "topic", "is required");
        }
        if (!TOPIC.matcher(topic).matches()) {
            throw new InvalidField(field + "topic", "must match [A-Za-z0-9._-]{1,64}");
        }
        if (r.body() == null || r.body().isEmpty()) {
            throw new InvalidField(field + "body", "is required");
        }
        int bodyBytes = utf8Length(r.body());
        int maxBodyBytes = Math.min(config.limits().maxBodyBytes(), LimitSettings.MAX_JOURNAL_BODY_BYTES);
        if (bodyBytes > maxBodyBytes) {
            throw new InvalidField(
                    field + "body", "is " + bodyBytes + " bytes, over the limit of " + maxBodyBytes + " bytes");
        }
        if (r.id() != null && !JobIds.CLIENT_ID.matcher(r.id()).matches()) {
            throw new InvalidField(field + "id", "must match [A-Za-z0-9._:-]{1,128}");
        }
        checkShort(r.subtopic(), field + "subtopic");
        checkShort(r.bizKey(), field + "bizKey");
        long maxDelay = config.limits().maxDelay().toMillis();
        checkMykitFields(r, now, maxDelay, field);
        long executeAt;
        if (r.delay() != null && r.executeAt() != null) {
            throw new InvalidField(field + "delay", "and executeAt are mutually exclusive; give one");
        } else if (r.delay() != null) {
            if (r.delay() < 0) {
                throw new InvalidField(field + "delay", "must not be negative");
            }
            if (r.delay() > maxDelay) {
                throw new InvalidField(field + "delay", "must be at most " + maxDelay + " ms");
            }
            // mykit-delay counts the delay from the job's createTime; a due time in the past means "now"
            executeAt = r.createTime() != null ? Math.max(r.createTime() + r.delay(), now) : now + r.delay();
            if (executeAt - now > maxDelay) {
                throw new InvalidField(
                        field + "delay", "counted from createTime must end at most " + maxDelay + " ms from now");
            }
        } else if (r.executeAt() != null) {
            if (r.executeAt() < 0) {
                throw new InvalidField(field + "executeAt", "must not be negative");
            }
            if (r.executeAt() - now > maxDelay) {
                throw new InvalidField(field + "executeAt", "must be at most " + maxDelay + " ms from now");
            }
            // a due time in the past means "now": it is what the job gets, and what the journal should say
            executeAt = Math.max(r.executeAt(), now);
        } else {
            executeAt = now;
        }
        long ttr = config.pull().defaultTtr().toMillis();
        if (r.ttr() != null) {
            if (r.ttr() < 1 || r.ttr() > maxDelay) {
                throw new InvalidField(field + "ttr", "must be between 1 and " + maxDelay + " ms");
            }
            ttr = r.ttr();
        }
        int maxAttempts = config.retry().maxAttemptsOf(topic);
        if (r.maxAttempts() != null) {
            if (r.maxAttempts() < 1 || r.maxAttempts() > MAX_ATTEMPTS_LIMIT) {
                throw new InvalidField(field + "maxAttempts", "must be between 1 and " + MAX_ATTEMPTS_LIMIT);
            }
            maxAttempts = r.maxAttempts();
        }
        if (r.url() != null) {
            checkUrl(r.url(), field + "url");
        } else if (urlDispatchers.contains(
                config.dispatch().topics().getOrDefault(topic, config.dispatch().defaultDispatcher()))) {
            throw new InvalidField(
                    field + "url", "is required: topic " + topic + " is dispatched by HTTP callback to its url");
        }
        return new Job(
                r.id() != null ? r.id() : UNASSIGNED,
                topic,
                r.subtopic(),
                r.bizKey(),
                r.body(),
                executeAt,
                ttr,
                maxAttempts,
                r.url(),
                r.priority() == null ? 0 : r.priority(),
                r.createTime() != null ? r.createTime() : now, // mykit-delay's createTime is kept as given
                JobStatus.DELAY,
                0);
    }

    /**
     * mykit-delay's push fields: {@code status} 0 only, {@code ttl} not negative, {@code createTime} (kept as the
     * job's) neither in the future beyond {@link #CREATE_TIME_SKEW} nor further back than {@code maxDelay}.
     */
    private static void checkMykitFields(PushRequest r, long now, long maxDelay, String field) {
        if (r.status() != null && r.status() != 0) {
            throw new InvalidField(
                    field + "status",
                    "may only be 0 on a push (mykit-delay's waiting-to-be-put); the service keeps a job's status");
        }
        if (r.ttl() != null && r.ttl() < 0) {
            throw new InvalidField(
                    field + "ttl", "must not be negative (it is accepted and ignored, as mykit-delay does)");
        }
        if (r.createTime() != null) {
            if (r.executeAt() != null) {
                throw new InvalidField(
                        field + "createTime", "is where delay counts from; give delay with it, not executeAt");
            }
            long skew = CREATE_TIME_SKEW.toMillis();
            if (r.createTime() < 0 || r.createTime() > now + skew || r.createTime() < now - maxDelay) {
                throw new InvalidField(
                        field + "createTime",
                        "must be epoch milliseconds from " + maxDelay + " ms before now to " + skew
                                + " ms after it, not " + r.createTime());
            }
        }
    }

    private Job withGeneratedId(Job job, long now) {
        return job.id().equals(UNASSIGNED) ? job.withId(ids.next(now)) : job;
    }

    private static void checkShort(String value, String field) {
        if (value != null && value.length() > MAX_SHORT_FIELD) {
            throw new InvalidField(field, "must be at most " + MAX_SHORT_FIELD + " characters");
        }
    }

    private void checkUrl(String url, String field) {
        if (url.length() > MAX_URL) {
            throw new InvalidField(field, "must be at most " + MAX_URL + " characters");
        }
        try {
            URI uri = new URI(url);
            String scheme = uri.getScheme();
            if (scheme == null
                    || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))
                    || uri.getHost() == null) {
                throw new InvalidField(field, "must be an absolute http or https URL");
            }
            String refused = urlRefusal.apply(uri);
            if (refused != null) {
                throw new InvalidField(field, refused);
            }
        } catch (java.net.URISyntaxException e) {
            throw new InvalidField(field, "is not a valid URL: " + e.getReason());
        }
    }

    private static int utf8Length(String s) {
        int bytes = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c)) {
                bytes += 4;
                i++;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }
}
