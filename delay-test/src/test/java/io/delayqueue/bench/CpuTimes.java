package io.delayqueue.bench;

import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * CPU time used so far by this JVM, the Redis server and the MariaDB server (Linux: {@code /proc}). Divided
 * by the jobs of a run it gives the CPU each job costs in each process: a figure that, unlike jobs per
 * second, other work on a shared machine barely moves.
 */
record CpuTimes(Map<String, Long> nanos) {
    private static final long TICK_NANOS = 10_000_000L; // USER_HZ = 100 on Linux
    private static final Map<String, String> SERVERS = Map.of("redis", "redis-server", "mariadb", "mariadbd");

    static CpuTimes now() {
        Map<String, Long> nanos = new LinkedHashMap<>();
        nanos.put("jvm", ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime());
        SERVERS.forEach((name, command) -> nanos.put(name, serverNanos(command)));
        return new CpuTimes(nanos);
    }

    CpuTimes minus(CpuTimes earlier) {
        Map<String, Long> diff = new LinkedHashMap<>();
        nanos.forEach((k, v) -> diff.put(k, v - earlier.nanos.getOrDefault(k, 0L)));
        return new CpuTimes(diff);
    }

    /** E.g. {@code cpu per job: jvm 21.3 us, redis 6.1 us, mariadb 9.8 us, total 37.2 us}. */
    String perJob(long jobs) {
        long total = nanos.values().stream().mapToLong(Long::longValue).sum();
        return "cpu per job: "
                + nanos.entrySet().stream()
                        .map(e -> String.format(Locale.ROOT, "%s %.1f us", e.getKey(), e.getValue() / 1e3 / jobs))
                        .collect(Collectors.joining(", "))
                + String.format(Locale.ROOT, ", total %.1f us", total / 1e3 / jobs);
    }

    /** utime + stime of the process {@code pid} so far, in nanoseconds; 0 where /proc cannot tell. */
    static long ofProcess(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * TICK_NANOS; // utime, stime
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /**
     * utime + stime of each thread of the process {@code pid} so far, in nanoseconds, summed by thread name with its
     * digits replaced by {@code #} ({@code delay-scanner-#}, {@code C2 CompilerThre#}): where a JVM's CPU goes, the
     * JIT's and the collector's apart from the service's own threads. Empty where /proc cannot tell.
     */
    static Map<String, Long> ofThreads(long pid) {
        Map<String, Long> byName = new java.util.TreeMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            tasks.forEach(task -> {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    int close = stat.lastIndexOf(')');
                    String name = stat.substring(stat.indexOf('(') + 1, close).replaceAll("[0-9]+", "#");
                    String[] fields = stat.substring(close + 2).split(" ");
                    long nanos = (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * TICK_NANOS;
                    byName.merge(name, nanos, Long::sum);
                } catch (IOException | RuntimeException e) {
                    // a thread that ended meanwhile
                }
            });
        } catch (IOException | RuntimeException e) {
            return Map.of();
        }
        return byName;
    }

    /**
     * Context switches of every thread of the process {@code pid} so far: {@code [voluntary, involuntary]} (a thread
     * that waits and is woken again, a thread taken off its core). Threads that ended are not counted.
     */
    static long[] contextSwitches(long pid) {
        long[] sum = new long[2];
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            tasks.forEach(task -> {
                try {
                    for (String line : Files.readAllLines(task.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:")) {
                            sum[0] += Long.parseLong(
                                    line.substring(line.indexOf(':') + 1).trim());
                        } else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
                            sum[1] += Long.parseLong(
                                    line.substring(line.indexOf(':') + 1).trim());
                        }
                    }
                } catch (IOException | RuntimeException e) {
                    // a thread that ended meanwhile
                }
            });
        } catch (IOException | RuntimeException e) {
            return sum;
        }
        return sum;
    }

    /** utime + stime of every process whose command is {@code command}, or 0 where /proc cannot tell. */
    private static long serverNanos(String command) {
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            return procs.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit))
                            .mapToLong(p -> ticks(p, command))
                            .sum()
                    * TICK_NANOS;
        } catch (IOException e) {
            return 0;
        }
    }

    private static long ticks(Path proc, String command) {
        try {
            String stat = Files.readString(proc.resolve("stat"));
            int close = stat.lastIndexOf(')');
            String name = stat.substring(stat.indexOf('(') + 1, close);
            if (!name.equals(command)) {
                return 0;
            }
            String[] fields = stat.substring(close + 2).split(" ");
            return Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}
