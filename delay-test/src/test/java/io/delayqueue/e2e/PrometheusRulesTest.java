package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The alerting rules shipped beside the Grafana dashboard ({@code delay-core/grafana/delay-queue.rules.yml}) are
 * valid for Prometheus ({@code promtool check rules}), and each alert fires on the series that should wake an
 * operator and stays quiet on a healthy queue ({@code promtool test rules} with {@code
 * prometheus/delay-queue.rules.test.yml}). promtool is Debian's {@code prometheus} package, which bin/test installs
 * where it is missing. That the rules name only metrics the service exports is {@link MetricsScrapeTest}'s part.
 */
class PrometheusRulesTest {
    private static final Path RULES = Path.of("..", "delay-core", "grafana", "delay-queue.rules.yml");
    private static final Path WORK = Path.of("target", "prometheus-rules");

    @BeforeAll
    static void copyTheRulesBesideTheirTests() throws IOException {
        Files.createDirectories(WORK);
        Files.copy(RULES, WORK.resolve("delay-queue.rules.yml"), StandardCopyOption.REPLACE_EXISTING);
        try (InputStream tests =
                PrometheusRulesTest.class.getResourceAsStream("/prometheus/delay-queue.rules.test.yml")) {
            Files.copy(tests, WORK.resolve("delay-queue.rules.test.yml"), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    @Test
    void promtool_finds_the_rules_valid() {
        Result check = promtool("check", "rules", "delay-queue.rules.yml");

        assertThat(check.exitStatus())
                .as("promtool check rules:%n%s", check.output())
                .isZero();
        assertThat(check.output()).contains("SUCCESS: 5 rules found");
    }

    @Test
    void each_alert_fires_on_what_should_wake_an_operator_and_not_on_a_healthy_queue() {
        Result test = promtool("test", "rules", "delay-queue.rules.test.yml");

        assertThat(test.exitStatus())
                .as("promtool test rules:%n%s", test.output())
                .isZero();
        assertThat(test.output()).contains("SUCCESS");
    }

    private record Result(int exitStatus, String output) {}

    private static Result promtool(String... args) {
        List<String> command = new ArrayList<>();
        command.add(executable());
        command.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(command)
                    .directory(WORK.toFile())
                    .redirectErrorStream(true)
                    .start();
            byte[] output = p.getInputStream().readAllBytes();
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("%s ended", command).isTrue();
            return new Result(p.exitValue(), new String(output, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalStateException(command + " could not be run", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String executable() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            Path candidate = Path.of(dir, "promtool");
            if (Files.isExecutable(candidate)) {
                return candidate.toString();
            }
        }
        throw new IllegalStateException("promtool is not on the PATH: bin/test installs Debian's prometheus package"
                + " (apt-get install prometheus) where it is missing");
    }
}
