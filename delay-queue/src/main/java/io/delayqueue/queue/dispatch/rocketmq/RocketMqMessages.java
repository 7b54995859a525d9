package io.delayqueue.queue.dispatch.rocketmq;

import io.delayqueue.common.Job;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.rocketmq.common.message.Message;

/**
 * How a job becomes a RocketMQ message: topic to topic, {@code subtopic} to tag, {@code bizKey} and the job
 * id to keys (indexed by the broker, so either finds the message), body to body (UTF-8), and the job's id,
 * attempts, due time and creation time as user properties.
 */
public final class RocketMqMessages {
    public static final String JOB_ID = "jobId";
    public static final String ATTEMPTS = "attempts";
    public static final String EXECUTE_AT = "executeAt";
    public static final String CREATE_TIME = "createTime";

    private RocketMqMessages() {}

    public static Message toMessage(Job job) {
        Message message = new Message(job.topic(), job.body().getBytes(StandardCharsets.UTF_8));
        if (job.subtopic() != null && !job.subtopic().isEmpty()) {
            message.setTags(job.subtopic());
        }
        List<String> keys = new ArrayList<>(2);
        if (job.bizKey() != null && !job.bizKey().isEmpty()) {
            keys.add(job.bizKey());
        }
        keys.add(job.id());
        message.setKeys(keys);
        message.putUserProperty(JOB_ID, job.id());
        message.putUserProperty(ATTEMPTS, Integer.toString(job.attempts()));
        message.putUserProperty(EXECUTE_AT, Long.toString(job.executeAt()));
        message.putUserProperty(CREATE_TIME, Long.toString(job.createTime()));
        return message;
    }
}
