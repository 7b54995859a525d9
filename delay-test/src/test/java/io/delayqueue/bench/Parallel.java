package io.delayqueue.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/** Runs a task on a few threads at once and waits for all of them; the first failure is rethrown. */
final class Parallel {
    private Parallel() {}

    @FunctionalInterface
    interface Task {
        void run() throws Exception;
    }

    static void run(int threads, String name, Task task) throws Exception {
        AtomicReference<Exception> failure = new AtomicReference<>();
        List<Thread> started = new ArrayList<>(threads);
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(
                    () -> {
                        try {
                            task.run();
                        } catch (Exception e) {
                            failure.compareAndSet(null, e);
                        }
                    },
                    name + "-" + i);
            t.setDaemon(true);
            started.add(t);
            t.start();
        }
        for (Thread t : started) {
            t.join();
        }
        if (failure.get() != null) {
            throw failure.get();
        }
    }
}
