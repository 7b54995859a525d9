package io.delayqueue.bench;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A million pending jobs (issue 29, item 6) on the packaged service over HTTP, MariaDB set-up: {@code jobs} jobs
 * loaded with {@code POST /push/batch} (1,000 per call, 4 connections), due 20 to 40 minutes ahead: pending, and
 * within the default tier horizon (1 h), so all of them in Redis. Then, with them pending: Redis bytes per pending job
 * (growth of {@code INFO memory} used_memory, and {@code MEMORY USAGE} of the service's keys), the one-job push rate
 * at 8 and 128 callers ({@code POST /push}, due in 30 minutes, after a fixed warm-up), and the restore: the service
 * stopped, its keys unlinked (its prefix only), started again with {@code delay.journal.restore-on-start=true}, timed
 * from its launch until every pending job of the journal is back in its shards' buckets (polled every 100 ms), by
 * whichever path puts it back first: the restore (which leaves jobs past the tier loader's watermark to the loader),
 * the owner's replay of the journal's last minute onto a Redis whose {@code replayed-onto} key is gone, the loader.
 */
final class FullPending {
    /** The service's default shards. */
    private static final int SHARDS = 8;

    @FunctionalInterface
    interface Step {
        void run() throws Exception;
    }

    private final BenchOptions options;
    private final BenchRedis redis;
    private final BenchDatabase database;
    private final String prefix;
    private final int port;

    FullPending(BenchOptions options, BenchRedis redis, BenchDatabase database, String prefix, int port) {
        this.options = options;
        this.redis = redis;
        this.database = database;
        this.prefix = prefix;
        this.port = port;
    }

    /**
     * @param startSeconds the same service's start without a restore (launch to health UP)
     * @param stop stops the service and unlinks its keys
     * @param startRestoring starts it again with restore on start, returns when its health is UP
     */
    RunResult run(int jobs, double startSeconds, Step stop, Step startRestoring) throws Exception {
        long memoryBefore = redis.usedMemory();
        double loadSeconds = load(jobs);
        long memoryAfter = redis.usedMemory();
        long keysBytes = redis.memoryOfKeys("{" + prefix + ":*");
        long inRedis = pendingInRedis();
        if (inRedis < jobs) {
            throw new IllegalStateException("only " + inRedis + " of " + jobs + " loaded jobs are in Redis");
        }
        String body = "x".repeat(options.bodyBytes());
        byte[] single = ("{\"topic\":\"" + InProcessTarget.TOPIC + "\",\"body\":\"" + body + "\",\"delay\":"
                        + Duration.ofMinutes(30).toMillis() + "}")
                .getBytes(StandardCharsets.UTF_8);
        RunResult warmUp = HttpPushLoad.run(
                "127.0.0.1", port, "/push", single, 1, options.fewThreads(), Duration.ZERO, options.pushWarmUp());
        RunResult few = HttpPushLoad.run(
                "127.0.0.1",
                port,
                "/push",
                single,
                1,
                options.fewThreads(),
                options.pushPreRoll(),
                options.pushMeasure());
        RunResult many = HttpPushLoad.run(
                "127.0.0.1", port, "/push", single, 1, options.threads(), options.pushPreRoll(), options.pushMeasure());

        long pending = database.jobRows(); // every row is pending: nothing came due
        stop.run();
        AtomicLong restoredAt = new AtomicLong();
        AtomicLong seen = new AtomicLong();
        long launched = System.nanoTime();
        java.time.Instant launchedAt = java.time.Instant.now(); // to read the service log's timestamps against
        Thread watcher = new Thread(
                () -> {
                    BenchRedis own = new BenchRedis(BenchRedis.PORT);
                    try (own) {
                        long deadline = launched + Duration.ofMinutes(30).toNanos();
                        while (System.nanoTime() < deadline) {
                            long n = countBuckets(own);
                            seen.set(n);
                            if (n >= pending) {
                                restoredAt.set(System.nanoTime());
                                return;
                            }
                            Thread.sleep(100);
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "bench-restore-watch");
        watcher.setDaemon(true);
        watcher.start();
        startRestoring.run();
        double upSeconds = (System.nanoTime() - launched) / 1e9;
        watcher.join(Duration.ofMinutes(30).toMillis());
        if (restoredAt.get() == 0) {
            throw new IllegalStateException(
                    "the restore put back " + seen.get() + " of " + pending + " pending jobs within 30 minutes");
        }
        double restoreSeconds = (restoredAt.get() - launched) / 1e9;
        return RunResult.of("pushFewJobsPerSecond", few.value("jobsPerSecond"))
                .and("pushManyJobsPerSecond", many.value("jobsPerSecond"))
                .and("bytesPerJob", (memoryAfter - memoryBefore) / (double) jobs)
                .and("restoreSeconds", restoreSeconds)
                .with("pending", jobs)
                .with("loadSeconds", loadSeconds)
                .with("loadJobsPerSecond", jobs / loadSeconds)
                .with("usedMemoryBefore", memoryBefore)
                .with("usedMemoryAfter", memoryAfter)
                .with("memoryUsageOfKeysPerJob", keysBytes / (double) jobs)
                .with("pushWarmUp", warmUp.toMap())
                .with("pushFew", few.toMap())
                .with("pushMany", many.toMap())
                .with("restoredJobs", pending)
                .with("restartLaunchedAt", launchedAt.toString())
                .with("restartUpSeconds", upSeconds)
                .with("startWithoutRestoreSeconds", startSeconds)
                .with("restoreSecondsBeyondStart", restoreSeconds - startSeconds);
    }

    /** Jobs in the DELAY state in Redis: the sum of the shards' buckets. */
    private long pendingInRedis() {
        return countBuckets(redis);
    }

    private long countBuckets(BenchRedis r) {
        long n = 0;
        for (int s = 0; s < SHARDS; s++) {
            n += r.zcard("{" + prefix + ":" + s + "}:bucket");
        }
        return n;
    }

    /** {@code jobs} jobs due 20-40 minutes ahead, 1,000 per {@code POST /push/batch} from 4 connections. */
    private double load(int jobs) throws Exception {
        String body = "x".repeat(options.bodyBytes());
        long from = Duration.ofMinutes(20).toMillis();
        long span = Duration.ofMinutes(20).toMillis();
        AtomicInteger next = new AtomicInteger();
        long start = System.nanoTime();
        Parallel.run(4, "bench-full-load", () -> {
            try (HttpConnection c = new HttpConnection("127.0.0.1", port)) {
                int first;
                while ((first = next.getAndAdd(1_000)) < jobs) {
                    int n = Math.min(1_000, jobs - first);
                    StringBuilder json = new StringBuilder(n * (body.length() + 64)).append('[');
                    for (int i = 0; i < n; i++) {
                        json.append(i == 0 ? "" : ",")
                                .append("{\"topic\":\"")
                                .append(InProcessTarget.TOPIC)
                                .append("\",\"body\":\"")
                                .append(body)
                                .append("\",\"delay\":")
                                .append(from + ThreadLocalRandom.current().nextLong(span))
                                .append('}');
                    }
                    HttpConnection.Response r = c.postJson(
                            "/push/batch", json.append(']').toString().getBytes(StandardCharsets.UTF_8));
                    if (r.status() != 200) {
                        throw new IllegalStateException("POST /push/batch answered " + r.status() + ": " + r.text());
                    }
                }
            }
        });
        return (System.nanoTime() - start) / 1e9;
    }
}
