package io.delayqueue.controller;

import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;

/**
 * The envelope of every answer: {@code code} always equals the HTTP status, {@code success} is true
 * exactly for 2xx. Every answer is JSON whatever the request's {@code Accept} asked for: content negotiation
 * runs after the handler, so a push answered 406 for {@code Accept: text/html} would have been written all
 * the same.
 */
public record ApiResponse<T>(boolean success, int code, T data, String message) {

    public static <T> ResponseEntity<ApiResponse<T>> ok(T data, String message) {
        return ResponseEntity.ok()
                .contentType(MediaType.APPLICATION_JSON)
                .body(new ApiResponse<>(true, 200, data, message));
    }

    public static ResponseEntity<ApiResponse<Void>> error(int status, String message) {
        return ResponseEntity.status(status)
                .contentType(MediaType.APPLICATION_JSON)
                .body(new ApiResponse<>(false, status, null, message));
    }
}
