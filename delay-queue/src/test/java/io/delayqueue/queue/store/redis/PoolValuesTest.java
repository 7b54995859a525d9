package io.delayqueue.queue.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayqueue.common.Job;
import io.delayqueue.common.JobStatus;
import io.delayqueue.common.JsonCodec;
import org.junit.jupiter.api.Test;

class PoolValuesTest {
    private static final long T0 = 1_795_311_383_455L;

    private static Job job(String subtopic, String bizKey, String url, String body) {
        return new Job(
                "7-abc", "orders.eu", subtopic, bizKey, body, T0 + 60_000, 30_000, 10, url, 3, T0, JobStatus.DELAY, 0);
    }

    @Test
    void a_job_without_extras_is_its_six_script_fields_its_creation_priority_and_its_body_as_it_is() {
        Job job = job(null, null, null, "close order 42");
        String value = PoolValues.encode(job);

        assertThat(value)
                .isEqualTo("DELAY|0|" + (T0 + 60_000) + "|30000|10|orders.eu|" + Long.toString(T0, 36)
                        + "|3|0|close order 42");
        assertThat(PoolValues.decode("7-abc", value)).isEqualTo(job);
    }

    @Test
    void extras_and_bodies_with_bars_braces_quotes_and_non_ascii_survive_the_round_trip() {
        Job job = job("tag|1", "biz \"7\" [x]", "https://example.com/cb?a=1|2", "{\"a\":\"b|c\"}|ünïcødé|");
        assertThat(PoolValues.decode("7-abc", PoolValues.encode(job))).isEqualTo(job);

        Job onlyUrl = job(null, null, "http://h/x", "");
        assertThat(PoolValues.decode("7-abc", PoolValues.encode(onlyUrl))).isEqualTo(onlyUrl);
    }

    @Test
    void a_value_written_by_an_earlier_version_with_the_job_as_json_is_still_read() {
        Job job = job("tag", "biz", null, "body|with|bars");
        String legacy = "RESERVED|2|" + (T0 + 90_000) + "|30000|10|orders.eu|" + JsonCodec.write(job);

        assertThat(PoolValues.decode("7-abc", legacy)).isEqualTo(job.withState(JobStatus.RESERVED, 2, T0 + 90_000));
    }
}
