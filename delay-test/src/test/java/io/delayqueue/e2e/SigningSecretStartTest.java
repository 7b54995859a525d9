package io.delayqueue.e2e;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayqueue.core.DelayQueueApplication;
import io.delayqueue.e2e.support.ServiceStores;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;

/**
 * A signing secret that is not {@code whsec_} and the Base64 of 24 to 64 bytes stops the service's start, naming the
 * property and never showing the value.
 */
class SigningSecretStartTest {

    @Test
    void a_bad_signing_secret_stops_the_start_naming_the_property_not_the_value() {
        String tooShort = "whsec_c2hvcnQtc2VjcmV0LTE2Yg=="; // 16 bytes
        try (ServiceStores stores = ServiceStores.redisOnly("signbad")) {
            List<String> args = new ArrayList<>(stores.serviceArgs());
            args.add("--server.port=0");
            args.add("--delay.dispatch.topics.order=http");
            args.add("--delay.http.signing.topics.order=" + tooShort);

            assertThatThrownBy(() -> new SpringApplicationBuilder(DelayQueueApplication.class)
                            .run(args.toArray(String[]::new))
                            .close())
                    .rootCause()
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("delay.http.signing.topics.order[0] is not a signing secret")
                    .hasMessageContaining("16 bytes")
                    .hasMessageNotContaining("c2hvcnQ");
        }
    }
}
