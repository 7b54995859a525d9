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

    /** {@code n} and the noun, plural unless {@code n} is 1: "1 job", "2 jobs", "0 dead jobs". */
    static String count(long n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }

    public static <T> ResponseEntity<ApiResponse<T>> ok(T data, String message) {
        return ResponseEntity.ok()
                .contentType(MediaType.APPLICATION_JSON)
                .body(new ApiResponse<>(true, 200, data, message));
    }

    /** 202: accepted and durable, not done yet (a push journaled, scheduled once Redis takes it). */
    public static <T> ResponseEntity<ApiResponse<T>> accepted(T data, String message) {
        return ResponseEntity.status(202)
                .contentType(MediaType.APPLICATION_JSON)
                .body(new ApiResponse<>(true, 202, data, message));
    }

    public static ResponseEntity<ApiResponse<Void>> error(int status, String message) {
        return ResponseEntity.status(status)
                .contentType(MediaType.APPLICATION_JSON)
                .body(new ApiResponse<>(false, status, null, message));
    }

    /** An error whose {@code data} says what it concerns (a failed push's job id, for a retry with it). */
    public static ResponseEntity<ApiResponse<Object>> error(int status, String message, Object data) {
        return ResponseEntity.status(status)
                .contentType(MediaType.APPLICATION_JSON)
                .body(new ApiResponse<>(false, status, data, message));
    }
}
