package io.delayqueue.queue.dispatch.http;

import io.delayqueue.common.Job;
import io.delayqueue.common.JsonCodec;
import io.delayqueue.queue.dispatch.Dispatcher;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * POSTs each due job as JSON to the job's {@code url}; the send is confirmed by a 2xx answer and by
 * nothing else (a redirect, a 4xx, a 5xx, a refused connection or a timeout is a failed attempt that
 * follows the retry ladder). Headers {@code X-Delay-Job-Id}, {@code X-Delay-Topic} and {@code
 * X-Delay-Attempt} let the receiver deduplicate: delivery is at least once.
 *
 * <p>Built on the JDK's {@link HttpClient}: sends are asynchronous (non-blocking I/O, no thread per
 * request), so a callback that hangs holds a connection until the read timeout, never a thread; how many
 * callbacks are open at once is bounded by the engine's in-flight limits per topic and per dispatcher.
 */
public final class HttpCallbackDispatcher implements Dispatcher {
    public static final String NAME = "http";

    private final HttpCallbackSettings settings;
    private final ExecutorService executor;
    private final HttpClient client;

    public HttpCallbackDispatcher(HttpCallbackSettings settings) {
        this.settings = settings;
        AtomicInteger threads = new AtomicInteger();
        // completes the futures of finished exchanges; the I/O itself runs on the client's selector thread
        this.executor = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "delay-http-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(settings.connectTimeout())
                .executor(executor)
                .build();
    }

    @Override
    public String name() {
        return NAME;
    }

    /** Each job is posted to its own {@code url}. */
    @Override
    public boolean needsUrl() {
        return true;
    }

    public HttpCallbackSettings settings() {
        return settings;
    }

    @Override
    public CompletionStage<Void> dispatch(Job job) {
        if (job.url() == null) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "job " + job.id() + " of topic " + job.topic() + " has no url to call back"));
        }
        HttpRequest request;
        try {
            request = HttpRequest.newBuilder(URI.create(job.url()))
                    .timeout(settings.readTimeout())
                    .header("Content-Type", "application/json")
                    .header("X-Delay-Job-Id", job.id())
                    .header("X-Delay-Topic", job.topic())
                    .header("X-Delay-Attempt", Integer.toString(job.attempts() + 1))
                    .POST(HttpRequest.BodyPublishers.ofString(JsonCodec.write(job)))
                    .build();
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(
                    new IllegalArgumentException("job " + job.id() + " has an unusable url: " + e.getMessage(), e));
        }
        return client.sendAsync(request, HttpResponse.BodyHandlers.discarding()).thenApply(response -> {
            int status = response.statusCode();
            if (status < 200 || status > 299) {
                throw new CallbackRefusedException(job.url(), status);
            }
            return null;
        });
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }

    /** The callback answered, but not with a 2xx. */
    public static final class CallbackRefusedException extends RuntimeException {
        private final int status;

        CallbackRefusedException(String url, int status) {
            super("callback " + url + " answered HTTP " + status, null, false, false);
            this.status = status;
        }

        public int status() {
            return status;
        }
    }
}
