package io.delayqueue.queue.journal.mybatis;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;

/** A row of {@code delay_queue_job} as MyBatis maps it. */
public class JobRow {
    private String id;
    private String topic;
    private String subtopic;
    private String bizKey;
    private String body;
    private long ttr;
    private int maxAttempts;
    private String url;
    private int priority;
    private String status;
    private int attempts;
    private long dueAt;
    private long createTime;

    Job toJob() {
        return new Job(
                id,
                topic,
                subtopic,
                bizKey,
                body,
                dueAt,
                ttr,
                maxAttempts,
                url,
                priority,
                createTime,
                JobStatus.valueOf(status),
                attempts);
    }

    public void setId(String id) {
        this.id = id;
    }

    public void setTopic(String topic) {
        this.topic = topic;
    }

    public void setSubtopic(String subtopic) {
        this.subtopic = subtopic;
    }

    public void setBizKey(String bizKey) {
        this.bizKey = bizKey;
    }

    public void setBody(String body) {
        this.body = body;
    }

    public void setTtr(long ttr) {
        this.ttr = ttr;
    }

    public void setMaxAttempts(int maxAttempts) {
        this.maxAttempts = maxAttempts;
    }

    public void setUrl(String url) {
        this.url = url;
    }

    public void setPriority(int priority) {
        this.priority = priority;
    }

    public void setStatus(String status) {
        this.status = status;
    }

    public void setAttempts(int attempts) {
        this.attempts = attempts;
    }

    public void setDueAt(long dueAt) {
        this.dueAt = dueAt;
    }

    public void setCreateTime(long createTime) {
        this.createTime = createTime;
    }
}
