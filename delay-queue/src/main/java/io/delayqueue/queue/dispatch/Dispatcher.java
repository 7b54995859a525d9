package io.delayqueue.queue.dispatch;

import io.delayqueue.common.Job;
import java.net.URI;
import java.util.concurrent.CompletionStage;

/**
 * Hands a due job to its receiver. The returned stage completes normally only once the receiver
 * confirmed the job (RocketMQ {@code SEND_OK}, a synchronous persistent ActiveMQ send, an HTTP 2xx, a
 * line written to the console); only then is the job marked {@code FINISHED}. A stage completed
 * exceptionally schedules a retry.
 *
 * <p>Implementations must not block the calling thread for long: the caller is a shard scanner. Slow sends
 * belong on the dispatcher's own bounded pool.
 */
public interface Dispatcher extends AutoCloseable {

    /** The routing name ({@code delay.dispatch.topics.<topic>=<name>}). */
    String name();

    CompletionStage<Void> dispatch(Job job);

    /**
     * Whether each job routed here must carry a {@code url} (its callback address): a push of such a job without
     * one is refused, naming {@code url}, before anything is written.
     */
    default boolean needsUrl() {
        return false;
    }

    /**
     * Why this dispatcher, one that {@linkplain #needsUrl needs a url}, would not call {@code url} (an absolute
     * http(s) URL), worded to follow the field's name ({@code "names host ..."}); null when it would. Asked for every
     * pushed job that carries a url: a push of one it refuses is answered 400 naming {@code url}.
     */
    default String urlRefusal(URI url) {
        return null;
    }

    @Override
    default void close() {}
}
