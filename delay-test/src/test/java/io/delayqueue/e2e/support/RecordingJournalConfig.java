package io.delayqueue.e2e.support;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

/** Replaces the application's journal with a {@link RecordingJournal}. */
@TestConfiguration(proxyBeanMethods = false)
public class RecordingJournalConfig {
    @Bean
    public RecordingJournal journal() {
        return new RecordingJournal();
    }
}
