package io.delayqueue.controller;

import io.swagger.v3.oas.annotations.Hidden;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.web.servlet.error.ErrorController;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The envelope for errors raised outside the controllers, which the servlet container forwards to {@code
 * server.error.path}: Tomcat's own (a body whose chunked encoding is broken, a {@code TRACE}) and those of
 * filters. It replaces Spring Boot's {@code BasicErrorController}, whose answer is no envelope (and HTML for
 * browsers). Errors Tomcat raises before a request reaches the application are answered by {@link
 * JsonErrorReportValve}.
 */
@Hidden // not an operation of the API: the container's error dispatch
@RestController
public class ApiErrorController implements ErrorController {
    private static final Logger log = LoggerFactory.getLogger(ApiErrorController.class);

    @RequestMapping("${server.error.path:${error.path:/error}}")
    public ResponseEntity<ApiResponse<Void>> error(HttpServletRequest request) {
        if (!(request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE) instanceof Integer status)) {
            return ApiResponse.error(404, "no such endpoint"); // /error asked for directly
        }
        Throwable cause = (Throwable) request.getAttribute(RequestDispatcher.ERROR_EXCEPTION);
        String message = (String) request.getAttribute(RequestDispatcher.ERROR_MESSAGE);
        int code = status >= 400 ? status : 500;
        if (code >= 500) {
            log.warn(
                    "answering {} for {}: {}",
                    code,
                    request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI),
                    message,
                    cause);
        }
        return ApiResponse.error(code, describe(code, message, cause));
    }

    /**
     * A message for an error the container raised: its reason phrase and, for a client error, what Tomcat
     * said about the request. A server error never shows its exception's text (it may hold internals).
     */
    static String describe(int status, String message, Throwable cause) {
        HttpStatus known = HttpStatus.resolve(status);
        String reason = known != null ? known.getReasonPhrase().toLowerCase(Locale.ROOT) : "error " + status;
        if (status >= 500) {
            return cause != null ? reason + ": " + cause.getClass().getSimpleName() : reason;
        }
        String detail = message != null && !message.isBlank() ? message : cause != null ? cause.getMessage() : null;
        return detail != null && !detail.isBlank() ? reason + ": " + detail : reason;
    }
}
