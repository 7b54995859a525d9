package io.delayqueue.core;

import io.delayqueue.queue.journal.Journal;
import java.util.Locale;
import java.util.Optional;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;
import org.springframework.stereotype.Component;

/**
 * {@code /actuator/health} component {@code journal}: down while the journal cannot keep its commits ({@link
 * Journal#unsound()}: the embedded journal's database or log file deleted or replaced under the running service, or
 * an fsync of its log failed), saying why; pushes are refused meanwhile. Whether the database answers is the {@code
 * db} component's.
 */
@Component
public class JournalHealthIndicator extends AbstractHealthIndicator {
    private final Journal journal;

    public JournalHealthIndicator(Journal journal) {
        this.journal = journal;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        builder.withDetail("mode", journal.mode().name().toLowerCase(Locale.ROOT));
        Optional<String> why = journal.unsound();
        if (why.isPresent()) {
            builder.down().withDetail("unsound", why.get());
        } else {
            builder.up();
        }
    }
}
