package io.delayqueue.client.spring;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayqueue.client.Job;
import io.delayqueue.client.callback.CallbackVerificationException;
import io.delayqueue.client.callback.CallbackVerifier;
import io.delayqueue.client.callback.VerifiedCallback;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.web.HttpRequestHandler;

/**
 * The receiver of the service's HTTP callbacks at {@code delay.client.callback.path}: checks each callback ({@link
 * CallbackVerifier}: signature, timestamp, not a replay; with the secrets of its topic, or the default ones) and
 * calls the {@link DelayCallback} method of its topic. Answers 204 when the method returned normally; 500 when it
 * threw, 404 when no method receives the topic, 401 when the callback fails its check (the method is not called):
 * the service delivers again on anything but a 2xx.
 *
 * <p>Threading: methods are registered by the container's thread before requests arrive; requests are served
 * concurrently, and the verifiers are thread-safe.
 */
public class DelayCallbackReceiver implements HttpRequestHandler, SmartInitializingSingleton {
    private static final Log log = LogFactory.getLog(DelayCallbackReceiver.class);
    private static final ObjectMapper JSON =
            new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private final DelayClientProperties.Callback settings;
    private final DelayHandlerMethods methods;
    private volatile Map<String, DelayHandlerMethods.Callback> receivers = Map.of();
    private final Map<String, CallbackVerifier> verifiers = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile CallbackVerifier defaultVerifier;

    public DelayCallbackReceiver(DelayHandlerMethods methods, DelayClientProperties properties) {
        this.methods = methods;
        this.settings = properties.getCallback();
    }

    /** Builds the verifiers once every receiver is known: a receiver with no secret to check against is refused. */
    @Override
    public synchronized void afterSingletonsInstantiated() {
        receivers = methods.callbacks();
        settings.getTopics().forEach((topic, secrets) -> {
            if (!secrets.getSecrets().isEmpty()) {
                verifiers.put(topic, verifier(secrets.getSecrets(), "delay.client.callback.topics." + topic));
            }
        });
        if (!settings.getSecrets().isEmpty()) {
            defaultVerifier = verifier(settings.getSecrets(), "delay.client.callback.secrets");
        }
        for (var entry : receivers.entrySet()) {
            if (defaultVerifier == null && !verifiers.containsKey(entry.getKey())) {
                throw new IllegalStateException(
                        "@DelayCallback " + entry.getValue().name() + " receives topic '"
                                + entry.getKey() + "', and no secret is set to check its callbacks with: set "
                                + "delay.client.callback.secrets (or delay.client.callback.topics." + entry.getKey()
                                + ".secrets) to the secret the service signs them with");
            }
        }
        if (!receivers.isEmpty()) {
            log.info("receiving the callbacks of " + receivers.keySet() + " at " + settings.getPath());
        }
    }

    private CallbackVerifier verifier(List<String> secrets, String property) {
        try {
            CallbackVerifier.Builder builder = CallbackVerifier.builder(secrets).tolerance(settings.getTolerance());
            if (settings.getReplayMemory() > 0) {
                builder.refuseReplays(settings.getReplayMemory());
            }
            return builder.build();
        } catch (IllegalArgumentException e) {
            // the message says it all (never the secret): no cause to hide it under
            throw new IllegalStateException(property + ": " + e.getMessage());
        }
    }

    /** The topics received, one per {@link DelayCallback} method. */
    public List<String> topics() {
        return List.copyOf(receivers.keySet());
    }

    /** The largest body taken (a job's body is at most 64 KB at the service, its JSON a little more). */
    static final int MAX_BODY_BYTES = 1 << 20;

    @Override
    public void handleRequest(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if (!"POST".equals(request.getMethod())) {
            response.setHeader("Allow", "POST");
            answer(response, HttpServletResponse.SC_METHOD_NOT_ALLOWED, "callbacks are POSTed");
            return;
        }
        byte[] body = request.getInputStream().readNBytes(MAX_BODY_BYTES + 1);
        if (body.length > MAX_BODY_BYTES) {
            answer(
                    response,
                    HttpServletResponse.SC_REQUEST_ENTITY_TOO_LARGE,
                    "the body is over " + MAX_BODY_BYTES + " bytes: not a callback of the service");
            return;
        }
        Function<String, String> header = name -> {
            List<String> values = Collections.list(request.getHeaders(name));
            return values.isEmpty() ? null : String.join(" ", values);
        };
        String claimedTopic = header.apply(CallbackVerifier.TOPIC);
        CallbackVerifier verifier = claimedTopic == null ? null : verifiers.get(claimedTopic);
        if (verifier == null) {
            verifier = defaultVerifier;
        }
        if (verifier == null) {
            answer(response, HttpServletResponse.SC_NOT_FOUND, "no receiver for topic " + quoted(claimedTopic));
            return;
        }
        VerifiedCallback delivery;
        try {
            delivery = verifier.verify(header, body);
        } catch (CallbackVerificationException e) {
            answer(response, HttpServletResponse.SC_UNAUTHORIZED, e.getMessage());
            return;
        }
        DelayHandlerMethods.Callback receiver = receivers.get(delivery.topic());
        if (receiver == null) {
            answer(response, HttpServletResponse.SC_NOT_FOUND, "no receiver for topic " + quoted(delivery.topic()));
            return;
        }
        Object[] arguments;
        try {
            arguments = arguments(receiver.method(), delivery, body);
        } catch (IOException e) {
            answer(response, HttpServletResponse.SC_BAD_REQUEST, "the body is not a job: " + e.getMessage());
            return;
        }
        try {
            receiver.method().invoke(receiver.bean(), arguments);
            response.setStatus(HttpServletResponse.SC_NO_CONTENT);
        } catch (InvocationTargetException e) {
            Exception thrown = AnnotatedMethods.thrownBy(e);
            log.warn(
                    "callback of job " + delivery.id() + " (topic " + delivery.topic() + ", attempt "
                            + delivery.attempt() + ") failed in " + receiver.name() + "; the service delivers it again",
                    thrown);
            answer(
                    response,
                    HttpServletResponse.SC_INTERNAL_SERVER_ERROR,
                    "the receiver failed: " + thrown.getClass().getName());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Object[] arguments(Method method, VerifiedCallback delivery, byte[] body) throws IOException {
        Class<?>[] types = method.getParameterTypes();
        Object[] values = new Object[types.length];
        for (int i = 0; i < types.length; i++) {
            if (types[i] == Job.class) {
                values[i] = JSON.readValue(body, Job.class);
            } else if (types[i] == String.class) {
                values[i] = new String(body, StandardCharsets.UTF_8);
            } else if (types[i] == byte[].class) {
                values[i] = body;
            } else {
                values[i] = delivery;
            }
        }
        return values;
    }

    private static void answer(HttpServletResponse response, int status, String message) throws IOException {
        response.setStatus(status);
        response.setContentType("text/plain;charset=UTF-8");
        response.getOutputStream().write(message.getBytes(StandardCharsets.UTF_8));
    }

    private static String quoted(String value) {
        if (value == null) {
            return "(none given)";
        }
        String v = value.length() > 64 ? value.substring(0, 64) + "..." : value;
        return "'" + v.replaceAll("\\p{Cntrl}", "?") + "'";
    }
}
