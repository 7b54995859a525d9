package io.delayqueue.controller;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.FieldError;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.HttpMediaTypeNotAcceptableException;
import org.springframework.web.HttpMediaTypeNotSupportedException;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.bind.MissingServletRequestParameterException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.async.AsyncRequestTimeoutException;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import org.springframework.web.servlet.NoHandlerFoundException;
import org.springframework.web.servlet.resource.NoResourceFoundException;

/**
 * Every error as the JSON envelope with its real status; never a 200, never a stack trace to the client. A 400's
 * {@code data} names the field ({@link FieldError}), as its message does.
 */
@RestControllerAdvice
public class ApiExceptionHandler {
    private static final Logger log = LoggerFactory.getLogger(ApiExceptionHandler.class);

    @ExceptionHandler(DelayQueueException.class)
    public ResponseEntity<ApiResponse<Object>> delayQueue(DelayQueueException e) {
        if (e.httpStatus() >= 500) {
            log.warn("answering {}: {}", e.httpStatus(), e.getMessage());
        }
        return ApiResponse.error(e.httpStatus(), e.getMessage(), e.data());
    }

    @ExceptionHandler(CompletionException.class)
    public ResponseEntity<? extends ApiResponse<?>> completion(CompletionException e) {
        if (e.getCause() instanceof DelayQueueException d) {
            return delayQueue(d);
        }
        return unexpected(e.getCause() != null ? e.getCause() : e);
    }

    /**
     * The answer to {@code e} thrown by a handler run outside the dispatcher ({@link DirectPushFilter}), as this
     * class's handlers give it.
     */
    ResponseEntity<? extends ApiResponse<?>> answer(RuntimeException e) {
        if (e instanceof DelayQueueException d) {
            return delayQueue(d);
        }
        if (e instanceof CompletionException c) {
            return completion(c);
        }
        return unexpected(e);
    }

    @ExceptionHandler(MissingServletRequestParameterException.class)
    public ResponseEntity<ApiResponse<Object>> missingParameter(MissingServletRequestParameterException e) {
        return ApiResponse.error(400, e.getParameterName() + " is required", FieldError.of(e.getParameterName()));
    }

    @ExceptionHandler(MethodArgumentTypeMismatchException.class)
    public ResponseEntity<ApiResponse<Object>> typeMismatch(MethodArgumentTypeMismatchException e) {
        return ApiResponse.error(400, e.getName() + " has the wrong type: " + e.getValue(), FieldError.of(e.getName()));
    }

    @ExceptionHandler(HttpMessageNotReadableException.class)
    public ResponseEntity<ApiResponse<Object>> unreadable(HttpMessageNotReadableException e) {
        return ApiResponse.error(400, "body of the request cannot be read", FieldError.of("body"));
    }

    @ExceptionHandler(HttpRequestMethodNotSupportedException.class)
    public ResponseEntity<ApiResponse<Void>> method(HttpRequestMethodNotSupportedException e) {
        var response = ApiResponse.error(
                405, "method " + e.getMethod() + " is not allowed here; use " + e.getSupportedHttpMethods());
        return ResponseEntity.status(405)
                .contentType(MediaType.APPLICATION_JSON)
                .headers(h -> {
                    if (e.getSupportedHttpMethods() != null) {
                        h.setAllow(e.getSupportedHttpMethods());
                    }
                })
                .body(response.getBody());
    }

    @ExceptionHandler(HttpMediaTypeNotSupportedException.class)
    public ResponseEntity<ApiResponse<Void>> mediaType(HttpMediaTypeNotSupportedException e) {
        return ApiResponse.error(
                415, "content type " + e.getContentType() + " is not supported; send application/json");
    }

    @ExceptionHandler(HttpMediaTypeNotAcceptableException.class)
    public ResponseEntity<ApiResponse<Void>> notAcceptable(HttpMediaTypeNotAcceptableException e) {
        return ApiResponse.error(406, "this API answers application/json only");
    }

    @ExceptionHandler({NoResourceFoundException.class, NoHandlerFoundException.class})
    public ResponseEntity<ApiResponse<Void>> notFound(Exception e) {
        return ApiResponse.error(404, "no such endpoint");
    }

    @ExceptionHandler(AsyncRequestTimeoutException.class)
    public ResponseEntity<ApiResponse<Void>> asyncTimeout(AsyncRequestTimeoutException e) {
        return ApiResponse.error(503, "the request timed out inside the service");
    }

    @ExceptionHandler(Exception.class)
    public ResponseEntity<ApiResponse<Void>> unexpected(Throwable e) {
        log.error("unexpected error", e);
        return ApiResponse.error(500, "internal error: " + e.getClass().getSimpleName());
    }
}
