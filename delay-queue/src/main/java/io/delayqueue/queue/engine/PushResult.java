package io.delayqueue.queue.engine;

/**
 * @param id the job's id
 * @param created {@code false} when a job with this client-supplied id already existed (and was kept)
 */
public record PushResult(String id, boolean created) {}
