package io.delayqueue.controller;

import io.delayqueue.common.JsonCodec;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ValveBase;

/**
 * What a web page can make a visitor's browser do to the service: nothing but read what any page may link to.
 * Installed on the web application's Tomcat context, so that it runs before every filter ({@link DirectPushFilter}
 * and {@link TokenFilter} included) and every handler. Two refusals, in the JSON envelope:
 *
 * <ul>
 *   <li><b>421</b> for a {@code Host} the service does not answer for. A page that makes its own name resolve to the
 *       service's address (DNS rebinding) is same-origin with it and could read and change everything without the
 *       token. Answered: IP addresses (a page is same-origin with one only if that address serves it: this
 *       service), the loopback names and the names given ({@code delay.security.allowed-hosts}), any port; or any
 *       host ({@code *}).
 *   <li><b>403</b> for a request from another site's page that could change the queue: every method but {@code
 *       GET}, {@code HEAD} and {@code OPTIONS} (a CORS preflight, which {@link JsonCorsProcessor} refuses), and
 *       every {@code GET} that is not one of the reads ({@link #changesState}), so the mykit-delay forms ({@code
 *       /clearAll}, {@code /delete}, {@code /finish}, {@code /get/{topic}}, {@code /reStore}...) are refused to an
 *       {@code <img>} or a link on another site. Another site's request is one whose
 *       {@code Sec-Fetch-Site} is present and is neither {@code same-origin} nor {@code none} (typed by the user),
 *       or, from a browser that sends no {@code Sec-Fetch-Site}, whose {@code Origin} is present and is not this
 *       service's own ({@code Host} under any scheme). Browsers set both headers themselves and a page cannot
 *       forge them; clients that are not browsers (curl, the Java client) send neither and are not concerned.
 * </ul>
 *
 * Reads from another site (a link to the console or to {@code /stats}) stay allowed: a page cannot read their
 * answers without CORS, which the service refuses. On the push path this costs three header look-ups and no
 * allocation beyond the {@code Host} value's string (about 90 ns a request, measured on Tomcat's own request
 * object). Immutable, thread-safe.
 */
public final class BrowserGuardValve extends ValveBase {
    private final boolean anyHost;
    private final Set<String> names;

    /**
     * @param answeredHosts the names answered, any port, regardless of case ({@code localhost}, {@code
     *     hooks.example.com}; IPv6 literals in brackets); {@code *} for any host. IP addresses are always answered.
     */
    public BrowserGuardValve(Collection<String> answeredHosts) {
        super(true);
        this.anyHost = answeredHosts.contains("*");
        this.names = answeredHosts.stream()
                .map(h -> trailingDotless(h.trim().toLowerCase(Locale.ROOT)))
                .collect(Collectors.toUnmodifiableSet());
    }

    @Override
    public void invoke(Request request, Response response) throws IOException, ServletException {
        if (admits(request, response)) {
            getNext().invoke(request, response);
        }
    }

    /** Whether {@code request} may go on; when not, {@code response} carries the refusal. */
    boolean admits(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String host = request.getHeader("Host");
        if (host != null && !answersFor(host)) {
            refuse(
                    response,
                    421,
                    "this service does not answer for Host " + host + ": a page that reaches it under a name of its"
                            + " own (DNS rebinding) could read and change the queue. Call it by a loopback name or"
                            + " an IP address, or list the name in delay.security.allowed-hosts");
            return false;
        }
        String from = crossSite(request, host);
        if (from != null && changesState(request.getMethod(), pathOf(request))) {
            refuse(
                    response,
                    403,
                    "a browser request from another site may not change the queue: " + request.getMethod() + " "
                            + pathOf(request) + " came from " + from
                            + ". Use the service's own console, or a client that is not a browser");
            return false;
        }
        return true;
    }

    /** Whether a request whose {@code Host} header is {@code host} is answered. */
    boolean answersFor(String host) {
        if (anyHost || host.startsWith("[")) {
            return true; // an IPv6 literal
        }
        int colon = host.indexOf(':');
        int end = colon < 0 ? host.length() : colon;
        if (isIpv4(host, end)) {
            return true;
        }
        return names.contains(trailingDotless(host.substring(0, end).toLowerCase(Locale.ROOT)));
    }

    /**
     * Who sent a request from another site (its {@code Sec-Fetch-Site} or {@code Origin}, as a phrase), or null for
     * a request from this service's own pages, typed by the user, or from a client that is not a browser.
     */
    static String crossSite(HttpServletRequest request, String host) {
        String site = request.getHeader("Sec-Fetch-Site");
        if (site != null) {
            // the browser's own verdict, which a proxy in front that rewrites Host does not mislead
            return site.equals("same-origin") || site.equals("none") ? null : "Sec-Fetch-Site: " + site;
        }
        String origin = request.getHeader("Origin");
        if (origin == null || (host != null && isOriginOf(origin, host))) {
            return null;
        }
        return "Origin " + origin;
    }

    /** Whether {@code origin} ({@code scheme://host[:port]}) names the host and port of {@code host}. */
    private static boolean isOriginOf(String origin, String host) {
        int start = origin.indexOf("://") + 3;
        return start > 2
                && origin.length() - start == host.length()
                && origin.regionMatches(true, start, host, 0, host.length());
    }

    /**
     * Whether a call of {@code method} on {@code path} may change anything: every method but {@code GET}, {@code
     * HEAD} and {@code OPTIONS}, and every {@code GET} but the reads: figures and the console's files (open without
     * the token, {@link TokenFilter#isOpen}), a job ({@code /jobs/{id}}), the job browser and a topic's dead
     * letters. A path not known as a read counts as a change.
     */
    static boolean changesState(String method, String path) {
        if (method.equals("OPTIONS")) {
            return false;
        }
        if (!method.equals("GET") && !method.equals("HEAD")) {
            return true;
        }
        boolean read = TokenFilter.isOpen("GET", path)
                || path.startsWith("/jobs/")
                || path.equals("/console/jobs")
                || (path.startsWith("/dead/") && path.indexOf('/', "/dead/".length()) < 0);
        return !read;
    }

    /** The request's path as decoded and normalized by Tomcat and mapped by Spring ({@code /a/../b} is {@code /b}). */
    private static String pathOf(HttpServletRequest request) {
        String info = request.getPathInfo();
        return info == null ? request.getServletPath() : request.getServletPath() + info;
    }

    private static boolean isIpv4(String host, int end) {
        if (end == 0) {
            return false;
        }
        for (int i = 0; i < end; i++) {
            char c = host.charAt(i);
            if ((c < '0' || c > '9') && c != '.') {
                return false;
            }
        }
        return true;
    }

    private static String trailingDotless(String name) {
        return name.length() > 1 && name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
    }

    private static void refuse(HttpServletResponse response, int status, String message) throws IOException {
        byte[] body =
                JsonCodec.write(new ApiResponse<>(false, status, null, message)).getBytes(StandardCharsets.UTF_8);
        response.setStatus(status);
        response.setContentType("application/json");
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }
}
