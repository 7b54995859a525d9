package io.delayqueue.common;

/**
 * What a client sends to push a job. Every field but {@code topic} and {@code body} is optional;
 * {@code delay} and {@code executeAt} are mutually exclusive (neither means "due now").
 *
 * <p>{@code status}, {@code ttl} and {@code createTime} are taken as mykit-delay documents its push body, so
 * that its clients can move over unchanged: {@code status} may only be {@code 0} (its "waiting to be put"),
 * {@code ttl} is a reserved field there and is accepted and ignored, and {@code delay} counts from {@code
 * createTime} when one is given.
 *
 * @param id optional client-chosen id; pushing the same id twice yields one job
 * @param delay milliseconds from now, or from {@code createTime}
 * @param executeAt absolute due time, epoch milliseconds
 * @param ttr time-to-run in milliseconds for pull topics
 * @param status mykit-delay's status on push: only {@code 0}
 * @param ttl mykit-delay's reserved field: accepted (not negative) and ignored
 * @param createTime mykit-delay's creation time, epoch milliseconds: {@code delay} counts from it
 */
public record PushRequest(
        String id,
        String topic,
        String subtopic,
        String bizKey,
        String body,
        Long delay,
        Long executeAt,
        Long ttr,
        Integer maxAttempts,
        String url,
        Integer priority,
        Integer status,
        Long ttl,
        Long createTime) {

    /** A request without mykit-delay's fields. */
    public PushRequest(
            String id,
            String topic,
            String subtopic,
            String bizKey,
            String body,
            Long delay,
            Long executeAt,
            Long ttr,
            Integer maxAttempts,
            String url,
            Integer priority) {
        this(id, topic, subtopic, bizKey, body, delay, executeAt, ttr, maxAttempts, url, priority, null, null, null);
    }

    /** A request with just the required fields and a delay. */
    public static PushRequest of(String topic, String body, long delayMs) {
        return new PushRequest(null, topic, null, null, body, delayMs, null, null, null, null, null);
    }

    public PushRequest withId(String newId) {
        return new PushRequest(
                newId,
                topic,
                subtopic,
                bizKey,
                body,
                delay,
                executeAt,
                ttr,
                maxAttempts,
                url,
                priority,
                status,
                ttl,
                createTime);
    }

    public PushRequest withTtr(long newTtr) {
        return new PushRequest(
                id,
                topic,
                subtopic,
                bizKey,
                body,
                delay,
                executeAt,
                newTtr,
                maxAttempts,
                url,
                priority,
                status,
                ttl,
                createTime);
    }

    public PushRequest withMaxAttempts(int newMaxAttempts) {
        return new PushRequest(
                id,
                topic,
                subtopic,
                bizKey,
                body,
                delay,
                executeAt,
                ttr,
                newMaxAttempts,
                url,
                priority,
                status,
                ttl,
                createTime);
    }
}
