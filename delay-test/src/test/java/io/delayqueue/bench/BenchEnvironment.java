package io.delayqueue.bench;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.springframework.boot.SpringBootVersion;

/** The machine and the versions a run measured, printed above the table and kept in the JSON. */
final class BenchEnvironment {
    private BenchEnvironment() {}

    static Map<String, String> machine(BenchRedis redis) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("cpu", firstValue(Path.of("/proc/cpuinfo"), "model name", ':').orElse(System.getProperty("os.arch")));
        m.put("cores", Integer.toString(Runtime.getRuntime().availableProcessors()));
        m.put(
                "memory",
                firstValue(Path.of("/proc/meminfo"), "MemTotal", ':')
                        .map(BenchEnvironment::kibToGib)
                        .orElse("?"));
        m.put(
                "os",
                osRelease().orElse(System.getProperty("os.name")) + " (" + System.getProperty("os.name") + " "
                        + System.getProperty("os.version") + ", " + System.getProperty("os.arch") + ")");
        m.put(
                "jvm",
                System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version") + ", "
                        + String.join(
                                " ",
                                ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                                        .filter(a -> a.startsWith("-X"))
                                        .toList()));
        m.put("loadAtStart", loadAverage());
        m.put("redis", redis.info("server", "redis_version") + " on " + BenchRedis.HOST + ":" + BenchRedis.PORT);
        try {
            m.put("mariadb", BenchDatabase.serverVersion() + " on 127.0.0.1:3306");
        } catch (Exception e) {
            m.put("mariadb", "unreachable: " + e.getMessage());
        }
        return m;
    }

    /** The 1, 5 and 15 minute load averages (other work on the machine shows here), or "?". */
    static String loadAverage() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return parts[0] + " " + parts[1] + " " + parts[2];
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    static Map<String, String> versions() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("delay-queue", System.getProperty("bench.commit", "?"));
        m.put("redisson", mavenVersion("org.redisson", "redisson"));
        m.put("db-scheduler", mavenVersion("com.github.kagkarlsson", "db-scheduler"));
        m.put("jedis", mavenVersion("redis.clients", "jedis"));
        m.put("spring-boot", SpringBootVersion.getVersion());
        m.put("mybatis", mavenVersion("org.mybatis", "mybatis"));
        m.put("jdbc driver", BenchDatabase.driverVersion());
        m.put("netty (Redisson's)", mavenVersion("io.netty", "netty-common"));
        return m;
    }

    /** The version in a jar's {@code META-INF/maven/<group>/<artifact>/pom.properties}. */
    private static String mavenVersion(String group, String artifact) {
        String resource = "/META-INF/maven/" + group + "/" + artifact + "/pom.properties";
        try (InputStream in = BenchEnvironment.class.getResourceAsStream(resource)) {
            if (in == null) {
                return "?";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "?");
        } catch (IOException e) {
            return "?";
        }
    }

    private static Optional<String> osRelease() {
        return firstValue(Path.of("/etc/os-release"), "PRETTY_NAME", '=').map(v -> v.replace("\"", ""));
    }

    /** The value of the first {@code key<separator>value} line of {@code file}. */
    private static Optional<String> firstValue(Path file, String key, char separator) {
        try {
            for (String line : Files.readAllLines(file)) {
                int sep = line.indexOf(separator);
                if (sep > 0 && line.substring(0, sep).trim().equals(key)) {
                    return Optional.of(line.substring(sep + 1).trim());
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: the caller's fallback
        }
        return Optional.empty();
    }

    private static String kibToGib(String memTotal) {
        long kib = Long.parseLong(memTotal.replaceAll("[^0-9]", ""));
        return String.format(Locale.ROOT, "%.1f GiB", kib / 1024.0 / 1024.0);
    }
}
