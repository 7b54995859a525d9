package io.delayqueue.client.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a bean's method the handler of a pull topic: a {@link io.delayqueue.client.PullConsumer} reserves the
 * topic's jobs in batches and calls the method for each, on its own threads.
 *
 * <p>The method takes one parameter: the job ({@link io.delayqueue.client.Job}) or its body ({@code String}).
 * Returning normally finishes the job; throwing leaves it, and it comes back after its {@code ttr} (its {@code
 * attempts} counted, {@code DEAD} at its {@code maxAttempts}). Delivery is at least once: a handler should be
 * idempotent (the job's id is the same on every delivery).
 *
 * <pre>{@code
 * @DelayListener(topic = "mail", concurrency = 4)
 * void send(Job job) { mailer.send(job.body()); }
 * }</pre>
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DelayListener {
    /** The pull topic consumed. */
    String topic();

    /** Handlers running at once; {@code delay.client.listener.concurrency} when 0. */
    int concurrency() default 0;

    /** Jobs reserved per call; {@code delay.client.listener.batch-size} when 0. */
    int batchSize() default 0;
}
