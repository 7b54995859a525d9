package io.delayqueue.controller;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * When {@code delay.security.token} is set, every call that changes the queue (push, pull, finish,
 * delete, admin) must carry {@code Authorization: Bearer <token>} or {@code X-Delay-Token: <token>}.
 * Reads of figures ({@code /stats}, health, the API description) stay open, and so do the web console's static
 * files (and the chart library's webjar) and its reads of figures: the page holds no data and asks for the token
 * when a call is answered 401. Reads of jobs ({@code GET /jobs/{id}}, the console's job browser, dead letters) need
 * the token: they return the callers' bodies and urls, and job ids are time-ordered, so they can be enumerated.
 */
public class TokenFilter extends OncePerRequestFilter {
    /** The web console's static files (delay-controller's {@code static/}). */
    private static final java.util.Set<String> CONSOLE_FILES = java.util.Set.of(
            "/", "/index.html", "/console.js", "/console-panels.js", "/console.css", "/favicon.ico", "/favicon.svg");

    /**
     * The console's reads of figures, open as {@code /stats} is; its job browser ({@code /console/jobs}) lists
     * the callers' job bodies and needs the token, as {@code /dead/{topic}} does.
     */
    static final java.util.Set<String> OPEN_CONSOLE_READS =
            java.util.Set.of("/console/metrics", "/console/topics", "/console/cluster");

    private final byte[] token;

    public TokenFilter(String token) {
        this.token = token.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (isRead(request) || presentsToken(request)) {
            chain.doFilter(request, response);
            return;
        }
        refuse(response);
    }

    /** Whether {@code request} carries the token. */
    boolean presentsToken(HttpServletRequest request) {
        return matches(presented(request));
    }

    /** The message of a 401 (JSON-safe as it is). */
    static final String MISSING = "token is missing or wrong (Authorization: Bearer <delay.security.token>)";

    /** The answer to a call without the token: 401 in the envelope. */
    static void refuse(HttpServletResponse response) throws IOException {
        response.setStatus(401);
        response.setContentType("application/json");
        response.getWriter().write("{\"success\":false,\"code\":401,\"data\":null,\"message\":\"" + MISSING + "\"}");
    }

    private static boolean isRead(HttpServletRequest request) {
        return isOpen(request.getMethod(), request.getRequestURI());
    }

    /** Whether a call of {@code method} on {@code path} needs no token (the API description says so too). */
    static boolean isOpen(String method, String path) {
        return "GET".equals(method)
                && (path.equals("/stats")
                        || path.startsWith("/actuator")
                        || path.startsWith("/v3/api-docs")
                        || path.startsWith("/swagger-ui")
                        || CONSOLE_FILES.contains(path)
                        || OPEN_CONSOLE_READS.contains(path)
                        || path.startsWith("/webjars/uplot/"));
    }

    private static String presented(HttpServletRequest request) {
        String header = request.getHeader("Authorization");
        if (header != null && header.startsWith("Bearer ")) {
            return header.substring(7);
        }
        return request.getHeader("X-Delay-Token");
    }

    private boolean matches(String presented) {
        return presented != null && MessageDigest.isEqual(token, presented.getBytes(StandardCharsets.UTF_8));
    }
}
