package io.delayqueue.core;

import com.zaxxer.hikari.HikariDataSource;
import io.delayqueue.queue.journal.mybatis.JournalDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
import javax.sql.DataSource;
import org.flywaydb.core.api.Location;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.flyway.FlywayConfigurationCustomizer;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The journal's database as the service prepares it: the folder of the embedded default's SQLite file
 * ({@code ./data}), the migrations of the database's dialect ({@code sql/} or {@code sql/sqlite/}), and the
 * earlier versions' H2 file imported into SQLite ({@link H2JournalImport}). Imported by
 * {@link DelayQueueConfiguration}.
 */
@Configuration(proxyBeanMethods = false)
class EmbeddedJournalConfiguration {
    /** The name of the bean the journal depends on: the import has run before the engine writes. */
    static final String FORMER_H2_IMPORTED = "formerH2JournalImported";

    /** SQLite creates its file but not the folder: before the pool's first connection (Flyway's), it exists. */
    @Bean
    static BeanPostProcessor embeddedJournalFolder() {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessBeforeInitialization(Object bean, String beanName) {
                if (bean instanceof HikariDataSource pool) {
                    EmbeddedJournalFile.of(pool.getJdbcUrl()).ifPresent(EmbeddedJournalFile::createFolder);
                }
                return bean;
            }
        };
    }

    /**
     * Flyway applies the migrations of the journal's dialect: {@code classpath:db/sqlite} on SQLite, else
     * {@code classpath:db/migration} (Flyway's default). Locations a user set ({@code spring.flyway.locations})
     * stay as they are.
     */
    @Bean
    FlywayConfigurationCustomizer journalMigrations() {
        return configuration -> {
            List<Location> locations = Arrays.asList(configuration.getLocations());
            if (!locations.equals(List.of(new Location("classpath:db/migration")))) {
                return;
            }
            DataSource dataSource = configuration.getDataSource();
            try (Connection connection = dataSource.getConnection()) {
                configuration.locations(JournalDialect.of(connection).migrations());
            } catch (SQLException e) {
                throw new IllegalStateException("cannot reach the journal database: " + e.getMessage(), e);
            }
        };
    }

    /** After Flyway, before the journal: the earlier version's H2 journal beside the SQLite file, if any. */
    @Bean(FORMER_H2_IMPORTED)
    @DependsOnDatabaseInitialization
    Object formerH2JournalImported(ObjectProvider<DataSource> dataSource) {
        if (dataSource.getIfAvailable() instanceof HikariDataSource pool) {
            EmbeddedJournalFile.of(pool.getJdbcUrl()).ifPresent(file -> H2JournalImport.importIfPresent(file, pool));
        }
        return Boolean.TRUE;
    }
}
