package io.delayqueue.e2e.support;

import io.delayqueue.queue.testing.JournalDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * The machine's MariaDB ({@link JournalDatabase}'s, as root with an empty password) for a Spring application
 * under test: every test class journals to a database
 * of its own, {@code dq_test_<label>_<random>}, created when its application is configured and dropped
 * once the class is done. The service runs on it as in production: {@code delay.journal.mode=sync}, the
 * schema applied by Flyway at start-up.
 */
public final class TestDatabase {
    public static final String HOST = JournalDatabase.MARIADB_HOST;
    public static final int PORT = JournalDatabase.MARIADB_PORT;
    public static final String USER = "root";
    public static final String PASSWORD = "";
    private static final String SERVER_URL = "jdbc:mysql://" + HOST + ":" + PORT + "/";

    private TestDatabase() {}

    /** A database name no other run uses; nothing is created yet. */
    public static String uniqueName(String label) {
        String clean = label.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
        if (clean.length() > 16) {
            clean = clean.substring(0, 16);
        }
        return "dq_test_" + clean + "_"
                + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    }

    /** The JDBC URL of {@code database}, as the service would be configured for MariaDB. */
    public static String jdbcUrl(String database) {
        return jdbcUrl(database, PORT);
    }

    /** The JDBC URL of {@code database} reached through {@code port} on 127.0.0.1 (a proxy, say). */
    public static String jdbcUrl(String database, int port) {
        return "jdbc:mysql://" + HOST + ":" + port + "/" + database + "?rewriteBatchedStatements=true";
    }

    /** Creates {@code database} (if it does not exist yet) and points the application's journal at it. */
    public static void register(DynamicPropertyRegistry registry, String database) {
        register(registry, database, PORT);
    }

    /** As {@link #register(DynamicPropertyRegistry, String)}, the application reaching MariaDB on {@code port}. */
    public static void register(DynamicPropertyRegistry registry, String database, int port) {
        create(database);
        registry.add("spring.datasource.url", () -> jdbcUrl(database, port));
        registry.add("spring.datasource.username", () -> USER);
        registry.add("spring.datasource.password", () -> PASSWORD);
        registry.add("delay.journal.mode", () -> "sync");
    }

    public static void create(String database) {
        requireName(database);
        JournalDatabase.executeOnServer("CREATE DATABASE IF NOT EXISTS " + database + " CHARACTER SET utf8mb4");
    }

    public static void drop(String database) {
        requireName(database);
        JournalDatabase.executeOnServer("DROP DATABASE IF EXISTS " + database);
    }

    public static boolean exists(String database) {
        requireName(database);
        try (Connection c = DriverManager.getConnection(SERVER_URL, USER, PASSWORD);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW DATABASES LIKE '" + database + "'")) {
            return rs.next();
        } catch (SQLException e) {
            throw unreachable("SHOW DATABASES", e);
        }
    }

    /** A single number from {@code sql} run in {@code database}, e.g. a {@code COUNT(*)}. */
    public static long queryLong(String database, String sql) {
        try (Connection c = connect(database);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            if (!rs.next()) {
                throw new AssertionError("no row from " + sql);
            }
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + " failed in " + database, e);
        }
    }

    /** The first column of every row of {@code sql} run in {@code database}. */
    public static List<String> queryStrings(String database, String sql) {
        try (Connection c = connect(database);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            List<String> out = new ArrayList<>();
            while (rs.next()) {
                out.add(rs.getString(1));
            }
            return out;
        } catch (SQLException e) {
            throw new IllegalStateException(sql + " failed in " + database, e);
        }
    }

    public static Connection connect(String database) throws SQLException {
        return DriverManager.getConnection(SERVER_URL + database, USER, PASSWORD);
    }

    private static IllegalStateException unreachable(String what, SQLException e) {
        return new IllegalStateException(
                "'" + what + "' failed on MariaDB at " + HOST + ":" + PORT + " (" + USER
                        + ", empty password); these tests need it: start it with bin/services",
                e);
    }

    private static void requireName(String database) {
        if (!database.matches("dq_test_[a-z0-9_]{1,50}")) {
            throw new IllegalArgumentException("not a test database name: " + database);
        }
    }

    /**
     * Drops the database named by the test class's {@code static final String DATABASE} once the class is
     * done. Declare it with {@code @ExtendWith} <em>above</em> {@code @SpringBootTest}, so that it runs after
     * Spring closed the application context and its journal.
     */
    public static final class Cleanup implements AfterAllCallback {
        @Override
        public void afterAll(ExtensionContext context) throws Exception {
            String database = StaticResources.stringField(context.getRequiredTestClass(), "DATABASE");
            drop(database);
            if (exists(database)) {
                throw new AssertionError("database " + database + " survived the clean-up");
            }
            System.out.println("TestDatabase: dropped " + database);
        }
    }
}
