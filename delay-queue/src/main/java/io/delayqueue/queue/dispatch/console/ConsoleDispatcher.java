package io.delayqueue.queue.dispatch.console;

import io.delayqueue.common.Job;
import io.delayqueue.common.JsonCodec;
import io.delayqueue.queue.dispatch.Dispatcher;
import java.io.PrintStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** Writes one JSON line per due job to a stream (standard output by default). */
public final class ConsoleDispatcher implements Dispatcher {
    public static final String NAME = "console";

    private final PrintStream out;

    public ConsoleDispatcher(PrintStream out) {
        this.out = out;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public CompletionStage<Void> dispatch(Job job) {
        String line = JsonCodec.write(job);
        out.println(line);
        if (out.checkError()) {
            return CompletableFuture.failedFuture(new IllegalStateException("console stream failed"));
        }
        return CompletableFuture.completedFuture(null);
    }
}
