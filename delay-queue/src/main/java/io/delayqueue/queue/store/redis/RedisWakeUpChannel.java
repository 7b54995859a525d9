package io.delayqueue.queue.store.redis;

import io.delayqueue.queue.coordination.WakeUpChannel;
import java.util.Collection;
import java.util.Iterator;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * {@link WakeUpChannel} over Redis pub/sub, on the channel {@code <prefix>:wake}. Works on a single node,
 * through Sentinel (the subscription follows the master after a fail-over) and on Redis Cluster (whose
 * {@code PUBLISH} reaches the subscribers of every node).
 *
 * <p>Publishing only records the wish: a publisher thread sends whatever has accumulated as one message,
 * the earliest due time per shard plus the ready topics, so a burst of pushes costs a few messages and the
 * pushing thread never waits for Redis. A message reads {@code <origin> s<shard>:<dueAt> ... r<topic> ...};
 * an instance ignores its own.
 *
 * <p>The subscriber thread re-subscribes after a lost connection and then asks the listener to
 * {@link Listener#resynchronize() resynchronize}, for whatever was published meanwhile.
 */
public final class RedisWakeUpChannel implements WakeUpChannel {
    private static final Logger log = LoggerFactory.getLogger(RedisWakeUpChannel.class);
    private static final long NONE = Long.MAX_VALUE;
    private static final long MAX_RETRY_MS = 2_000;

    private final UnifiedJedis redis;
    private final String channel;
    private final String origin = UUID.randomUUID().toString().substring(0, 13);
    private final AtomicLongArray earliestDue;
    private final Set<String> readyTopics = ConcurrentHashMap.newKeySet();
    private final Object pending = new Object();
    private final Subscription subscription = new Subscription();
    private volatile Listener listener;
    private volatile boolean closed;
    private boolean signalled; // guarded by pending
    private Thread publisher;
    private Thread subscriber;

    public RedisWakeUpChannel(UnifiedJedis redis, String prefix, int shards) {
        this.redis = redis;
        this.channel = new RedisKeys(prefix).prefix() + ":wake";
        this.earliestDue = new AtomicLongArray(shards);
        for (int s = 0; s < shards; s++) {
            earliestDue.set(s, NONE);
        }
    }

    public String channel() {
        return channel;
    }

    /** Whether the subscription is up right now (messages published meanwhile reach this instance). */
    public boolean subscribed() {
        return subscription.isSubscribed();
    }

    @Override
    public void start(Listener listener) {
        this.listener = listener;
        publisher = daemon(this::publishUntilClosed, "delay-wake-publisher");
        subscriber = daemon(this::subscribeUntilClosed, "delay-wake-subscriber");
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    @Override
    public void publishScheduled(int shard, long dueAt) {
        long before = earliestDue.getAndAccumulate(shard, dueAt, Math::min);
        if (dueAt < before) {
            signal();
        }
    }

    @Override
    public void publishReady(Collection<String> topics) {
        if (readyTopics.addAll(topics)) {
            signal();
        }
    }

    private void signal() {
        synchronized (pending) {
            signalled = true;
            pending.notifyAll();
        }
    }

    private void publishUntilClosed() {
        long retryMs = 0;
        while (!closed) {
            synchronized (pending) {
                try {
                    while (!signalled && !closed) {
                        pending.wait();
                    }
                } catch (InterruptedException e) {
                    return;
                }
                signalled = false;
            }
            String message = drain();
            if (message == null) {
                continue;
            }
            try {
                redis.publish(channel, message);
                retryMs = 0;
            } catch (JedisException e) {
                // a hint lost: the receivers' own timers find the jobs a little later
                retryMs = retryMs == 0 ? 50 : Math.min(retryMs * 2, MAX_RETRY_MS);
                log.debug("could not publish a wake-up ({}), next try in {} ms", e.toString(), retryMs);
                pause(retryMs);
            }
        }
    }

    /** The accumulated wishes as one message, or {@code null} when there are none. */
    private String drain() {
        StringBuilder sb = new StringBuilder(origin);
        int start = sb.length();
        for (int s = 0; s < earliestDue.length(); s++) {
            long due = earliestDue.getAndSet(s, NONE);
            if (due != NONE) {
                sb.append(" s").append(s).append(':').append(due);
            }
        }
        for (Iterator<String> it = readyTopics.iterator(); it.hasNext(); ) {
            sb.append(" r").append(it.next());
            it.remove();
        }
        return sb.length() == start ? null : sb.toString();
    }

    private void subscribeUntilClosed() {
        long retryMs = 0;
        while (!closed) {
            try {
                redis.subscribe(subscription, channel);
                retryMs = 0;
            } catch (JedisException | IllegalStateException e) {
                if (closed) {
                    return;
                }
                retryMs = retryMs == 0 ? 50 : Math.min(retryMs * 2, MAX_RETRY_MS);
                log.warn("wake-up subscription to {} lost ({}), again in {} ms", channel, e.toString(), retryMs);
                pause(retryMs);
            }
        }
    }

    private void pause(long ms) {
        try {
            TimeUnit.MILLISECONDS.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    void receive(String message) {
        String[] parts = message.split(" ");
        if (parts.length == 0 || parts[0].equals(origin)) {
            return;
        }
        Listener l = listener;
        for (int i = 1; i < parts.length; i++) {
            String part = parts[i];
            try {
                if (part.startsWith("s")) {
                    int colon = part.indexOf(':');
                    int shard = Integer.parseInt(part.substring(1, colon));
                    if (shard >= 0 && shard < earliestDue.length()) {
                        l.scheduled(shard, Long.parseLong(part.substring(colon + 1)));
                    }
                } else if (part.startsWith("r") && part.length() > 1) {
                    l.ready(part.substring(1));
                }
            } catch (RuntimeException e) {
                log.debug("ignored a malformed wake-up '{}': {}", part, e.toString());
            }
        }
    }

    private final class Subscription extends JedisPubSub {
        @Override
        public void onSubscribe(String ch, int subscribedChannels) {
            if (closed) {
                unsubscribe();
                return;
            }
            log.debug("subscribed to wake-ups on {}", ch);
            listener.resynchronize();
        }

        @Override
        public void onMessage(String ch, String message) {
            receive(message);
        }
    }

    @Override
    public void close() {
        closed = true;
        signal();
        if (subscription.isSubscribed()) {
            try {
                subscription.unsubscribe();
            } catch (RuntimeException e) {
                log.debug("unsubscribing from {} failed: {}", channel, e.toString());
            }
        }
        join(publisher);
        join(subscriber);
    }

    private static void join(Thread t) {
        if (t == null) {
            return;
        }
        try {
            t.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
