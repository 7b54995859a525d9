package io.delayqueue.queue.dispatch.http;

import java.net.URI;
import java.util.List;
import java.util.Locale;

/**
 * The hosts HTTP callbacks may call ({@code delay.http.allowed-hosts}), so that a pushed {@code url} cannot make
 * the service call any address it can reach (its own admin ports, a cloud's metadata address, the internal network).
 * Each entry is a host name or IP literal, matched whole and regardless of case ({@code hooks.example.com},
 * {@code 10.1.2.3}, {@code [::1]}), {@code *.example.com} (any name ending in {@code .example.com}, at any depth,
 * not {@code example.com} itself), or {@code *} (any host). The port and path are not limited. Names are matched as
 * written in the url, before any DNS look-up.
 *
 * <p>Immutable, safe for any number of threads.
 */
public record CallbackHosts(List<String> entries) {
    /** The default: any host ({@code *}). */
    public static final List<String> ANY = List.of("*");

    /**
     * @param entries as given; kept lower case, IPv6 brackets and a trailing dot dropped
     * @throws IllegalArgumentException for a blank entry, or a {@code *} other than alone or leading {@code *.}
     */
    public CallbackHosts {
        for (String given : entries) {
            String e = given.trim();
            String rest = e.startsWith("*.") ? e.substring(2) : e.equals("*") ? "" : e;
            if (e.isEmpty()
                    || rest.contains("*")
                    || (e.startsWith("*.") && rest.replace(".", "").isEmpty())) {
                throw new IllegalArgumentException(
                        "delay.http.allowed-hosts: '" + given + "' is not a host, '*.' followed by a domain, or '*'");
            }
        }
        entries = entries.stream().map(CallbackHosts::normalized).toList();
    }

    /** Whether every host is allowed. */
    public boolean any() {
        return entries.contains("*");
    }

    /** Whether a callback to {@code host} (a url's host, IPv6 literals in brackets or not) is allowed. */
    public boolean allows(String host) {
        if (any()) {
            return true;
        }
        if (host == null || host.isEmpty()) {
            return false;
        }
        String h = normalized(host);
        for (String e : entries) {
            if (e.startsWith("*.") ? h.endsWith(e.substring(1)) : h.equals(e)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Why {@code url} may not be called, naming its host and the setting (not the allowed hosts: a pusher learns
     * nothing of the network); null when it may.
     */
    public String refusal(URI url) {
        if (allows(url.getHost())) {
            return null;
        }
        return "names host " + url.getHost() + ", which the service may not call back (delay.http.allowed-hosts)";
    }

    private static String normalized(String host) {
        String h = host.trim().toLowerCase(Locale.ROOT);
        if (h.startsWith("[") && h.endsWith("]")) {
            h = h.substring(1, h.length() - 1);
        }
        // a fully qualified name's trailing dot names the same host
        return h.endsWith(".") && h.length() > 1 ? h.substring(0, h.length() - 1) : h;
    }
}
