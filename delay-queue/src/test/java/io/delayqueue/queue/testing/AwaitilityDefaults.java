package io.delayqueue.queue.testing;

import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Sets Awaitility's defaults once per test run (registered in {@code META-INF/services}, so every module that
 * has this test-jar gets them): the condition is evaluated at once and then every {@value #POLL_MS} ms, in the
 * test's own thread. Awaitility's own defaults (first look after 100 ms, then every 100 ms, in another thread)
 * would miss a state that holds briefly and slow each wait; the hand-written helpers it replaced polled the
 * same way.
 */
public final class AwaitilityDefaults implements LauncherSessionListener {
    static final long POLL_MS = 5;

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        Awaitility.setDefaultPollDelay(Duration.ZERO);
        Awaitility.setDefaultPollInterval(Duration.ofMillis(POLL_MS));
        Awaitility.pollInSameThread();
    }
}
