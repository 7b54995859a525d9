package io.delayqueue.client.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a bean's method the receiver of a topic's HTTP callbacks. The starter answers the service at {@code
 * delay.client.callback.path} (the url the topic's jobs carry), checks each callback's signature and timestamp
 * ({@link io.delayqueue.client.callback.CallbackVerifier}) and calls the method of the callback's topic.
 *
 * <p>The method's parameters, in any order, are any of: the job ({@link io.delayqueue.client.Job}, read from the
 * body), the body as sent ({@code String} or {@code byte[]}), and the verified delivery ({@link
 * io.delayqueue.client.callback.VerifiedCallback}: id, timestamp, topic, attempt). The service is answered 204 when
 * the method returns normally and 500 when it throws, so that the job is delivered again; a callback that fails
 * verification is answered 401 and the method is not called.
 *
 * <pre>{@code
 * @DelayCallback(topic = "order")
 * void close(Job job) { orders.closeIfUnpaid(job.body()); }
 * }</pre>
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DelayCallback {
    /** The topic whose callbacks the method receives; one method per topic. */
    String topic();
}
