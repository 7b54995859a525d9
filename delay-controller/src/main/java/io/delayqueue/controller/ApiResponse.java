package io.delayqueue.controller;

import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;

/**
 * The envelope of every answer: {@code code} always equals the HTTP status, {@code success} is true
 * exactly for 2xx.
 */
public record ApiResponse<T>(boolean success, int code, T data, String message) {

    public static <T> ResponseEntity<ApiResponse<T>> ok(T data, String message) {
        return ResponseEntity.ok(new ApiResponse<>(true, 200, data, message));
    }

    /** An error; always JSON, whatever the request's {@code Accept} asked for (else it would become a 406). */
    public static ResponseEntity<ApiResponse<Void>> error(int status, String message) {
        return ResponseEntity.status(status)
                .contentType(MediaType.APPLICATION_JSON)
                .body(new ApiResponse<>(false, status, null, message));
    }
}
