package io.delayqueue.controller;

import io.delayqueue.common.FieldError;
import io.delayqueue.common.JsonCodec;
import java.io.IOException;
import java.io.Writer;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;
import org.apache.coyote.ActionCode;

/**
 * Tomcat's error report, as the JSON envelope instead of an HTML page: for the errors Tomcat answers before
 * a request reaches the application or its error page, such as a malformed request line, a path that is not
 * well-formed UTF-8, an encoded {@code /} in a path, a header over the size limit or an unsupported {@code
 * Transfer-Encoding}. It also fills in a body for an error status that was set without one. Install it on the
 * host in place of Tomcat's {@link ErrorReportValve}.
 */
public class JsonErrorReportValve extends ErrorReportValve {

    @Override
    protected void report(Request request, Response response, Throwable throwable) {
        int status = response.getStatus();
        if (status < 400 || response.getContentWritten() > 0) {
            return;
        }
        // an error status without a body is reported too, not only one set by sendError()
        response.setErrorReported();
        AtomicBoolean ioAllowed = new AtomicBoolean(true);
        response.getCoyoteResponse().action(ActionCode.IS_IO_ALLOWED, ioAllowed);
        if (!ioAllowed.get()) {
            return; // the connection is broken: nobody would read the report
        }
        String message = response.getMessage();
        Object data = null;
        if (status == 400 && (message == null || message.isBlank()) && throwable == null) {
            // Tomcat refuses a path that does not decode to UTF-8 without a word: say what it was
            message = StrictInputInterceptor.pathProblem(
                    request.getCoyoteRequest().requestURI().toString());
            data = message != null ? FieldError.of("path") : null;
        }
        String body = JsonCodec.write(
                new ApiResponse<>(false, status, data, ApiErrorController.describe(status, message, throwable)));
        try {
            response.setContentType("application/json");
            response.setCharacterEncoding("utf-8");
            Writer writer = response.getReporter();
            if (writer != null) {
                writer.write(body);
                response.finishResponse();
            }
        } catch (IOException | IllegalStateException e) {
            // the client is gone or the response was committed meanwhile: nothing left to tell it
        }
    }
}
