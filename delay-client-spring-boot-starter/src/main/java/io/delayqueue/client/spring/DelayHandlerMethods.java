package io.delayqueue.client.spring;

import io.delayqueue.client.Job;
import io.delayqueue.client.callback.VerifiedCallback;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Finds the {@link DelayListener} and {@link DelayCallback} methods of the application's beans as they are made,
 * and checks their signatures then (a wrong one refuses the start, naming the method). Depends on nothing, so that
 * it can be made before the other beans; {@link DelayListeners} and {@link DelayCallbackReceiver} use what it
 * found.
 *
 * <p>Threading: written by the container's thread while beans are made; read once they all are.
 */
public class DelayHandlerMethods implements BeanPostProcessor {
    /** A {@link DelayListener} method: its bean, whether it takes the job (or its body), its annotation. */
    record Listener(Object bean, Method method, boolean takesJob, DelayListener annotation, String name) {}

    /** A {@link DelayCallback} method and its bean. */
    record Callback(Object bean, Method method, String name) {}

    private final List<Listener> listeners = new ArrayList<>();
    private final Map<String, Callback> callbacks = new LinkedHashMap<>();

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        AnnotatedMethods.of(bean, DelayListener.class).forEach((method, a) -> addListener(bean, method, a));
        AnnotatedMethods.of(bean, DelayCallback.class).forEach((method, a) -> addCallback(bean, method, a));
        return bean;
    }

    private synchronized void addListener(Object bean, Method method, DelayListener listener) {
        String name = AnnotatedMethods.describe(bean, method);
        if (listener.topic().isBlank()) {
            throw new IllegalStateException("@DelayListener on " + name + " names no topic");
        }
        Class<?>[] parameters = method.getParameterTypes();
        if (parameters.length != 1 || (parameters[0] != Job.class && parameters[0] != String.class)) {
            throw new IllegalStateException("@DelayListener " + name
                    + " must take one parameter: the job (io.delayqueue.client.Job) or its body (String)");
        }
        if (listener.concurrency() < 0 || listener.batchSize() < 0) {
            throw new IllegalStateException(
                    "@DelayListener " + name + ": concurrency and batchSize cannot be negative");
        }
        listeners.add(new Listener(bean, method, parameters[0] == Job.class, listener, name));
    }

    private synchronized void addCallback(Object bean, Method method, DelayCallback callback) {
        String name = AnnotatedMethods.describe(bean, method);
        if (callback.topic().isBlank()) {
            throw new IllegalStateException("@DelayCallback on " + name + " names no topic");
        }
        for (Class<?> type : method.getParameterTypes()) {
            if (type != Job.class && type != String.class && type != byte[].class && type != VerifiedCallback.class) {
                throw new IllegalStateException("@DelayCallback " + name + " takes a " + type.getName()
                        + ": its parameters may be the job (io.delayqueue.client.Job), the body (String or byte[]) and"
                        + " the delivery (io.delayqueue.client.callback.VerifiedCallback)");
            }
        }
        Callback earlier = callbacks.putIfAbsent(callback.topic(), new Callback(bean, method, name));
        if (earlier != null) {
            throw new IllegalStateException("two @DelayCallback methods receive topic '" + callback.topic() + "': "
                    + earlier.name() + " and " + name);
        }
    }

    synchronized List<Listener> listeners() {
        return List.copyOf(listeners);
    }

    synchronized Map<String, Callback> callbacks() {
        return Map.copyOf(callbacks);
    }
}
