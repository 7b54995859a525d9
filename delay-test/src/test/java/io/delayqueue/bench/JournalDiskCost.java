package io.delayqueue.bench;

import static org.awaitility.Awaitility.await;

import io.delayqueue.common.PushRequest;
import io.delayqueue.config.DelayProperties;
import io.delayqueue.queue.coordination.StandaloneCoordinator;
import io.delayqueue.queue.engine.DelayQueueEngine;
import io.delayqueue.queue.engine.EngineConfig;
import io.delayqueue.queue.journal.mybatis.MyBatisJournal;
import io.delayqueue.queue.store.redis.RedisJobStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import redis.clients.jedis.JedisPooled;

/**
 * What a job costs on the journal's disk: pushes jobs through the in-process service (journal {@code sync} on the
 * MariaDB at 127.0.0.1:3306, Redis at 127.0.0.1:6379) to {@code FINISHED}, then reads {@code data_length +
 * index_length} of both tables from {@code information_schema.TABLES} (after {@code ANALYZE TABLE}) and prints
 * them per job. Not a test: {@code bin/bench-journal} builds the class path; run it as {@code java -cp ...
 * io.delayqueue.bench.JournalDiskCost [jobs] [body bytes]} (defaults 200000 and 100).
 */
public final class JournalDiskCost {
    private JournalDiskCost() {}

    public static void main(String[] args) throws Exception {
        int jobs = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        int bodyBytes = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        String prefix = BenchRedis.uniqueName("disk");
        DelayProperties defaults = new DelayProperties();
        HandOvers handOvers = HandOvers.counting();
        try (BenchDatabase db = BenchDatabase.create();
                JedisPooled redis = new JedisPooled(BenchRedis.HOST, BenchRedis.PORT)) {
            db.migrate();
            MyBatisJournal journal = db.journal(defaults.getJournal().toSettings(), defaults.getShards());
            EngineConfig config = defaults.toEngineConfig()
                    .withRedisPrefix(prefix)
                    .withDispatch(d -> d.withDefaultDispatcher(CountingDispatcher.NAME));
            try (DelayQueueEngine engine = new DelayQueueEngine(
                    config,
                    new RedisJobStore(redis, prefix, config.shards(), config.retention(), false),
                    List.of(new CountingDispatcher(handOvers)),
                    new StandaloneCoordinator(),
                    journal,
                    Clock.systemUTC())) {
                engine.start();
                handOvers.expect(jobs);
                String body = "x".repeat(bodyBytes);
                List<PushRequest> batch = new ArrayList<>();
                for (int i = 0; i < jobs; i++) {
                    batch.add(new PushRequest(
                            null, "orders", "paid", "order-" + i, body, 0L, null, null, null, null, null));
                    if (batch.size() == 1000 || i == jobs - 1) {
                        engine.pushBatch(batch);
                        batch.clear();
                    }
                }
                if (handOvers.await(jobs, Duration.ofMinutes(10)) < 0) {
                    throw new IllegalStateException(handOvers.count() + " of " + jobs + " handed over");
                }
                await("every job FINISHED in the journal")
                        .atMost(Duration.ofMinutes(2))
                        .pollInterval(Duration.ofMillis(200))
                        .until(() ->
                                count(db, "SELECT COUNT(*) FROM delay_queue_job WHERE status = 'FINISHED'") >= jobs);
            } finally {
                journal.close();
                for (String key : redis.keys("{" + prefix + ":*")) {
                    redis.unlink(key);
                }
            }
            try (Connection c = DriverManager.getConnection(BenchDatabase.SERVER_URL + db.name(), "root", "");
                    Statement s = c.createStatement()) {
                s.execute("ANALYZE TABLE delay_queue_job, delay_queue_job_log");
                long logRows = count(db, "SELECT COUNT(*) FROM delay_queue_job_log");
                System.out.printf(
                        Locale.ROOT,
                        "%d jobs pushed to FINISHED, %d-byte bodies, %.2f log rows per job (MariaDB %s)%n",
                        jobs,
                        bodyBytes,
                        (double) logRows / jobs,
                        BenchDatabase.serverVersion());
                long total = 0;
                try (ResultSet rs = s.executeQuery("SELECT table_name, data_length, index_length"
                        + " FROM information_schema.TABLES WHERE table_schema = '" + db.name() + "'"
                        + " AND table_name LIKE 'delay_queue_job%' ORDER BY table_name")) {
                    while (rs.next()) {
                        long data = rs.getLong(2);
                        long index = rs.getLong(3);
                        total += data + index;
                        System.out.printf(
                                Locale.ROOT,
                                "  %-20s data %6.0f B/job, indexes %5.0f B/job%n",
                                rs.getString(1),
                                (double) data / jobs,
                                (double) index / jobs);
                    }
                }
                System.out.printf(Locale.ROOT, "  total %.0f bytes per job%n", (double) total / jobs);
            }
        }
        System.exit(0);
    }

    private static long count(BenchDatabase db, String sql) throws Exception {
        try (Connection c = DriverManager.getConnection(BenchDatabase.SERVER_URL + db.name(), "root", "");
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
