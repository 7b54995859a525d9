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
 * @param field the field a refusal names ({@code ttr}, or {@code [3].body} in a batch: the service's 400 says it in
 *     its {@code data}), or null
 */
public record PushResult(String id, PushOutcome outcome, int status, String message, int calls, String field) {
    /** Whether the service holds the job (200 or 202). */
    public boolean isAccepted() {
        return outcome.isAccepted();
    }
}
