package io.delayqueue.e2e.support;

import io.delayqueue.queue.testing.RecordingDispatcher;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

/** Adds the {@link RecordingDispatcher} to the application; route topics to it with {@code recording}. */
@TestConfiguration(proxyBeanMethods = false)
public class RecordingDispatcherConfig {
    @Bean
    public RecordingDispatcher recordingDispatcher() {
        return new RecordingDispatcher();
    }
}
