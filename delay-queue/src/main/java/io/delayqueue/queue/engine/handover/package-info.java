/**
 * The hand-over protocol: scanners move due jobs at their due time to their dispatcher (push topics) or ready list
 * (pull topics); sends are acknowledged or retried, reservations finished, dead letters requeued. Owner: {@link
 * DueJobMover}, with {@link DispatchPipeline} (sends) and {@link PullPath} (pull consumers).
 */
package io.delayqueue.queue.engine.handover;
