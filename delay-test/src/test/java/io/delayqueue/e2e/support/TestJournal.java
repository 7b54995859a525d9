package io.delayqueue.e2e.support;

import java.util.List;

/**
 * A journal database of its own on the machine's MariaDB ({@link TestDatabase}), shared by the service JVMs
 * of one HA test as a real deployment shares one journal; the services' Flyway creates the schema.
 * {@link #close()} drops it.
 */
public final class TestJournal implements AutoCloseable {
    private final String database;

    public TestJournal(String label) {
        this.database = TestDatabase.uniqueName(label);
        TestDatabase.create(database);
    }

    /** The {@code spring.datasource.*} and {@code delay.journal.mode} arguments of a service JVM. */
    public List<String> serviceArgs() {
        return List.of(
                "--spring.datasource.url=" + TestDatabase.jdbcUrl(database),
                "--spring.datasource.username=" + TestDatabase.USER,
                "--spring.datasource.password=" + TestDatabase.PASSWORD,
                "--delay.journal.mode=sync");
    }

    @Override
    public void close() {
        TestDatabase.drop(database);
    }
}
