package io.delayqueue.controller;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.http.ResponseEntity;

/**
 * {@code POST /push}, the one-job push, answered without Spring MVC's dispatcher: the filter runs the same handler
 * ({@link JobController#push}), the same input checks ({@link StrictInputInterceptor}), the same error answers
 * ({@link ApiExceptionHandler}) and the same writer ({@link EnvelopeReturnValueHandler}) that the dispatcher would.
 * At 128 connections of one-job pushes the dispatcher around the handler (handler look-up, argument resolution,
 * interceptors, the request-handled event) took about a quarter of the service's CPU, more than the push itself
 * (JFR); this path is what most callers take.
 *
 * <p>Every other method on {@code /push} (a {@code GET} answered 405, a CORS preflight refused with 403, {@code
 * OPTIONS}) goes on to the filters after it and the dispatcher, as does every other path. It is the first filter
 * (after {@link BrowserGuardValve}, a Tomcat valve that runs before every filter),
 * so that the others cost a push nothing: it checks the token itself where one is set ({@link TokenFilter}'s check
 * and answer), and times its requests into Spring's request timer itself ({@link Timing}) in place of the request
 * metrics' observation, which was another tenth of the CPU (its context, key values and handlers per request); the
 * request-context filter was 4% more. Registered for the path {@code /push} only. Stateless, thread-safe.
 */
public final class DirectPushFilter implements Filter {
    /** The path this filter answers. */
    public static final String PATH = "/push";

    /** Where the time of each request this filter answers goes: Spring's request timer, as the dispatcher's. */
    @FunctionalInterface
    public interface Timing {
        Timing NONE = (status, nanos) -> {};

        /** A {@code POST /push} was answered {@code status} after {@code nanos}. */
        void answered(int status, long nanos);
    }

    private final JobController jobs;
    private final ApiExceptionHandler errors;
    private final EnvelopeReturnValueHandler writer;
    private final Timing timing;
    /** The token's check, or null when no token is set. */
    private final TokenFilter token;

    /**
     * @param token the token filter when {@code delay.security.token} is set, else null: its check is made here, as
     *     this filter runs first
     */
    public DirectPushFilter(
            JobController jobs,
            ApiExceptionHandler errors,
            EnvelopeReturnValueHandler writer,
            Timing timing,
            TokenFilter token) {
        this.jobs = jobs;
        this.errors = errors;
        this.writer = writer;
        this.timing = timing;
        this.token = token;
    }

    /** Whether this filter answers {@code request}: a {@code POST} on {@value #PATH} itself. */
    private static boolean answers(HttpServletRequest request) {
        return "POST".equals(request.getMethod())
                && PATH.equals(request.getServletPath())
                && request.getPathInfo() == null;
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        if (!(req instanceof HttpServletRequest request)
                || !(res instanceof HttpServletResponse response)
                || !answers(request)) {
            chain.doFilter(req, res);
            return;
        }
        long start = System.nanoTime();
        try {
            if (token != null && !token.presentsToken(request)) {
                TokenFilter.refuse(response);
            } else {
                writer.write(answer(request), response);
            }
        } finally {
            timing.answered(response.getStatus(), System.nanoTime() - start);
        }
    }

    private ResponseEntity<?> answer(HttpServletRequest request) {
        try {
            StrictInputInterceptor.requireJsonBody(request);
            StrictInputInterceptor.requireWellFormedQuery(request.getQueryString());
            return jobs.push(request);
        } catch (RuntimeException e) {
            return errors.answer(e);
        }
    }
}
