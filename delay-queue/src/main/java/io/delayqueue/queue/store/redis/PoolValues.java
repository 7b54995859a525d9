package io.delayqueue.queue.store.redis;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.common.JsonCodec;
import java.util.Arrays;

/**
 * The value of a job in its shard's pool hash, written compactly because a million pending jobs hold a
 * million of them in memory:
 *
 * <pre>STATUS|attempts|due|ttr|maxAttempts|topic|createTime|priority|extrasLength|extras body</pre>
 *
 * (createTime in base 36: eight chars, not thirteen.)
 * The first six fields are what the Lua scripts read and rewrite (lib.lua's {@code parse}); everything after
 * them is opaque to the scripts. {@code extras} is a JSON array {@code [subtopic, bizKey, url]} (Jackson), or
 * nothing when all three are absent, and {@code extrasLength} its length in chars; the body comes last, as
 * it is, so it needs no escaping. The id is the hash field and is not repeated here.
 *
 * <p>Values written by earlier versions (the whole job as JSON after the six fields) are still read.
 */
final class PoolValues {
    private static final int SCRIPT_FIELDS = 6;

    private PoolValues() {}

    static String encode(Job job) {
        String extras = job.subtopic() == null && job.bizKey() == null && job.url() == null
                ? ""
                : JsonCodec.write(Arrays.asList(job.subtopic(), job.bizKey(), job.url()));
        StringBuilder out = new StringBuilder(
                64 + job.topic().length() + extras.length() + job.body().length());
        out.append(job.status().name())
                .append('|')
                .append(job.attempts())
                .append('|')
                .append(job.executeAt())
                .append('|')
                .append(job.ttr())
                .append('|')
                .append(job.maxAttempts())
                .append('|')
                .append(job.topic())
                .append('|')
                .append(Long.toString(job.createTime(), Character.MAX_RADIX))
                .append('|')
                .append(job.priority())
                .append('|')
                .append(extras.length())
                .append('|')
                .append(extras)
                .append(job.body());
        return out.toString();
    }

    private static String[] readExtras(String json) {
        try {
            return JsonCodec.mapper().readValue(json, String[].class);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a job's extras in Redis are not a JSON array: " + json, e);
        }
    }

    static Job decode(String id, String value) {
        int[] bars = new int[SCRIPT_FIELDS + 3];
        int from = 0;
        for (int i = 0; i < SCRIPT_FIELDS; i++) {
            bars[i] = value.indexOf('|', from);
            from = bars[i] + 1;
        }
        JobStatus status = JobStatus.valueOf(value.substring(0, bars[0]));
        int attempts = Integer.parseInt(value, bars[0] + 1, bars[1], 10);
        long due = Long.parseLong(value, bars[1] + 1, bars[2], 10);
        if (value.startsWith("{", from)) { // written by an earlier version
            return JsonCodec.readJob(value.substring(from)).withState(status, attempts, due);
        }
        long ttr = Long.parseLong(value, bars[2] + 1, bars[3], 10);
        int maxAttempts = Integer.parseInt(value, bars[3] + 1, bars[4], 10);
        String topic = value.substring(bars[4] + 1, bars[5]);
        for (int i = SCRIPT_FIELDS; i < bars.length; i++) {
            bars[i] = value.indexOf('|', from);
            from = bars[i] + 1;
        }
        long createTime = Long.parseLong(value, bars[5] + 1, bars[6], Character.MAX_RADIX);
        int priority = Integer.parseInt(value, bars[6] + 1, bars[7], 10);
        int extrasLength = Integer.parseInt(value, bars[7] + 1, bars[8], 10);
        String subtopic = null;
        String bizKey = null;
        String url = null;
        if (extrasLength > 0) {
            String[] extras = readExtras(value.substring(from, from + extrasLength));
            subtopic = extras[0];
            bizKey = extras[1];
            url = extras[2];
        }
        String body = value.substring(from + extrasLength);
        return new Job(
                id, topic, subtopic, bizKey, body, due, ttr, maxAttempts, url, priority, createTime, status, attempts);
    }
}
