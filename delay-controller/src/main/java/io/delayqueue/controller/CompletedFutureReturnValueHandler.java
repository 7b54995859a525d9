package io.delayqueue.controller;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.method.support.HandlerMethodReturnValueHandler;
import org.springframework.web.method.support.ModelAndViewContainer;
import org.springframework.web.servlet.mvc.method.annotation.DeferredResultMethodReturnValueHandler;
import org.springframework.web.servlet.mvc.method.annotation.HttpEntityMethodProcessor;

/**
 * Writes a handler's {@link CompletableFuture} that is already complete with a {@link ResponseEntity} on the
 * request's own thread, as if the handler had returned the entity. Spring MVC's own handler of futures always
 * goes async: it starts an async request and dispatches it again through every filter and the {@code
 * DispatcherServlet} to write the value, which made a pull answered at once ({@code GET /get/{topic}} with jobs
 * ready, or {@code timeout=0}) cost about twice the CPU of a plain request. A future not complete yet (a long poll
 * that waits) or completed exceptionally goes to Spring's handler, async as before.
 *
 * <p>Installed ahead of Spring's handlers by {@link #installedFirst}. Stateless, thread-safe.
 */
public final class CompletedFutureReturnValueHandler implements HandlerMethodReturnValueHandler {
    private final EnvelopeReturnValueHandler envelopes;
    private final HandlerMethodReturnValueHandler entities;
    private final HandlerMethodReturnValueHandler futures;

    private CompletedFutureReturnValueHandler(
            EnvelopeReturnValueHandler envelopes,
            HandlerMethodReturnValueHandler entities,
            HandlerMethodReturnValueHandler futures) {
        this.envelopes = envelopes;
        this.entities = entities;
        this.futures = futures;
    }

    /**
     * {@code handlers} (a {@code RequestMappingHandlerAdapter}'s) with this one first, then an {@link
     * EnvelopeReturnValueHandler} writing with {@code json}; completed futures go to that one when their value is
     * the envelope, else to the {@link HttpEntityMethodProcessor} among {@code handlers}, and futures not complete
     * to its {@link DeferredResultMethodReturnValueHandler}. {@code handlers} as they are when either is missing.
     */
    public static List<HandlerMethodReturnValueHandler> installedFirst(
            List<HandlerMethodReturnValueHandler> handlers, ObjectMapper json) {
        HandlerMethodReturnValueHandler entities = null;
        HandlerMethodReturnValueHandler futures = null;
        for (HandlerMethodReturnValueHandler h : handlers) {
            if (h instanceof CompletedFutureReturnValueHandler) {
                return handlers;
            }
            if (h instanceof HttpEntityMethodProcessor && entities == null) {
                entities = h;
            } else if (h instanceof DeferredResultMethodReturnValueHandler && futures == null) {
                futures = h;
            }
        }
        if (entities == null || futures == null) {
            return handlers;
        }
        EnvelopeReturnValueHandler envelopes = new EnvelopeReturnValueHandler(json);
        List<HandlerMethodReturnValueHandler> installed = new ArrayList<>(handlers.size() + 2);
        installed.add(new CompletedFutureReturnValueHandler(envelopes, entities, futures));
        installed.add(envelopes);
        installed.addAll(handlers);
        return installed;
    }

    @Override
    public boolean supportsReturnType(MethodParameter returnType) {
        return CompletableFuture.class.isAssignableFrom(returnType.getParameterType());
    }

    @Override
    public void handleReturnValue(
            Object value, MethodParameter returnType, ModelAndViewContainer mav, NativeWebRequest request)
            throws Exception {
        if (value instanceof CompletableFuture<?> future
                && future.isDone()
                && !future.isCompletedExceptionally()
                && future.join() instanceof ResponseEntity<?> entity) {
            (entity.getBody() instanceof ApiResponse<?> ? envelopes : entities)
                    .handleReturnValue(entity, new CompletedValueType(returnType, entity), mav, request);
        } else {
            futures.handleReturnValue(value, returnType, mav, request);
        }
    }

    /**
     * The type of a future's value, as Spring's async dispatch presents it to the handler that writes it: the
     * value's class, and the future's type argument (for the body's generic type).
     */
    private static final class CompletedValueType extends MethodParameter {
        private final Class<?> valueClass;
        private final Type valueType;

        CompletedValueType(MethodParameter futureType, Object value) {
            super(futureType);
            this.valueClass = value.getClass();
            this.valueType =
                    ResolvableType.forMethodParameter(futureType).getGeneric().getType();
        }

        private CompletedValueType(CompletedValueType original) {
            super(original);
            this.valueClass = original.valueClass;
            this.valueType = original.valueType;
        }

        @Override
        public Class<?> getParameterType() {
            return valueClass;
        }

        @Override
        public Type getGenericParameterType() {
            return valueType;
        }

        @Override
        public CompletedValueType clone() {
            return new CompletedValueType(this);
        }
    }
}
