package io.delayqueue.queue.journal;

import io.delayqueue.common.JobStatus;

/** How many jobs of {@code topic} the journal holds in {@code status}. */
public record TopicCount(String topic, JobStatus status, long jobs) {}
