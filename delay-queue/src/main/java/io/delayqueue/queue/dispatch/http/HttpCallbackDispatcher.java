package io.delayqueue.queue.dispatch.http;

import io.delayqueue.common.Job;
import io.delayqueue.common.JsonCodec;
import io.delayqueue.queue.dispatch.DispatchRejectedException;
import io.delayqueue.queue.dispatch.Dispatcher;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hc.client5.http.async.AsyncExecCallback;
import org.apache.hc.client5.http.async.AsyncExecChain;
import org.apache.hc.client5.http.async.methods.SimpleHttpRequest;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.ChainElement;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManagerBuilder;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.concurrent.FutureCallback;
import org.apache.hc.core5.http.ConnectionRequestTimeoutException;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.nio.AsyncEntityProducer;
import org.apache.hc.core5.http2.HttpVersionPolicy;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.reactor.IOReactorConfig;
import org.apache.hc.core5.util.DeadlineTimeoutException;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;

/**
 * POSTs each due job as JSON to the job's {@code url}; the send is confirmed by a 2xx answer and by
 * nothing else (a redirect, a 4xx, a 5xx, a refused connection or a timeout is a failed attempt that
 * follows the retry ladder). Headers {@code X-Delay-Job-Id}, {@code X-Delay-Topic} and {@code
 * X-Delay-Attempt} let the receiver deduplicate: delivery is at least once. A topic with signing secrets ({@code
 * delay.http.signing.*}) has its callbacks signed as Standard Webhooks are ({@link CallbackSigner}): {@code
 * webhook-id} (the job id), {@code webhook-timestamp} (each send's own) and {@code webhook-signature}, made when the
 * callback is handed to the client, after any wait for a connection slot.
 *
 * <p>Built on Apache HttpClient 5's asynchronous client: one client for every callback, non-blocking I/O on one
 * reactor thread, and a pool of kept-alive HTTP/1.1 connections per host (scheme, host, port) that are reused, never
 * one connection per job. (The JDK's {@code java.net.http.HttpClient} hands every response to {@code
 * CompletableFuture}'s default executor, which on a machine with fewer than three cores starts a new thread per
 * task: one thread per callback.) At most {@code max-connections-per-host} callbacks are open at once to one host
 * ({@link HostLimiter}), counted per route as the pool counts them ({@link #route}: {@code http://hooks/}, {@code
 * http://HOOKS/} and {@code http://hooks:80/} are one host); more wait for one of them, so a host that hangs holds
 * only its own callbacks, each until its read timeout, never a thread. A callback that waited so long for a
 * connection that its reservation could expire is turned away unsent ({@link DispatchRejectedException}); the
 * engine puts it back. Its wait is bounded twice over, since the limiter hands a slot on as soon as a callback is
 * answered, which can be just before the pool has its connection back: the pool's lease gives up at what is left
 * of the wait ({@code connectionRequestTimeout}; the asynchronous pool looks at it only when a connection comes
 * or goes), and a callback leased too late is failed unsent at the last step before the request is written (the
 * connection's own connect timeout aside). A callback is never sent past its share of {@code
 * delay.dispatch.timeout}, so a job is not sent again by a second reservation while its first send is under way. Outcomes are completed on two threads of the dispatcher's own ({@code delay-http-N}), never on the
 * reactor's, since settling one may write to Redis.
 */
public final class HttpCallbackDispatcher implements Dispatcher {
    public static final String NAME = "http";
    /** The wait for a connection of a dispatcher made without one. */
    public static final Duration DEFAULT_MAX_QUEUE_WAIT = Duration.ofSeconds(5);

    /** The context attribute that holds the last {@link System#nanoTime()} at which a callback may be written. */
    private static final String SEND_BY = "io.delayqueue.http.send-by";

    /** JSON in UTF-8, as RFC 8259 has it: no charset parameter. */
    private static final ContentType JSON = ContentType.create("application/json");

    private final HttpCallbackSettings settings;
    private final ExecutorService executor;
    private final CloseableHttpAsyncClient client;
    private final HostLimiter hosts;
    private final long maxQueueWaitNanos;
    private final RequestConfig requestConfig;
    private final CallbackSigner signer;

    /** Callbacks wait at most {@link #DEFAULT_MAX_QUEUE_WAIT} for a connection. */
    public HttpCallbackDispatcher(HttpCallbackSettings settings) {
        this(settings, DEFAULT_MAX_QUEUE_WAIT);
    }

    /**
     * @param maxQueueWait longest a callback waits for a connection to its host before it is turned away unsent
     *     (see {@link io.delayqueue.queue.dispatch.BlockingSendPool#maxQueueWait})
     */
    public HttpCallbackDispatcher(HttpCallbackSettings settings, Duration maxQueueWait) {
        this(settings, maxQueueWait, Clock.systemUTC());
    }

    /**
     * @param maxQueueWait longest a callback waits for a connection to its host before it is turned away unsent
     * @param clock the time of each signature's {@code webhook-timestamp}
     */
    public HttpCallbackDispatcher(HttpCallbackSettings settings, Duration maxQueueWait, Clock clock) {
        this.settings = settings;
        this.signer = new CallbackSigner(settings.signing(), clock);
        this.hosts = new HostLimiter(settings.maxConnectionsPerHost(), maxQueueWait.toNanos(), System::nanoTime);
        this.maxQueueWaitNanos = maxQueueWait.toNanos();
        AtomicInteger threads = new AtomicInteger();
        this.executor = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "delay-http-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        Timeout readTimeout = Timeout.of(settings.readTimeout());
        this.requestConfig = RequestConfig.custom()
                .setResponseTimeout(readTimeout)
                .setRedirectsEnabled(false)
                .build();
        this.client = HttpAsyncClients.custom()
                .setConnectionManager(PoolingAsyncClientConnectionManagerBuilder.create()
                        // the HostLimiter keeps each route within its share; the pool makes a callback wait only
                        // while a connection is on its way back
                        .setMaxConnPerRoute(settings.maxConnectionsPerHost())
                        .setMaxConnTotal(Integer.MAX_VALUE)
                        .setDefaultConnectionConfig(ConnectionConfig.custom()
                                .setConnectTimeout(Timeout.of(settings.connectTimeout()))
                                .setSocketTimeout(readTimeout)
                                .setTimeToLive(TimeValue.ofMinutes(5))
                                .build())
                        .build())
                .setIOReactorConfig(IOReactorConfig.custom()
                        .setIoThreadCount(1)
                        .setSoTimeout(readTimeout)
                        .build())
                .setDefaultRequestConfig(requestConfig)
                .addExecInterceptorBefore(
                        ChainElement.MAIN_TRANSPORT.name(), SEND_BY, HttpCallbackDispatcher::sendInTime)
                .setVersionPolicy(HttpVersionPolicy.FORCE_HTTP_1)
                .disableRedirectHandling()
                .disableAutomaticRetries()
                .disableCookieManagement()
                .disableAuthCaching()
                .evictIdleConnections(TimeValue.ofSeconds(30))
                .setThreadFactory(r -> {
                    Thread t = new Thread(r, "delay-http-io");
                    t.setDaemon(true);
                    return t;
                })
                .build();
        client.start();
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

    /** A url whose host {@code delay.http.allowed-hosts} does not allow is refused at the push, naming it. */
    @Override
    public String urlRefusal(URI url) {
        return settings.allowedHosts().refusal(url);
    }

    @Override
    public CompletionStage<Void> dispatch(Job job) {
        if (job.url() == null) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "job " + job.id() + " of topic " + job.topic() + " has no url to call back"));
        }
        SimpleHttpRequest request;
        URI uri;
        byte[] body;
        try {
            uri = URI.create(job.url());
            if (uri.getScheme() == null || uri.getHost() == null) {
                throw new IllegalArgumentException("not an absolute http(s) url: " + job.url());
            }
            // pushed before delay.http.allowed-hosts was narrowed: never called
            String refused = urlRefusal(uri);
            if (refused != null) {
                throw new IllegalArgumentException("url " + refused);
            }
            body = JsonCodec.write(job).getBytes(StandardCharsets.UTF_8);
            request = SimpleRequestBuilder.post(uri)
                    .setBody(body, JSON)
                    .addHeader("X-Delay-Job-Id", job.id())
                    .addHeader("X-Delay-Topic", job.topic())
                    .addHeader("X-Delay-Attempt", Integer.toString(job.attempts() + 1))
                    .build();
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(
                    new IllegalArgumentException("job " + job.id() + " has an unusable url: " + e.getMessage(), e));
        }
        long queuedAt = System.nanoTime();
        return hosts.submit(route(uri), () -> post(job, request, body, queuedAt));
    }

    /**
     * The connection pool's route of {@code url}, the per-host limit's key: scheme and host in lower case and the
     * port given, the scheme's default when the url has none ({@code http://HOOKS/} is {@code http://hooks:80}).
     */
    static String route(URI url) {
        String scheme = url.getScheme().toLowerCase(Locale.ROOT);
        int port = url.getPort() >= 0 ? url.getPort() : scheme.equals("https") ? 443 : 80;
        return scheme + "://" + url.getHost().toLowerCase(Locale.ROOT) + ":" + port;
    }

    /** The exchange's last step before the request is written: a callback leased past its wait is not sent. */
    private static void sendInTime(
            HttpRequest request,
            AsyncEntityProducer entity,
            AsyncExecChain.Scope scope,
            AsyncExecChain chain,
            AsyncExecCallback callback)
            throws HttpException, IOException {
        if (scope.clientContext.getAttribute(SEND_BY) instanceof Long sendBy && System.nanoTime() - sendBy > 0) {
            callback.failed(new DispatchRejectedException("callback " + request.getRequestUri() + " to "
                    + scope.route.getTargetHost() + " got its connection too late to be sent within its"
                    + " reservation; not sent"));
            return;
        }
        chain.proceed(request, entity, scope, callback);
    }

    /**
     * @param queuedAt when the callback was submitted: it waits for a connection (the limiter's slot, then the
     *     pool's lease) at most {@code maxQueueWait} from then, and is written within its connect timeout after
     */
    private CompletableFuture<Void> post(Job job, SimpleHttpRequest request, byte[] body, long queuedAt) {
        CallbackSigner.Signature signature = signer.sign(job.topic(), job.id(), body);
        if (signature != null) {
            request.setHeader(CallbackSigner.ID, signature.id());
            request.setHeader(CallbackSigner.TIMESTAMP, Long.toString(signature.timestamp()));
            request.setHeader(CallbackSigner.SIGNATURE, signature.signature());
        }
        long leaseBy = queuedAt + maxQueueWaitNanos;
        HttpClientContext context = HttpClientContext.create();
        context.setRequestConfig(RequestConfig.copy(requestConfig)
                .setConnectionRequestTimeout(
                        Timeout.of(Math.max(leaseBy - System.nanoTime(), 1_000_000), TimeUnit.NANOSECONDS))
                .build());
        context.setAttribute(SEND_BY, leaseBy + settings.connectTimeout().toNanos());
        CompletableFuture<Void> result = new CompletableFuture<>();
        client.execute(request, context, new FutureCallback<SimpleHttpResponse>() {
            @Override
            public void completed(SimpleHttpResponse response) {
                int status = response.getCode();
                if (status < 200 || status > 299) {
                    failed(new CallbackRefusedException(job.url(), status));
                } else {
                    settle(() -> result.complete(null));
                }
            }

            @Override
            public void failed(Exception e) {
                Exception cause = e;
                if (e instanceof DeadlineTimeoutException || e instanceof ConnectionRequestTimeoutException) {
                    cause = new DispatchRejectedException("callback " + job.url() + " waited "
                            + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - queuedAt)
                            + " ms for a connection; not sent");
                } else if (e instanceof SocketTimeoutException) {
                    // the client's own message names only the timeout, in nanoseconds
                    cause = new SocketTimeoutException(
                            "callback " + job.url() + " did not answer within " + settings.readTimeout());
                    cause.initCause(e);
                }
                Exception failure = cause;
                settle(() -> result.completeExceptionally(failure));
            }

            @Override
            public void cancelled() {
                failed(new java.util.concurrent.CancellationException("callback " + job.url() + " was cancelled"));
            }
        });
        return result;
    }

    /** Completes an outcome off the reactor thread (inline once the dispatcher is closing). */
    private void settle(Runnable completion) {
        try {
            executor.execute(completion);
        } catch (RejectedExecutionException closing) {
            completion.run();
        }
    }

    @Override
    public void close() {
        client.close(CloseMode.GRACEFUL);
        executor.shutdown();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
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
