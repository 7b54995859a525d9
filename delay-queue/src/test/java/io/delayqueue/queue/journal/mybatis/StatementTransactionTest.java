package io.delayqueue.queue.journal.mybatis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.queue.testing.JournalDatabase;
import io.delayqueue.queue.testing.TestIds;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.apache.ibatis.exceptions.PersistenceException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The group commit's transaction on MariaDB, begun and ended by statements on a connection left in auto-commit
 * ({@link StatementTransaction}), through MySQL's driver and MariaDB's: it reads committed rows, commits or rolls
 * back whole, and never leaves its connection inside a transaction or at another isolation level.
 */
class StatementTransactionTest {
    private static final long T0 = 1_700_000_000_000L;

    static java.util.stream.Stream<Arguments> drivers() {
        return java.util.stream.Stream.of(
                Arguments.of("MySQL's driver", (Supplier<JournalDatabase>) JournalDatabase::mariaDb),
                Arguments.of(
                        "MariaDB's driver", (Supplier<JournalDatabase>) JournalDatabase::mariaDbWithMariaDbDriver));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("drivers")
    void it_reads_what_others_commit_meanwhile_and_its_commit_leaves_the_connection_as_it_was(
            String driver, Supplier<JournalDatabase> database) throws SQLException {
        try (JournalDatabase db = database.get();
                Connection mine = db.connection();
                Connection other = db.connection()) {
            assertThat(mine.getAutoCommit()).isTrue();
            String sessionIsolation = text(mine, "SELECT @@SESSION.tx_isolation");
            assertThat(sessionIsolation).as("the pool's level").isEqualTo("REPEATABLE-READ");

            StatementTransaction.begin(mine);
            assertThat(number(mine, "SELECT @@in_transaction")).isEqualTo(1);
            assertThat(number(mine, "SELECT COUNT(*) FROM delay_queue_job_log")).isZero();
            insertLogRow(other, "by another writer"); // committed by the other connection, in auto-commit
            assertThat(number(mine, "SELECT COUNT(*) FROM delay_queue_job_log"))
                    .as("READ COMMITTED: a second read sees what was committed since the first")
                    .isEqualTo(1);
            insertLogRow(mine, "mine");
            assertThat(number(other, "SELECT COUNT(*) FROM delay_queue_job_log"))
                    .as("not visible before the commit")
                    .isEqualTo(1);
            StatementTransaction.commit(mine);

            assertThat(number(other, "SELECT COUNT(*) FROM delay_queue_job_log"))
                    .isEqualTo(2);
            assertThat(number(mine, "SELECT @@in_transaction")).isZero();
            assertThat(mine.getAutoCommit()).isTrue();
            assertThat(text(mine, "SELECT @@SESSION.tx_isolation"))
                    .as("the level was set for the one transaction")
                    .isEqualTo(sessionIsolation);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("drivers")
    void a_rollback_undoes_every_statement_of_the_transaction_and_ends_it(
            String driver, Supplier<JournalDatabase> database) throws SQLException {
        try (JournalDatabase db = database.get();
                Connection mine = db.connection()) {
            StatementTransaction.begin(mine);
            insertLogRow(mine, "first");
            insertLogRow(mine, "second");
            StatementTransaction.rollback(mine);

            assertThat(number(mine, "SELECT @@in_transaction")).isZero();
            // the next statement in auto-commit must not commit the rolled-back rows with it
            insertLogRow(mine, "after");
            assertThat(db.queryStrings("SELECT detail FROM delay_queue_job_log"))
                    .containsExactly("after");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("drivers")
    void a_rollback_that_fails_aborts_the_connection_so_that_no_pool_hands_it_out_inside_a_transaction(
            String driver, Supplier<JournalDatabase> database) throws SQLException {
        try (JournalDatabase db = database.get();
                Connection mine = db.connection();
                Connection other = db.connection()) {
            StatementTransaction.begin(mine);
            insertLogRow(mine, "never committed");
            long id = number(mine, "SELECT CONNECTION_ID()");
            try (Statement kill = other.createStatement()) {
                kill.execute("KILL CONNECTION " + id);
            }

            assertThatThrownBy(() -> StatementTransaction.rollback(mine))
                    .isInstanceOf(PersistenceException.class)
                    .hasMessageContaining("rolling back a journal transaction failed");
            assertThat(mine.unwrap(Connection.class).isClosed())
                    .as("the pool's connection underneath is aborted")
                    .isTrue();
            assertThat(number(other, "SELECT COUNT(*) FROM delay_queue_job_log"))
                    .isZero();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("drivers")
    void group_commits_set_neither_auto_commit_nor_the_sessions_isolation_so_the_pool_resets_nothing(
            String driver, Supplier<JournalDatabase> database) {
        try (JournalDatabase db = database.get()) {
            List<String> settings = new CopyOnWriteArrayList<>();
            DataSource recording = recordingSettings(db.gate(), settings);
            MyBatisJournal journal = JournalDatabase.journal(recording, JournalDatabase.SETTINGS, 8, Clock.systemUTC());
            try {
                assertThat(journal.recordCreated(List.of(job(TestIds.next())))).isEmpty(); // reads the dialect
                settings.clear();
                List<String> ids = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    String id = TestIds.next();
                    ids.add(id);
                    assertThat(journal.recordCreated(List.of(job(id)))).isEmpty();
                }
                assertThat(settings)
                        .as("round trips a group commit would pay twice (set, then the pool's reset)")
                        .isEmpty();
                assertThat(db.queryLong(
                                "SELECT COUNT(*) FROM delay_queue_job WHERE id IN ('" + String.join("','", ids) + "')"))
                        .isEqualTo(20);
                assertThat(db.queryLong("SELECT COUNT(*) FROM delay_queue_job_log"))
                        .isEqualTo(21);
            } finally {
                journal.close();
            }
        }
    }

    /** {@code target}'s connections, each call that sets auto-commit or the isolation level added to {@code calls}. */
    private static DataSource recordingSettings(DataSource target, List<String> calls) {
        return (DataSource) Proxy.newProxyInstance(
                StatementTransactionTest.class.getClassLoader(), new Class<?>[] {DataSource.class}, (p, m, args) -> {
                    Object result = invoke(target, m, args);
                    if (!(result instanceof Connection connection)) {
                        return result;
                    }
                    return Proxy.newProxyInstance(
                            StatementTransactionTest.class.getClassLoader(),
                            new Class<?>[] {Connection.class},
                            (cp, cm, cargs) -> {
                                if (cm.getName().equals("setAutoCommit")
                                        || cm.getName().equals("setTransactionIsolation")) {
                                    calls.add(cm.getName() + "(" + cargs[0] + ")");
                                }
                                return invoke(connection, cm, cargs);
                            });
                });
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static Job job(String id) {
        return new Job(
                id, "orders", null, null, "body of " + id, T0 + 1000, 30_000, 3, null, 0, T0, JobStatus.DELAY, 0);
    }

    private static void insertLogRow(Connection c, String detail) throws SQLException {
        try (var insert = c.prepareStatement("INSERT INTO delay_queue_job_log (job_id, event, from_status, to_status,"
                + " event_time, host, worker, detail) VALUES ('j1', 'CREATED', NULL, 'DELAY', 1, 'h', 'w', ?)")) {
            insert.setString(1, detail);
            insert.executeUpdate();
        }
    }

    private static long number(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static String text(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
