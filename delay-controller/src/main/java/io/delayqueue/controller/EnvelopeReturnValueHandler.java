package io.delayqueue.controller;

import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.method.support.HandlerMethodReturnValueHandler;
import org.springframework.web.method.support.ModelAndViewContainer;

/**
 * Writes a handler's {@code ResponseEntity<ApiResponse<?>>} itself: its status and headers, then the envelope as
 * JSON with its length, in one write. Spring MVC's {@code HttpEntityMethodProcessor} negotiates a content type
 * against the request's {@code Accept} and the converters, then streams through Jackson with a flush, which
 * commits the answer in chunked encoding: at 128 connections of one-job pushes that was about a sixth of the
 * service's CPU (JFR), for an answer that is always the JSON envelope ({@link ApiResponse}). The bytes are the
 * same: the envelope is written with the converters' own {@link ObjectMapper}.
 *
 * <p>Installed ahead of Spring's handlers by {@link CompletedFutureReturnValueHandler#installedFirst}. Errors
 * answered by {@link ApiExceptionHandler} take Spring's path as before. Stateless, thread-safe.
 */
public final class EnvelopeReturnValueHandler implements HandlerMethodReturnValueHandler {
    private final ObjectMapper json;

    public EnvelopeReturnValueHandler(ObjectMapper json) {
        this.json = json;
    }

    /** Whether {@code type} is a {@code ResponseEntity} of the envelope. */
    static boolean isEnvelope(ResolvableType type) {
        return ResponseEntity.class.isAssignableFrom(type.toClass())
                && ApiResponse.class.equals(type.getGeneric(0).toClass());
    }

    @Override
    public boolean supportsReturnType(MethodParameter returnType) {
        return isEnvelope(ResolvableType.forMethodParameter(returnType));
    }

    @Override
    public void handleReturnValue(
            Object value, MethodParameter returnType, ModelAndViewContainer mav, NativeWebRequest request)
            throws IOException {
        mav.setRequestHandled(true);
        if (value instanceof ResponseEntity<?> entity) {
            write(entity, request.getNativeResponse(HttpServletResponse.class));
        }
    }

    void write(ResponseEntity<?> entity, HttpServletResponse response) throws IOException {
        byte[] bytes = json.writeValueAsString(entity.getBody()).getBytes(StandardCharsets.UTF_8);
        response.setStatus(entity.getStatusCode().value());
        entity.getHeaders().forEach((name, values) -> {
            if (!HttpHeaders.CONTENT_TYPE.equalsIgnoreCase(name)
                    && !HttpHeaders.CONTENT_LENGTH.equalsIgnoreCase(name)) {
                values.forEach(v -> response.addHeader(name, v));
            }
        });
        response.setContentType(MediaType.APPLICATION_JSON_VALUE);
        response.setContentLength(bytes.length);
        response.getOutputStream().write(bytes);
    }
}
