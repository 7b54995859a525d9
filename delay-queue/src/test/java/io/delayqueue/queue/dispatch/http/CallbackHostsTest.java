package io.delayqueue.queue.dispatch.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;

class CallbackHostsTest {
    private final CallbackHosts hosts =
            new CallbackHosts(List.of("hooks.example.com", "*.corp.example", "10.1.2.3", "[::1]"));

    @Test
    void hosts_match_whole_and_regardless_of_case_and_wildcards_match_names_under_their_domain() {
        assertThat(hosts.allows("hooks.example.com")).isTrue();
        assertThat(hosts.allows("HOOKS.Example.COM")).isTrue();
        assertThat(hosts.allows("hooks.example.com."))
                .as("a fully qualified name")
                .isTrue();
        assertThat(hosts.allows("evil-hooks.example.com")).isFalse();
        assertThat(hosts.allows("hooks.example.com.evil.net")).isFalse();
        assertThat(hosts.allows("a.corp.example")).isTrue();
        assertThat(hosts.allows("a.b.corp.example")).isTrue();
        assertThat(hosts.allows("corp.example")).as("the domain itself").isFalse();
        assertThat(hosts.allows("evilcorp.example")).isFalse();
        assertThat(hosts.allows("10.1.2.3")).isTrue();
        assertThat(hosts.allows("10.1.2.30")).isFalse();
        assertThat(hosts.allows("[::1]")).isTrue();
        assertThat(hosts.allows("::1")).isTrue();
        assertThat(hosts.allows("127.0.0.1")).isFalse();
        assertThat(hosts.allows("169.254.169.254")).isFalse();
        assertThat(hosts.allows(null)).isFalse();
    }

    @Test
    void the_refusal_names_the_host_and_the_setting_and_not_the_allowed_hosts() {
        assertThat(hosts.refusal(URI.create("http://hooks.example.com:8443/x?y=1")))
                .isNull();
        assertThat(hosts.refusal(URI.create("http://169.254.169.254/latest/meta-data")))
                .contains("169.254.169.254")
                .contains("delay.http.allowed-hosts")
                .doesNotContain("hooks.example.com");
    }

    @Test
    void a_star_allows_any_host_and_an_empty_list_none() {
        assertThat(new CallbackHosts(CallbackHosts.ANY).allows("anything.at.all"))
                .isTrue();
        assertThat(new CallbackHosts(List.of()).allows("hooks.example.com")).isFalse();
    }

    @Test
    void entries_that_are_no_host_nor_pattern_are_refused_naming_the_setting() {
        for (String bad : List.of("", " ", "*.", "hooks.*.com", "**.example.com", "a*b")) {
            assertThatThrownBy(() -> new CallbackHosts(List.of(bad)))
                    .as("'%s'", bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("delay.http.allowed-hosts");
        }
    }
}
