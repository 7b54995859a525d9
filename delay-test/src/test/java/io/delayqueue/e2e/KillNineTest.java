package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayqueue.common.JobIds;
import io.delayqueue.e2e.support.Api;
import io.delayqueue.e2e.support.ServiceProcess;
import io.delayqueue.e2e.support.ServiceStores;
import io.delayqueue.e2e.support.StaticResources;
import io.delayqueue.queue.engine.EngineConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.JedisPooled;

/**
 * A service JVM killed with {@code kill -9} while 5,000 jobs are in flight, then started again: every job
 * is delivered (duplicates allowed, and counted; losses not). Between the two runs the keys of half the
 * shards are wiped, so that both ways back are taken: jobs of the kept shards come back from Redis (sends
 * the dead JVM had not confirmed return after the dispatch timeout), jobs of the wiped shards from the
 * MariaDB journal ({@code delay.journal.restore-on-start=true}).
 */
@ExtendWith(StaticResources.class)
class KillNineTest {
    static final ServiceStores STORES = ServiceStores.redisAndJournal("kill9");
    private static final int JOBS = 5_000;
    private static final int SHARDS = EngineConfig.DEFAULT_SHARDS;
    private static final Duration START = Duration.ofMinutes(3);

    private static List<String> serviceArgs() {
        List<String> args = new ArrayList<>(STORES.serviceArgs());
        args.addAll(List.of(
                "--delay.shards=" + SHARDS,
                "--delay.journal.restore-on-start=true",
                "--delay.dispatch.default=console",
                "--delay.dispatch.timeout=2s",
                "--logging.level.root=warn",
                "--logging.level.io.delayqueue=info"));
        return args;
    }

    @Test
    void every_job_is_delivered_after_the_service_is_killed_with_kill_9_mid_flight_and_started_again()
            throws Exception {
        Map<String, Integer> printed = ServiceProcess.newCounts();
        List<String> ids = new ArrayList<>();
        int deliveredBeforeKill;
        List<String> oddBeforeKill;
        try (ServiceProcess first = ServiceProcess.start("kill9-first", serviceArgs(), printed)) {
            first.awaitUp(START);
            Api api = first.api();
            Random random = new Random();
            List<CompletableFuture<Api.Response>> batches = new ArrayList<>();
            for (int b = 0; b < JOBS / 1000; b++) {
                List<Map<String, Object>> batch = new ArrayList<>();
                for (int i = 0; i < 1000; i++) {
                    Map<String, Object> job = new LinkedHashMap<>();
                    job.put("topic", "e2e.kill9");
                    job.put("body", "job " + (b * 1000 + i));
                    job.put("delay", 1_000L + random.nextInt(5_001));
                    batch.add(job);
                }
                batches.add(api.sendAsync("POST", "/push/batch", Api.toJson(batch)));
            }
            for (CompletableFuture<Api.Response> f : batches) {
                Api.Response r = f.join();
                assertThat(r.status()).as("batch push: %s", r).isEqualTo(200);
                r.data().forEach(id -> ids.add(id.asText()));
            }
            assertThat(new HashSet<>(ids)).hasSize(JOBS);
            await("a fifth of the jobs is delivered")
                    .atMost(Duration.ofSeconds(60))
                    .untilAsserted(() -> assertThat(printed.size())
                            .as(() -> "jobs delivered\n" + first.tail())
                            .isGreaterThanOrEqualTo(JOBS / 5));
            first.kill();
            deliveredBeforeKill = printed.size();
            oddBeforeKill = first.oddLines();
        }
        assertThat(deliveredBeforeKill).as("delivered when killed").isLessThan(JOBS);

        int wiped = wipeHalfTheShards();
        System.out.printf(
                "KillNineTest: killed with %d of %d jobs delivered; wiped %d keys of shards 0-%d%n",
                deliveredBeforeKill, JOBS, wiped, SHARDS / 2 - 1);

        try (ServiceProcess second = ServiceProcess.start("kill9-second", serviceArgs(), printed)) {
            second.awaitUp(START);
            await("every job is delivered after the restart")
                    .atMost(Duration.ofSeconds(90))
                    .untilAsserted(() -> assertThat(missing(ids, printed))
                            .as(() -> missing(ids, printed).size() + " missing, e.g. "
                                    + missing(ids, printed).stream().limit(5).toList() + "\n"
                                    + whereAre(missing(ids, printed).stream()
                                            .limit(5)
                                            .toList())
                                    + "restore at start: " + second.restoreLines() + "\n"
                                    + "odd output lines: " + oddBeforeKill + " " + second.oddLines() + "\n"
                                    + second.tail())
                            .isEmpty());
            Set<String> unknown = new HashSet<>(printed.keySet());
            ids.forEach(unknown::remove);
            assertThat(unknown).as("printed jobs nobody pushed").isEmpty();

            int duplicates = printed.values().stream().mapToInt(c -> c - 1).sum();
            long jobsTwice = printed.values().stream().filter(c -> c > 1).count();
            System.out.printf(
                    "KillNineTest: %d jobs, %d delivered before kill -9, all delivered after the restart;"
                            + " %d duplicate deliveries (%d jobs more than once); restore at start: %s%n",
                    JOBS, deliveredBeforeKill, duplicates, jobsTwice, second.restoreLines());
            if (!oddBeforeKill.isEmpty() || !second.oddLines().isEmpty()) {
                System.out.printf(
                        "KillNineTest: output lines that held a job along with something else (jobs counted): %s %s%n",
                        oddBeforeKill, second.oddLines());
            }
            assertThat(missing(ids, printed)).as("lost jobs").isEmpty();
            // the wiped shards are refilled from the journal by the start-up restore or by the tier loader, whose
            // watermark was wiped with them and which then reloads the horizon; whichever gets to a job first
            // journals it (RESTORED or LOADED), the other finds it in Redis
            long restored = restoredAtStart(second.restoreLines());
            await("jobs of the wiped shards refilled from the journal (RESTORED or LOADED)")
                    .atMost(Duration.ofSeconds(10))
                    .until(
                            () -> STORES.journal()
                                    .queryLong(
                                            "SELECT COUNT(*) FROM delay_queue_job_log WHERE event IN ('RESTORED', 'LOADED')"),
                            refilled -> refilled > 0);
            System.out.printf("KillNineTest: restored at start-up: %d%n", restored);
        }
    }

    /** Unlinks every key of shards 0 .. SHARDS/2-1; returns how many. */
    private static int wipeHalfTheShards() {
        List<String> doomed = new ArrayList<>();
        for (String key : STORES.redis().allKeys()) {
            for (int s = 0; s < SHARDS / 2; s++) {
                if (key.startsWith("{" + STORES.prefix() + ":" + s + "}")) {
                    doomed.add(key);
                }
            }
        }
        if (!doomed.isEmpty()) {
            STORES.redis().redis().unlink(doomed.toArray(String[]::new));
        }
        return doomed.size();
    }

    /**
     * For a failure's message, read while the restarted service still runs (before the clean-up drops them): where
     * each missing job is in Redis (its pool value, bucket, done and pending-delete scores, dead set) and in the
     * journal (its row and its transitions, oldest first).
     */
    private static String whereAre(List<String> missing) {
        StringBuilder out = new StringBuilder();
        long now = System.currentTimeMillis();
        try {
            JedisPooled jedis = STORES.redis().redis();
            for (String id : missing) {
                int shard = JobIds.shardOf(id, SHARDS);
                String tag = "{" + STORES.prefix() + ":" + shard + "}";
                out.append("job ")
                        .append(id)
                        .append(" (shard ")
                        .append(shard)
                        .append(shard < SHARDS / 2 ? ", wiped" : ", kept")
                        .append("), now ")
                        .append(now)
                        .append(":\n  redis pool: ")
                        .append(jedis.hget(tag + ":pool", id))
                        .append("\n  redis bucket score: ")
                        .append(jedis.zscore(tag + ":bucket", id))
                        .append(", done score: ")
                        .append(jedis.zscore(tag + ":done", id))
                        .append(", deleting score: ")
                        .append(jedis.zscore(tag + ":deleting", id))
                        .append(", dead score: ")
                        .append(jedis.zscore(tag + ":dead:e2e.kill9", id))
                        .append(", in ready list: ")
                        .append(jedis.lpos(tag + ":ready:e2e.kill9", id))
                        .append(", bucket size: ")
                        .append(jedis.zcard(tag + ":bucket"))
                        .append(", bucket head: ")
                        .append(jedis.zrangeWithScores(tag + ":bucket", 0, 2))
                        .append(", epoch: ")
                        .append(jedis.get(tag + ":epoch"))
                        .append("\n  journal row: ")
                        .append(STORES.journal()
                                .queryStrings(
                                        "SELECT CONCAT(status, ' attempts=', attempts, ' due_at=', due_at, ' create_time=',"
                                                + " create_time, ' update_time=', update_time, ' version=', version)"
                                                + " FROM delay_queue_job WHERE id = '" + id + "'"))
                        .append("\n  journal log:");
                for (String row : STORES.journal()
                        .queryStrings(
                                "SELECT CONCAT(id, ' ', event_time, ' ', event, ' ', COALESCE(from_status, '-'), '>', to_status,"
                                        + " ' ', COALESCE(host, ''), ' ', COALESCE(worker, ''), ' ', COALESCE(detail, ''))"
                                        + " FROM delay_queue_job_log WHERE job_id = '" + id + "' ORDER BY id")) {
                    out.append("\n    ").append(row);
                }
                out.append("\n");
            }
        } catch (RuntimeException e) {
            out.append("(could not look: ").append(e).append(")\n");
        }
        return out.toString();
    }

    private static Set<String> missing(List<String> ids, Map<String, Integer> printed) {
        Set<String> missing = new HashSet<>(ids);
        missing.removeAll(printed.keySet());
        return missing;
    }

    private static long restoredAtStart(List<String> lines) {
        Pattern p = Pattern.compile("restored=(\\d+)");
        for (String line : lines) {
            Matcher m = p.matcher(line);
            if (m.find()) {
                return Long.parseLong(m.group(1));
            }
        }
        throw new AssertionError("the restarted service logged no restore at start-up: " + lines);
    }
}
