package io.delayqueue.controller;

import io.delayqueue.common.DelayQueueException;
import io.delayqueue.common.StrictUtf8;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.web.servlet.HandlerInterceptor;

/**
 * Refuses, before any handler runs, what would otherwise be read as something else than was sent:
 *
 * <ul>
 *   <li>a body that is not declared {@code application/json} (UTF-8): 415. {@code text/plain}, form-encoded and
 *       multipart bodies are what any web page can post cross-site without a CORS preflight, so accepting
 *       them would let a page a user visits push jobs to an open service; a body without a type is refused
 *       too;
 *   <li>a query string whose percent-decoded bytes are not well-formed UTF-8, or whose percent-encoding is
 *       malformed: 400 naming the parameter (Tomcat would decode them to {@code U+FFFD} or drop the
 *       parameter);
 *   <li>a query parameter given twice: 400 (Spring would join the values with a comma).
 * </ul>
 *
 * A path that is not well-formed UTF-8 never gets here: Tomcat refuses it with a 400, which {@link
 * JsonErrorReportValve} answers in the envelope. Runs after handler mapping, so an unknown path is still a
 * 404 and a wrong method a 405.
 */
public class StrictInputInterceptor implements HandlerInterceptor {
    private static final String JSON = "application/json";
    private static final String[] JSON_UTF8 = {
        "application/json; charset=utf-8", "application/json;charset=utf-8", "application/json; charset=\"utf-8\""
    };

    @Override
    public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
        if (request.getDispatcherType() != DispatcherType.REQUEST) {
            return true; // an error dispatch carries the failed request's headers; it is answered as it is
        }
        requireJsonBody(request);
        requireWellFormedQuery(request.getQueryString());
        return true;
    }

    static void requireJsonBody(HttpServletRequest request) {
        boolean hasBody = request.getContentLengthLong() > 0 || request.getHeader("Transfer-Encoding") != null;
        if (!hasBody) {
            return;
        }
        String declared = request.getContentType();
        if (declared == null || declared.isBlank()) {
            throw new DelayQueueException(415, "Content-Type is missing; send the body as application/json");
        }
        if (isPlainJson(declared)) {
            return; // what nearly every client sends, without parsing it
        }
        MediaType type;
        try {
            type = MediaType.parseMediaType(declared);
        } catch (InvalidMediaTypeException e) {
            throw new DelayQueueException(
                    415, "Content-Type " + declared + " is not a media type; send the body as application/json");
        }
        if (!MediaType.APPLICATION_JSON.equalsTypeAndSubtype(type)) {
            throw new DelayQueueException(
                    415,
                    "Content-Type " + type.getType() + "/" + type.getSubtype()
                            + " is not accepted; send the body as application/json");
        }
        String charset = type.getParameter("charset");
        if (charset != null) {
            String name = charset.replace("\"", "").toLowerCase(Locale.ROOT);
            if (!name.equals("utf-8") && !name.equals("utf8")) {
                throw new DelayQueueException(
                        415, "Content-Type charset " + charset + " is not accepted; JSON is sent as UTF-8");
            }
        }
    }

    /**
     * Whether {@code declared} is {@code application/json} as clients write it, alone or with a UTF-8 charset, in
     * any case: accepted without Spring's media-type parser, whose cache look-up and parameter map were 6% of the
     * CPU of a one-job push (JFR). Anything else is parsed and judged in full.
     */
    private static boolean isPlainJson(String declared) {
        int n = declared.length();
        if (n < JSON.length() || !declared.regionMatches(true, 0, JSON, 0, JSON.length())) {
            return false;
        }
        if (n == JSON.length()) {
            return true;
        }
        for (String utf8 : JSON_UTF8) {
            if (n == utf8.length() && declared.regionMatches(true, 0, utf8, 0, n)) {
                return true;
            }
        }
        return false;
    }

    /** @param rawQuery the query string as sent, still percent-encoded; null when there is none */
    static void requireWellFormedQuery(String rawQuery) {
        if (rawQuery == null || rawQuery.isEmpty()) {
            return;
        }
        Set<String> names = new HashSet<>();
        for (String pair : rawQuery.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String name = decode(eq < 0 ? pair : pair.substring(0, eq), "query parameter name", true);
            if (eq >= 0) {
                decode(pair.substring(eq + 1), name, true);
            }
            if (!names.add(name)) {
                throw new DelayQueueException.InvalidField(name, "is given twice; give each query parameter once");
            }
        }
    }

    /**
     * What is wrong with a request path Tomcat refused without saying why, or null: its percent-encoding, or
     * the UTF-8 of the bytes it encodes.
     *
     * @param rawPath the path as sent, still percent-encoded
     */
    static String pathProblem(String rawPath) {
        try {
            decode(rawPath, "path", false);
            return null;
        } catch (DelayQueueException.InvalidField e) {
            return e.getMessage();
        }
    }

    /**
     * Percent-decodes {@code raw} ({@code +} is a space in a query) and decodes the bytes as UTF-8, strictly;
     * fails naming {@code field}.
     */
    private static String decode(String raw, String field, boolean plusIsSpace) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%') {
                int high = i + 2 < raw.length() ? Character.digit(raw.charAt(i + 1), 16) : -1;
                int low = high >= 0 ? Character.digit(raw.charAt(i + 2), 16) : -1;
                if (low < 0) {
                    throw new DelayQueueException.InvalidField(
                            field,
                            "is not percent-encoded correctly: " + raw.substring(i, Math.min(raw.length(), i + 3))
                                    + " at offset " + i);
                }
                bytes.write(high << 4 | low);
                i += 2;
            } else if (c > 0x7f) {
                // Tomcat refuses raw non-ASCII bytes in the request line; a char here came from elsewhere
                throw new DelayQueueException.InvalidField(field, "holds a character that is not percent-encoded");
            } else {
                bytes.write(c == '+' && plusIsSpace ? ' ' : c);
            }
        }
        return StrictUtf8.decode(bytes.toByteArray(), field, "(percent-decoded)")
                .toString();
    }
}
