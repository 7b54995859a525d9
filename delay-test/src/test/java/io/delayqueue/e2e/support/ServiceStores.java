package io.delayqueue.e2e.support;

import io.delayqueue.queue.testing.JournalDatabase;
import io.delayqueue.queue.testing.RedisFixture;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * The stores of a service under test: the machine's Redis under a prefix of the test's own
 * ({@link RedisFixture}) and, unless the test journals elsewhere, a MariaDB database of its own
 * ({@link JournalDatabase#forService}) that the service journals to as in production ({@code
 * delay.journal.mode=sync}, the schema applied by its Flyway at start-up).
 *
 * <p>A Spring Boot test keeps it in a {@code static final} field, adds {@link #register} to its
 * {@code @DynamicPropertySource} (then any property of its own, which wins) and declares
 * {@code @ExtendWith(StaticResources.class)} <em>above</em> {@code @SpringBootTest}, so that {@link #close()}
 * runs after Spring closed the application and no engine of the class can write again. A service in another
 * JVM gets {@link #serviceArgs()}.
 */
public final class ServiceStores implements AutoCloseable {
    private final RedisFixture redis;
    private final JournalDatabase journal;

    private ServiceStores(RedisFixture redis, JournalDatabase journal) {
        this.redis = redis;
        this.journal = journal;
    }

    /** Redis under {@code t-<label>-<uuid>} and the journal database {@code dq_test_<label>_<random>}. */
    public static ServiceStores redisAndJournal(String label) {
        RedisFixture redis = RedisFixture.labelled(label);
        try {
            return new ServiceStores(redis, JournalDatabase.forService(label));
        } catch (RuntimeException e) {
            redis.close();
            throw e;
        }
    }

    /** Redis only: the test brings its own journal (a recording one, say) or none. */
    public static ServiceStores redisOnly(String label) {
        return new ServiceStores(RedisFixture.labelled(label), null);
    }

    public RedisFixture redis() {
        return redis;
    }

    /** The service's key prefix. */
    public String prefix() {
        return redis.prefix();
    }

    /** The service's journal database. */
    public JournalDatabase journal() {
        if (journal == null) {
            throw new IllegalStateException("these stores have no journal database (redisOnly)");
        }
        return journal;
    }

    /** A job's status in the journal database ({@code delay_queue_job}), or null when the journal has no row of it. */
    public String journalStatus(String id) {
        List<String> rows = journal().queryStrings("SELECT status FROM delay_queue_job WHERE id = '" + id + "'");
        return rows.isEmpty() ? null : rows.get(0);
    }

    /** The properties that point a service at these stores. */
    public Map<String, String> properties() {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("delay.redis.uri", RedisFixture.URI);
        properties.put("delay.redis.prefix", redis.prefix());
        if (journal != null) {
            properties.put("spring.datasource.url", journal.jdbcUrl());
            properties.put("spring.datasource.username", JournalDatabase.MARIADB_USER);
            properties.put("spring.datasource.password", JournalDatabase.MARIADB_PASSWORD);
            properties.put("delay.journal.mode", "sync");
        }
        return properties;
    }

    /** Points the Spring application under test at these stores. */
    public void register(DynamicPropertyRegistry registry) {
        properties().forEach((name, value) -> registry.add(name, () -> value));
    }

    /**
     * Points the Spring application under test at this prefix and journal, on a Redis deployment it is given otherwise
     * (Sentinel, Cluster): {@link #properties()} but the Redis address.
     */
    public void registerOnOtherRedis(DynamicPropertyRegistry registry) {
        properties().forEach((name, value) -> {
            if (!name.equals("delay.redis.uri")) {
                registry.add(name, () -> value);
            }
        });
    }

    /** {@link #properties()} as the command-line arguments of a service JVM. */
    public List<String> serviceArgs() {
        List<String> args = new ArrayList<>();
        properties().forEach((name, value) -> args.add("--" + name + "=" + value));
        return args;
    }

    /** Unlinks the keys and drops the database, checking that neither survived. */
    @Override
    public void close() {
        try {
            int deleted = redis.deleteAllKeys();
            System.out.println("ServiceStores: unlinked " + deleted + " keys under {" + redis.prefix() + ":*");
            List<String> left = redis.allKeys();
            if (!left.isEmpty()) {
                throw new AssertionError("keys under " + redis.prefix() + " survived the clean-up: " + left);
            }
        } finally {
            redis.close();
            if (journal != null) {
                journal.close();
                if (journal.existsOnServer()) {
                    throw new AssertionError("database " + journal.name() + " survived the clean-up");
                }
                System.out.println("ServiceStores: dropped " + journal.name());
            }
        }
    }
}
