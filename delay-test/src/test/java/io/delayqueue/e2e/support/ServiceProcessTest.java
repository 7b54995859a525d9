package io.delayqueue.e2e.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The harness of the end-to-end tests counts every job a process printed, also when the process is killed with
 * {@code kill -9} while the reader is behind: what sits in the pipe when the process dies is still read (and
 * counted), not thrown away. A harness that threw it away reported jobs the service had delivered (and
 * acknowledged, so never delivered again) as lost, as in a flaky {@code KillNineTest}.
 */
class ServiceProcessTest {
    private static final int JOBS = 300;

    @Test
    void every_job_printed_before_a_kill_9_is_counted_though_the_reader_was_behind(@TempDir Path dir) throws Exception {
        Path printedAll = dir.resolve("printed-all");
        // one job's line as the console dispatcher prints it, about 100 bytes: 300 of them are more than the reader
        // takes into its buffer at once, and less than the pipe holds, so the printer is not held up
        String printer = "for i in $(seq 1 " + JOBS + "); do"
                + " printf '{\"id\":\"job-%05d\",\"topic\":\"harness\",\"body\":\"job %d of the harness test\","
                + "\"status\":\"RESERVED\",\"attempts\":0}\\n' $i $i; done; touch '" + printedAll + "'; exec sleep 60";
        CountDownLatch killed = new CountDownLatch(1);
        Map<String, Integer> printed = new ConcurrentHashMap<>() {
            @Override
            public Integer merge(
                    String key, Integer value, BiFunction<? super Integer, ? super Integer, ? extends Integer> f) {
                // the reader falls behind: it counts nothing until the printer is dead
                try {
                    killed.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return super.merge(key, value, f);
            }
        };
        ServiceProcess process =
                ServiceProcess.startCommand("harness-printer", List.of("bash", "-c", printer), printed);
        try {
            await("the printer printed every job")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> Files.exists(printedAll));
            ProcessHandle.of(process.pid()).orElseThrow().onExit().thenRun(killed::countDown);

            process.kill();

            assertThat(printed).as("jobs counted after kill -9").hasSize(JOBS);
            assertThat(printed.values()).allMatch(n -> n == 1);
        } finally {
            killed.countDown();
            process.close();
        }
    }
}
