package io.delayqueue.bench;

import static org.awaitility.Awaitility.await;

import io.delayqueue.queue.testing.ZooKeeperFixture;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.test.TestingServer;

/**
 * Warm from the first burst (issue 29, item 4): what a service that has just started, or an instance that has just
 * taken over, hands over in its first burst, beside what it hands over once warm. The packaged service on the MariaDB
 * set-up (as {@code http}: the Redis at 127.0.0.1:6379 under a prefix of its own, a MariaDB journal database of its
 * own), bursts of {@code --callback-burst} jobs due at one instant, called back to the benchmark's receiver
 * ({@link UserPaths#callbackBurst}).
 *
 * <ul>
 *   <li><b>First burst</b>: a fresh service JVM; its first burst once it says it is up, then more, {@link #BURSTS}
 *       in all: the settled rate is the median of the last {@link #SETTLED_BURSTS}. (Until two in a row within 10%
 *       counted as settled, which two slow bursts early on met: a leader settled at 2,753 jobs/s reached 6,641 in a
 *       longer run the same hour.) The benchmark's receiver is warmed first ({@link CallbackReceiver#warmUp}), so that its own interpreted code is not in the first burst.
 *   <li><b>Take-over</b>: two JVMs in {@code master-slave} mode on a ZooKeeper in the benchmark's JVM (Curator's
 *       {@code TestingServer}); the leader hands over {@link #BURSTS} bursts (settled as above), while the follower,
 *       started beside it, only waits; then a burst is pushed through the leader, the leader is killed ({@code kill
 *       -9}) before it is due, and the follower, once it has taken over, hands the burst over: its first burst, against the leader's
 *       settled one. Its ZooKeeper session timeout is 4 s (10 s by default) so that the take-over comes before the
 *       due instant.
 * </ul>
 */
final class ColdStart {
    private static final int BURSTS = 6;
    /** The settled rate is the median of this many last bursts. */
    private static final int SETTLED_BURSTS = 3;

    static final Duration SESSION_TIMEOUT = Duration.ofSeconds(4);
    /** Callbacks the benchmark posts to its own receiver before a fresh service or pair starts. */
    private static final int RECEIVER_WARM_UP = 40_000;

    private final BenchOptions options;
    private final BenchRedis redis;
    private final Path jar;
    private final Path benchDir;

    ColdStart(BenchOptions options, BenchRedis redis, Path jar, Path benchDir) {
        this.options = options;
        this.redis = redis;
        this.jar = jar;
        this.benchDir = benchDir;
    }

    /** A fresh service's bursts: {@code firstJobsPerSecond}, {@code settledJobsPerSecond}, their ratio. */
    RunResult firstBurst() throws Exception {
        String prefix = BenchRedis.uniqueName("cold");
        try (BenchDatabase database = BenchDatabase.create();
                CallbackReceiver receiver = new CallbackReceiver()) {
            // the benchmark's receiver warm before the service starts: the first burst measures the service
            receiver.warmUp(RECEIVER_WARM_UP, options.bodyBytes());
            long launched = System.nanoTime();
            try (ServiceProcess service = ServiceProcess.start(
                    jar, work(prefix, "a"), log("first-burst"), args(prefix, database, List.of()))) {
                double readySeconds = (System.nanoTime() - launched) / 1e9;
                UserPaths paths = new UserPaths(service.port(), receiver, options.bodyBytes(), options.pullCount());
                List<Double> rates = bursts(paths);
                return rates(rates.get(0), rates)
                        .and("readySeconds", readySeconds)
                        .with("prefix", prefix);
            } finally {
                clean(prefix);
            }
        }
    }

    /**
     * A follower's first burst after a take-over ({@code firstJobsPerSecond}) beside its leader's settled one
     * ({@code settledJobsPerSecond}), and the take-over's time after the kill.
     */
    RunResult takeOver() throws Exception {
        String prefix = BenchRedis.uniqueName("takeover");
        List<ServiceProcess> instances = new ArrayList<>();
        try (TestingServer zookeeper = ZooKeeperFixture.startServer();
                BenchDatabase database = BenchDatabase.create();
                CallbackReceiver receiver = new CallbackReceiver()) {
            receiver.warmUp(RECEIVER_WARM_UP, options.bodyBytes());
            database.migrate(); // once, before the instances: their Flyway then finds the schema in place
            List<String> ha = List.of(
                    "--delay.ha.mode=master-slave",
                    "--delay.zk.connect=" + zookeeper.getConnectString(),
                    "--delay.zk.session-timeout=" + SESSION_TIMEOUT.toMillis() + "ms",
                    "--delay.zk.connection-timeout=" + SESSION_TIMEOUT.toMillis() + "ms");
            for (String name : List.of("a", "b")) {
                List<String> own = new ArrayList<>(ha);
                own.add("--delay.ha.instance-id=" + name);
                instances.add(ServiceProcess.start(
                        jar, work(prefix, name), log("take-over-" + name), args(prefix, database, own)));
            }
            ServiceProcess leader = awaitLeader(instances, Duration.ofSeconds(60));
            ServiceProcess follower = instances.get(0) == leader ? instances.get(1) : instances.get(0);
            List<Double> rates =
                    bursts(new UserPaths(leader.port(), receiver, options.bodyBytes(), options.pullCount()));
            AtomicLong killedAt = new AtomicLong();
            AtomicLong tookOverAt = new AtomicLong();
            // due after the take-over: the leader is killed as soon as the burst is pushed, the follower takes over
            // within its session timeout
            long extraLead = SESSION_TIMEOUT.toMillis() + 6_000;
            RunResult burst = new UserPaths(leader.port(), receiver, options.bodyBytes(), options.pullCount())
                    .callbackBurst(options.callbackBurstJobs(), extraLead, () -> {
                        killedAt.set(System.currentTimeMillis());
                        try {
                            leader.kill();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            throw new IllegalStateException("interrupted while killing the leader", e);
                        }
                        tookOverAt.set(awaitRole(follower, "leader", Duration.ofSeconds(60)));
                    });
            long dueAt = ((Number) burst.details().get("dueAtMs")).longValue();
            double first = burst.value("jobsPerSecond");
            double settled = settled(rates);
            RunResult result = RunResult.of("firstJobsPerSecond", first)
                    .and("settledJobsPerSecond", settled)
                    .and("firstOverSettled", first / settled)
                    .and("takeOverMs", tookOverAt.get() - killedAt.get());
            return result.with("bursts", List.of(first))
                    .with("leaderBursts", rates)
                    .with("tookOverBeforeDueMs", dueAt - tookOverAt.get())
                    .with("burst", burst.toMap());
        } finally {
            for (ServiceProcess p : instances) {
                try {
                    p.close();
                } catch (Exception e) {
                    // the other still stops
                }
            }
            clean(prefix);
        }
    }

    /** {@link #BURSTS} bursts on {@code paths}, their rates in order. */
    private List<Double> bursts(UserPaths paths) throws Exception {
        List<Double> rates = new ArrayList<>();
        while (rates.size() < BURSTS) {
            RunResult burst = paths.callbackBurst(options.callbackBurstJobs());
            double rate = burst.value("jobsPerSecond");
            System.err.printf(
                    "[bench] burst %d: %.0f jobs/s (due at %s, the first handed over %.0f ms after)%n",
                    rates.size() + 1,
                    rate,
                    Instant.ofEpochMilli(((Number) burst.details().get("dueAtMs")).longValue()),
                    ((Number) burst.details().get("firstHandOverAfterDueMs")).doubleValue());
            rates.add(rate);
        }
        return rates;
    }

    /** The settled rate: the median of the last {@link #SETTLED_BURSTS} of {@code rates}. */
    static double settled(List<Double> rates) {
        return Measurement.median(rates.subList(Math.max(0, rates.size() - SETTLED_BURSTS), rates.size()).stream()
                .mapToDouble(Double::doubleValue)
                .toArray());
    }

    private static RunResult rates(double first, List<Double> rates) {
        double settled = settled(rates);
        return RunResult.of("firstJobsPerSecond", first)
                .and("settledJobsPerSecond", settled)
                .and("firstOverSettled", first / settled)
                .with("bursts", rates);
    }

    private List<String> args(String prefix, BenchDatabase database, List<String> more) {
        List<String> args = HttpTarget.onMariaDb(BenchRedis.URI, prefix, database);
        args.addAll(more);
        return args;
    }

    private static ServiceProcess awaitLeader(List<ServiceProcess> instances, Duration timeout) {
        ServiceProcess[] leader = {null};
        await("one instance leads")
                .atMost(timeout)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> (leader[0] = instances.stream()
                                .filter(p -> "leader".equals(p.role()))
                                .findFirst()
                                .orElse(null))
                        != null);
        return leader[0];
    }

    /** Waits until {@code p} says it has {@code role}; the time it first said so. */
    private static long awaitRole(ServiceProcess p, String role, Duration timeout) {
        await("the follower says it is the " + role)
                .atMost(timeout)
                .pollInterval(Duration.ofMillis(20))
                .until(() -> role.equals(p.role()));
        return System.currentTimeMillis();
    }

    private Path work(String prefix, String name) {
        return benchDir.resolve(prefix + "-" + name);
    }

    private Path log(String name) {
        return benchDir.resolve("service-" + name + ".log");
    }

    private void clean(String prefix) throws Exception {
        redis.unlink("{" + prefix + ":*");
        ServiceProcess.deleteWorkDirs(benchDir, prefix);
    }
}
