package io.delayqueue.common;

/**
 * What a client sends to push a job. Every field but {@code topic} and {@code body} is optional;
 * {@code delay} and {@code executeAt} are mutually exclusive (neither means "due now").
 *
 * @param id optional client-chosen id; pushing the same id twice yields one job
 * @param delay milliseconds from now
 * @param executeAt absolute due time, epoch milliseconds
 * @param ttr time-to-run in milliseconds for pull topics
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
        Integer priority) {

    /** A request with just the required fields and a delay. */
    public static PushRequest of(String topic, String body, long delayMs) {
        return new PushRequest(null, topic, null, null, body, delayMs, null, null, null, null, null);
    }

    public PushRequest withId(String newId) {
        return new PushRequest(newId, topic, subtopic, bizKey, body, delay, executeAt, ttr, maxAttempts, url, priority);
    }

    public PushRequest withTtr(long newTtr) {
        return new PushRequest(id, topic, subtopic, bizKey, body, delay, executeAt, newTtr, maxAttempts, url, priority);
    }

    public PushRequest withMaxAttempts(int newMaxAttempts) {
        return new PushRequest(id, topic, subtopic, bizKey, body, delay, executeAt, ttr, newMaxAttempts, url, priority);
    }
}
