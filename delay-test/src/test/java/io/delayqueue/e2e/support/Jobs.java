package io.delayqueue.e2e.support;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntToLongFunction;

/** Pushing many jobs over {@code POST /push/batch}, 1000 per request, spread over the instances given. */
public final class Jobs {
    private static final int BATCH = 1000;

    private Jobs() {}

    /** One job's push body: {@code topic}, a body naming it, due {@code delayMs} from now. */
    public static Map<String, Object> one(String topic, long delayMs) {
        Map<String, Object> job = new LinkedHashMap<>();
        job.put("topic", topic);
        job.put("body", "body of a " + topic + " job");
        job.put("delay", delayMs);
        return job;
    }

    /**
     * Pushes {@code count} jobs of {@code topic}, job {@code i} due at {@code executeAt.applyAsLong(i)}, in
     * batches sent to the instances in turn; returns the ids in order.
     */
    public static List<String> push(List<Api> instances, String topic, int count, IntToLongFunction executeAt) {
        List<String> ids = new ArrayList<>(count);
        for (int from = 0, n = 0; from < count; from += BATCH, n++) {
            List<Map<String, Object>> batch = new ArrayList<>();
            for (int i = from; i < Math.min(count, from + BATCH); i++) {
                Map<String, Object> job = new LinkedHashMap<>();
                job.put("topic", topic);
                job.put("body", "job " + i);
                job.put("executeAt", executeAt.applyAsLong(i));
                batch.add(job);
            }
            Api api = instances.get(n % instances.size());
            Api.Response r = api.postJson("/push/batch", batch);
            if (r.status() != 200) {
                throw new AssertionError("batch push answered " + r);
            }
            r.data().forEach(id -> ids.add(id.asText()));
        }
        return ids;
    }
}
