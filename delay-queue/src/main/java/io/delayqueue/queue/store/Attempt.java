package io.delayqueue.queue.store;

/**
 * Which attempt of a job an outcome (finish, retry, defer) belongs to: the job's {@link
 * io.delayqueue.common.Job#attempts()} when it was reserved. Each expired reservation and each failed send
 * counts an attempt, so an outcome that arrives after its reservation ended names an attempt the job has left
 * behind, and the store ignores it ({@link Outcome.Result#STALE}) instead of acting on the job's next
 * reservation.
 *
 * @param id the job
 * @param number the job's attempts count when it was reserved, or {@link #ANY}
 */
public record Attempt(String id, int number) {
    /** Whichever reservation the job has now (a consumer that did not say which attempt it holds). */
    public static final int ANY = -1;

    public static Attempt any(String id) {
        return new Attempt(id, ANY);
    }

    /** The attempt as a script argument: its number, or empty for {@link #ANY}. */
    public String argument() {
        return number == ANY ? "" : Integer.toString(number);
    }
}
