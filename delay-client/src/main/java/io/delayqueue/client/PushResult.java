package io.delayqueue.client;

/**
 * How a push ended.
 *
 * @param id the job's id (the caller's, or the one the client made): the id to push again with when {@link
 *     #outcome()} is {@link PushOutcome#UNKNOWN}
 * @param outcome which answer ended it
 * @param status the last HTTP status, 0 when the last call had no answer
 * @param message the service's message (for a refusal it names the field), or why no answer came
 * @param calls the calls made (retries included)
 */
public record PushResult(String id, PushOutcome outcome, int status, String message, int calls) {
    /** Whether the service holds the job (200 or 202). */
    public boolean isAccepted() {
        return outcome.isAccepted();
    }

    /**
     * The field a refusal names (the first word of a 400's message, e.g. {@code ttr} or {@code [3].body}), or null.
     */
    public String field() {
        if ((outcome != PushOutcome.REFUSED && outcome != PushOutcome.CONFLICT) || message == null) {
            return null;
        }
        int end = 0;
        while (end < message.length() && message.charAt(end) != ' ' && message.charAt(end) != ':') {
            end++;
        }
        return end == 0 ? null : message.substring(0, end);
    }
}
