package io.delayqueue.controller;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

/**
 * Which {@code Host}s {@link BrowserGuardValve} answers, which requests it takes for another site's and which calls
 * it keeps from them. Its place before every filter is checked against the real service ({@code
 * BrowserRequestsTest}).
 */
class BrowserGuardValveTest {
    private final BrowserGuardValve loopback = new BrowserGuardValve(List.of("localhost", "127.0.0.1", "[::1]"));

    @ParameterizedTest
    @ValueSource(
            strings = {
                "localhost",
                "localhost:8080",
                "LocalHost:8080",
                "localhost.:8080",
                "127.0.0.1:8080",
                "[::1]:8080",
                "[::1]",
                "10.1.2.3:8080",
                "[fe80::1]:80"
            })
    void loopback_names_and_ip_addresses_are_answered_on_any_port(String host) {
        assertThat(loopback.answersFor(host)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"evil.example:8080", "evil.example", "localhost.evil.example", "127.0.0.1.nip.io:8080", ""})
    void other_names_are_not(String host) {
        assertThat(loopback.answersFor(host)).isFalse();
    }

    @Test
    void a_listed_name_is_answered_regardless_of_case_and_any_host_with_a_star() {
        BrowserGuardValve listed = new BrowserGuardValve(List.of("localhost", "Queue.Internal"));
        assertThat(listed.answersFor("queue.internal:8080")).isTrue();
        assertThat(listed.answersFor("QUEUE.INTERNAL")).isTrue();
        assertThat(listed.answersFor("other.internal")).isFalse();
        assertThat(new BrowserGuardValve(List.of("*")).answersFor("evil.example:8080"))
                .isTrue();
    }

    @Test
    void a_host_not_answered_is_refused_with_421_naming_it() throws Exception {
        MockHttpServletRequest request = request("GET", "/stats");
        request.addHeader("Host", "evil.example:8080");
        MockHttpServletResponse response = new MockHttpServletResponse();

        assertThat(loopback.admits(request, response)).isFalse();
        assertThat(response.getStatus()).isEqualTo(421);
        assertThat(response.getContentType()).isEqualTo("application/json");
        assertThat(response.getContentAsString())
                .startsWith("{\"success\":false,\"code\":421,\"data\":null,")
                .contains("Host evil.example:8080", "delay.security.allowed-hosts");
    }

    @Test
    void the_browsers_verdict_decides_and_without_it_the_origin() {
        assertThat(crossSite("same-origin", null)).isNull();
        assertThat(crossSite("none", null)).isNull();
        assertThat(crossSite("same-origin", "https://public.example"))
                .as("a proxy in front that rewrites Host")
                .isNull();
        assertThat(crossSite("same-site", null)).isEqualTo("Sec-Fetch-Site: same-site");
        assertThat(crossSite("cross-site", "http://127.0.0.1:8080")).isEqualTo("Sec-Fetch-Site: cross-site");
        assertThat(crossSite(null, "http://127.0.0.1:8080")).isNull();
        assertThat(crossSite(null, "HTTPS://127.0.0.1:8080")).isNull();
        assertThat(crossSite(null, "http://evil.example")).isEqualTo("Origin http://evil.example");
        assertThat(crossSite(null, "http://127.0.0.1:8081")).isEqualTo("Origin http://127.0.0.1:8081");
        assertThat(crossSite(null, "http://127.0.0.1")).isEqualTo("Origin http://127.0.0.1");
        assertThat(crossSite(null, "null")).isEqualTo("Origin null");
        assertThat(crossSite(null, null)).as("a client that is not a browser").isNull();
    }

    private static String crossSite(String fetchSite, String origin) {
        MockHttpServletRequest request = request("POST", "/push");
        if (fetchSite != null) {
            request.addHeader("Sec-Fetch-Site", fetchSite);
        }
        if (origin != null) {
            request.addHeader("Origin", origin);
        }
        return BrowserGuardValve.crossSite(request, "127.0.0.1:8080");
    }

    @Test
    void every_call_but_the_reads_counts_as_a_change() {
        for (String read : List.of(
                "/",
                "/console.js",
                "/stats",
                "/actuator/health",
                "/v3/api-docs",
                "/console/metrics",
                "/console/jobs",
                "/jobs/3-abc",
                "/dead/orders",
                "/webjars/uplot/1.6.30/dist/uPlot.iife.min.js")) {
            assertThat(BrowserGuardValve.changesState("GET", read))
                    .as("GET %s", read)
                    .isFalse();
            assertThat(BrowserGuardValve.changesState("HEAD", read))
                    .as("HEAD %s", read)
                    .isFalse();
        }
        for (String change : List.of(
                "/clearAll",
                "/delete",
                "/finish",
                "/get/orders",
                "/reStore",
                "/reStore/3-abc",
                "/reStoreJob",
                "/dead/orders/requeue",
                "/no-such-call")) {
            assertThat(BrowserGuardValve.changesState("GET", change))
                    .as("GET %s", change)
                    .isTrue();
        }
        for (String method : List.of("POST", "PUT", "DELETE", "PATCH")) {
            assertThat(BrowserGuardValve.changesState(method, "/stats"))
                    .as(method)
                    .isTrue();
        }
        assertThat(BrowserGuardValve.changesState("OPTIONS", "/push"))
                .as("a CORS preflight: refused by the CORS processor, in its own words")
                .isFalse();
    }

    @Test
    void another_sites_change_is_refused_with_403_naming_it_and_its_read_is_let_through() throws Exception {
        MockHttpServletRequest clear = request("GET", "/clearAll");
        clear.addHeader("Host", "127.0.0.1:8080");
        clear.addHeader("Sec-Fetch-Site", "cross-site");
        MockHttpServletResponse refused = new MockHttpServletResponse();

        assertThat(loopback.admits(clear, refused)).isFalse();
        assertThat(refused.getStatus()).isEqualTo(403);
        assertThat(refused.getContentAsString()).contains("GET /clearAll came from Sec-Fetch-Site: cross-site");

        MockHttpServletRequest stats = request("GET", "/stats");
        stats.addHeader("Host", "127.0.0.1:8080");
        stats.addHeader("Sec-Fetch-Site", "cross-site");
        assertThat(loopback.admits(stats, new MockHttpServletResponse())).isTrue();
    }

    private static MockHttpServletRequest request(String method, String path) {
        MockHttpServletRequest request = new MockHttpServletRequest(method, path);
        request.setServletPath(path);
        return request;
    }
}
