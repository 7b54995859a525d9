package io.delayqueue.queue.dispatch.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayqueue.queue.dispatch.http.HttpCallbackDispatcher;
import io.delayqueue.queue.dispatch.http.HttpCallbackSettings;
import io.delayqueue.queue.engine.handover.DispatchSettings;
import org.junit.jupiter.api.Test;

class ConsoleDispatcherTest {

    @Test
    void engine_default_dispatcher_is_the_console_adapter() {
        assertThat(DispatchSettings.DEFAULT_DISPATCHER).isEqualTo(ConsoleDispatcher.NAME);
        assertThat(new ConsoleDispatcher(System.out).name()).isEqualTo(DispatchSettings.DEFAULT_DISPATCHER);
    }

    @Test
    void only_the_http_callback_adapter_needs_a_url() {
        assertThat(new ConsoleDispatcher(System.out).needsUrl()).isFalse();
        try (HttpCallbackDispatcher http = new HttpCallbackDispatcher(HttpCallbackSettings.defaults())) {
            assertThat(http.needsUrl()).isTrue();
        }
    }
}
