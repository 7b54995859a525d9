package io.delayqueue.config;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** Access control. */
public class SecurityProperties {
    /** The setting of the token, as users and environment variables write it. */
    public static final String TOKEN = "delay.security.token";

    /** The loopback names a browser may reach the service by in every set-up. */
    public static final List<String> LOOPBACK_HOSTS = List.of("localhost", "127.0.0.1", "[::1]");

    /**
     * When set, calls that change the queue, and the reads of job bodies, need {@code Authorization: Bearer
     * <token>}. Blank or {@code false} (any case) means no token.
     */
    private String token;

    /**
     * Host names (any port) a browser may reach the service by besides the loopback names and IP addresses, which
     * are always answered; {@code *} for any. Empty (the default): no others without a token, any with one.
     */
    private List<String> allowedHosts = new ArrayList<>();

    /**
     * The one reading of {@value #TOKEN}, for every part that asks whether a token is set (the token check's bean,
     * the listen address, the Host check): the token, or null when none is set. Unset, blank and {@code false} (any
     * case, as Spring's property conditions read a switch) are no token.
     *
     * @throws IllegalArgumentException for {@code true} (any case): the setting is the token itself, not a switch,
     *     and a token anyone can guess would protect nothing
     */
    public static String configuredToken(String setting) {
        if (setting == null || setting.isBlank() || setting.trim().equalsIgnoreCase("false")) {
            return null;
        }
        if (setting.trim().equalsIgnoreCase("true")) {
            throw new IllegalArgumentException(TOKEN + " is the token itself, not a switch: set it to a secret of"
                    + " your own (or leave it unset, or false, for no token)");
        }
        return setting;
    }

    /** This setting's token ({@link #configuredToken(String)}), or null when none is set. */
    public String configuredToken() {
        return configuredToken(token);
    }

    /**
     * The Host names a browser's request may carry, port aside, given where the service listens ({@code
     * server.address}, null when unset): {@code *} alone when any; else the loopback names, a configured address
     * and {@link #getAllowedHosts()}. IP addresses are answered in every case (a page is only same-origin with one
     * if that address serves it, which is this service): the Host check stops pages that reach the service under
     * their own name (DNS rebinding). With a token and no list, any name: the token guards the calls and the job
     * bodies, which such a page does not have.
     */
    public List<String> answeredHosts(String serverAddress) {
        if (allowedHosts.contains("*") || (configuredToken() != null && allowedHosts.isEmpty())) {
            return List.of("*");
        }
        Set<String> hosts = new LinkedHashSet<>(LOOPBACK_HOSTS);
        if (serverAddress != null
                && !serverAddress.isBlank()
                && !serverAddress.equals("0.0.0.0")
                && !serverAddress.equals("::")) {
            hosts.add(serverAddress.trim().toLowerCase(Locale.ROOT));
        }
        for (String h : allowedHosts) {
            hosts.add(h.trim().toLowerCase(Locale.ROOT));
        }
        return List.copyOf(hosts);
    }

    public String getToken() {
        return token;
    }

    public void setToken(String token) {
        this.token = token;
    }

    public List<String> getAllowedHosts() {
        return allowedHosts;
    }

    public void setAllowedHosts(List<String> allowedHosts) {
        this.allowedHosts = allowedHosts;
    }
}
