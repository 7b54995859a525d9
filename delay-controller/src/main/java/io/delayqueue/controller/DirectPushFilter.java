package io.delayqueue.controller;

import io.delayqueue.common.DelayQueueException;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.CompletionException;
import org.springframework.http.ResponseEntity;
import org.springframework.web.filter.ServerHttpObservationFilter;

/**
 * {@code POST /push}, the one-job push, answered without Spring MVC's dispatcher: the filter runs the same handler
 * ({@link JobController#push}), the same input checks ({@link StrictInputInterceptor}), the same error answers
 * ({@link ApiExceptionHandler}) and the same writer ({@link EnvelopeReturnValueHandler}) that the dispatcher would.
 * At 128 connections of one-job pushes the dispatcher around the handler (handler look-up, argument resolution,
 * interceptors, the request-handled event) took about a quarter of the service's CPU, more than the push itself
 * (JFR); this path is what most callers take.
 *
 * <p>Every other method on {@code /push} (a {@code GET} answered 405, a CORS preflight refused with 403, {@code
 * OPTIONS}) goes on to the dispatcher, as does every other path. The filters before it (the token, the request
 * metrics) run as for any request; the metrics' {@code uri} tag is set to {@code /push} here, which the
 * dispatcher's handler mapping would have done. Registered for the path {@code /push} only, after the token
 * filter. Stateless, thread-safe.
 */
public final class DirectPushFilter implements Filter {
    /** The path this filter answers. */
    public static final String PATH = "/push";

    private final JobController jobs;
    private final ApiExceptionHandler errors;
    private final EnvelopeReturnValueHandler writer;

    public DirectPushFilter(JobController jobs, ApiExceptionHandler errors, EnvelopeReturnValueHandler writer) {
        this.jobs = jobs;
        this.errors = errors;
        this.writer = writer;
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        if (!(req instanceof HttpServletRequest request)
                || !(res instanceof HttpServletResponse response)
                || !"POST".equals(request.getMethod())
                || !PATH.equals(request.getServletPath())
                || request.getPathInfo() != null) {
            chain.doFilter(req, res);
            return;
        }
        ServerHttpObservationFilter.findObservationContext(request).ifPresent(c -> c.setPathPattern(PATH));
        writer.write(answer(request), response);
    }

    private ResponseEntity<?> answer(HttpServletRequest request) {
        try {
            StrictInputInterceptor.requireJsonBody(request);
            StrictInputInterceptor.requireWellFormedQuery(request.getQueryString());
            return jobs.push(request);
        } catch (DelayQueueException e) {
            return errors.delayQueue(e);
        } catch (CompletionException e) {
            return errors.completion(e);
        } catch (RuntimeException e) {
            return errors.unexpected(e);
        }
    }
}
