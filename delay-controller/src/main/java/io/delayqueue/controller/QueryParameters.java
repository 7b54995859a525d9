package io.delayqueue.controller;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.JobIds;
import io.delayqueue.queue.engine.handover.PullSettings;

/**
 * The controllers' query and path parameters, read as sent (strings) and checked here, so that a bad one is a 400
 * naming it rather than Spring's conversion error; and the patterns the API description gives for them.
 */
final class QueryParameters {
    /** A job id ({@link JobIds#isClientId}; generated ids match it too). */
    static final String JOB_ID_PATTERN = "^[A-Za-z0-9._:-]{1,128}$";
    /** A topic ({@link io.delayqueue.queue.engine.push.JobFactory#TOPIC}). */
    static final String TOPIC_PATTERN = "^[A-Za-z0-9._-]{1,64}$";
    /** An id used as an example: no job has it in a fresh service, so the example call of an id is a 404. */
    static final String EXAMPLE_ID = "order-42-close";

    static final String EXAMPLE_TOPIC = "order.close";

    private QueryParameters() {}

    /**
     * {@code id} when it can name a job, else a 400 naming {@code parameter}: an id no job can have is refused here
     * rather than looked up (a non-ASCII one would not even compare with the journal's ASCII id column).
     */
    static String requireJobId(String parameter, String id) {
        if (id == null || id.isEmpty()) {
            throw new DelayQueueException.InvalidField(parameter, "is required");
        }
        if (!JobIds.isClientId(id)) {
            throw new DelayQueueException.InvalidField(parameter, "must match [A-Za-z0-9._:-]{1,128}");
        }
        return id;
    }

    /**
     * The job id given under either of two names (this service's and mykit-delay's), which must not both be given.
     */
    static String requireOneJobId(String name, String value, String otherName, String other) {
        if (value != null && other != null) {
            throw new DelayQueueException.InvalidField(name, "and " + otherName + " name the same thing; give one");
        }
        return value == null && other != null ? requireJobId(otherName, other) : requireJobId(name, value);
    }

    static boolean parseBoolean(String name, String value, boolean absent) {
        if (value == null || value.isEmpty()) {
            return absent;
        }
        if (value.equalsIgnoreCase("true") || value.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(value);
        }
        throw new DelayQueueException.InvalidField(name, "must be true or false");
    }

    static Integer parseAttempts(String attempts) {
        if (attempts == null || attempts.isEmpty()) {
            return null;
        }
        try {
            return Integer.parseInt(attempts);
        } catch (NumberFormatException e) {
            throw new DelayQueueException.InvalidField("attempts", "must be the job's attempts as it was reserved");
        }
    }

    static int parseCount(String count) {
        try {
            return Integer.parseInt(count);
        } catch (NumberFormatException e) {
            throw new DelayQueueException.InvalidField(
                    "count", "must be an integer between 1 and " + PullSettings.MAX_COUNT);
        }
    }

    static long parseTimeout(String timeout) {
        if (timeout == null || timeout.isEmpty()) {
            return 0;
        }
        try {
            return Long.parseLong(timeout);
        } catch (NumberFormatException e) {
            throw new DelayQueueException.InvalidField("timeout", "must be an integer number of milliseconds");
        }
    }
}
