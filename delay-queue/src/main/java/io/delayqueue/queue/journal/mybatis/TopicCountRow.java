package io.delayqueue.queue.journal.mybatis;

import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.journal.TopicCount;

/** A row of {@link JournalMapper#countByTopic} as MyBatis maps it. */
public class TopicCountRow {
    private String topic;
    private String status;
    private long jobs;

    TopicCount toCount() {
        return new TopicCount(topic, JobStatus.valueOf(status), jobs);
    }

    public void setTopic(String topic) {
        this.topic = topic;
    }

    public void setStatus(String status) {
        this.status = status;
    }

    public void setJobs(long jobs) {
        this.jobs = jobs;
    }
}
