package io.delayqueue.queue.dispatch;

/**
 * Completes a dispatch stage when the dispatcher did not attempt the send at all: its pool was full, or the
 * job waited in its queue so long that its reservation could expire before the send. Nothing reached the
 * receiver, so the engine puts the job back a little later without counting an attempt (any other failure
 * counts one and follows the retry ladder).
 */
public class DispatchRejectedException extends RuntimeException {
    public DispatchRejectedException(String message) {
        super(message, null, false, false);
    }
}
