package io.delayqueue.queue.engine.push;

import io.delayqueue.common.Job;
import io.delayqueue.common.PushRequest;
import java.util.Objects;

/**
 * Whether a push of a client id that already names a job asks for that same job (an idempotent retry, answered
 * 200) or for another one (a conflict, 409 naming the first field that differs).
 *
 * <p>The same job: topic, subtopic, bizKey, body, url, ttr, maxAttempts and priority equal (each as the push
 * resolves it, defaults included), and the same due time when the push gives it absolutely: {@code executeAt},
 * or mykit-delay's {@code createTime} + {@code delay}. A due time given as a {@code delay} from now is not
 * compared (a retry computes a new one), nor is the due time of a job rescheduled since (its {@code attempts}
 * above 0). Due times are compared as the push resolves them: one in the past means now, so two due times both
 * past are the same.
 */
final class SameJob {
    private SameJob() {}

    /**
     * The first field of {@code request} (resolved as {@code pushed}) that differs from {@code existing}, the job
     * the id already names, as the push names it; {@code null} when it is the same job.
     */
    static String firstDifference(PushRequest request, Job pushed, Job existing, long now) {
        if (!pushed.topic().equals(existing.topic())) {
            return "topic";
        }
        if (!Objects.equals(blankAsNull(pushed.subtopic()), blankAsNull(existing.subtopic()))) {
            return "subtopic";
        }
        if (!Objects.equals(blankAsNull(pushed.bizKey()), blankAsNull(existing.bizKey()))) {
            return "bizKey";
        }
        if (!pushed.body().equals(existing.body())) {
            return "body";
        }
        if (!Objects.equals(blankAsNull(pushed.url()), blankAsNull(existing.url()))) {
            return "url";
        }
        if (pushed.ttr() != existing.ttr()) {
            return "ttr";
        }
        if (pushed.maxAttempts() != existing.maxAttempts()) {
            return "maxAttempts";
        }
        if (pushed.priority() != existing.priority()) {
            return "priority";
        }
        if (existing.attempts() == 0) {
            if (request.executeAt() != null) {
                if (Math.max(request.executeAt(), now) != Math.max(existing.executeAt(), now)) {
                    return "executeAt";
                }
            } else if (request.delay() != null && request.createTime() != null) {
                if (Math.max(request.createTime() + request.delay(), now) != Math.max(existing.executeAt(), now)) {
                    return "delay";
                }
            }
        }
        return null;
    }

    private static String blankAsNull(String value) {
        return value == null || value.isEmpty() ? null : value;
    }
}
