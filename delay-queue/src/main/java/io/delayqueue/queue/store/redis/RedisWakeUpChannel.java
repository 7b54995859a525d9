package io.delayqueue.queue.store.redis;

import io.delayqueue.queue.coordination.WakeUpChannel;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * {@link WakeUpChannel} over Redis pub/sub. Works on a single node, through Sentinel (the subscription follows the
 * master after a fail-over) and on Redis Cluster (whose {@code PUBLISH} reaches the subscribers of every node).
 *
 * <p>Channels: a shard's wake-ups go to {@code <prefix>:wake:<shard>}, to which only the instance that scans the
 * shard subscribes ({@link Listener#owns}, looked at again on {@link #ownershipChanged} and every {@value
 * #FOLLOW_RECHECK_MS} ms), so that a push due soon costs one delivery however many instances there are, not one
 * per instance; ready topics go to {@code <prefix>:wake}, to which every instance subscribes (a consumer may wait
 * on any). When a shard's channel is subscribed anew, its scanner is woken once: a wake-up published before the
 * subscription took effect reached nobody, and the pass reads what it announced.
 *
 * <p>Publishing only records the wish: a publisher thread sends whatever has accumulated, the earliest due time
 * per shard to the shard's channel and the ready topics in one message, so a burst of pushes costs a few messages
 * and the pushing thread never waits for Redis. A message reads {@code <origin> s<shard>:<dueAt> ... r<topic>
 * ...}; an instance ignores its own.
 *
 * <p>The subscriber thread re-subscribes after a lost connection and then asks the listener to
 * {@link Listener#resynchronize() resynchronize}, for whatever was published meanwhile.
 */
public final class RedisWakeUpChannel implements WakeUpChannel {
    private static final Logger log = LoggerFactory.getLogger(RedisWakeUpChannel.class);
    private static final long NONE = Long.MAX_VALUE;
    private static final long MAX_RETRY_MS = 2_000;
    /** How often the shard channels followed are compared with the shards owned, besides on every change. */
    static final long FOLLOW_RECHECK_MS = 1_000;

    private final UnifiedJedis redis;
    private final String channel;
    private final String origin = UUID.randomUUID().toString().substring(0, 13);
    private final AtomicLongArray earliestDue;
    private final Set<String> readyTopics = ConcurrentHashMap.newKeySet();
    private final Object pending = new Object();
    private final Subscription subscription = new Subscription();
    /** Guards {@link #following} and every command sent on the subscription's connection from outside its thread. */
    private final Object subscriptions = new Object();
    /** Per shard: its channel is subscribed (or asked for) on the subscription's current connection. */
    private final boolean[] following;

    private final AtomicLong shardWakeUpsReceived = new AtomicLong();
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
        this.following = new boolean[shards];
    }

    /** The channel of the ready topics, which every instance follows. */
    public String channel() {
        return channel;
    }

    /** The channel of {@code shard}'s wake-ups, which its owner follows. */
    public String shardChannel(int shard) {
        return channel + ":" + shard;
    }

    /**
     * The wake-ups of shards this instance received so far (of any shard: owned when sent, or not any more), for
     * tests and diagnostics: with every shard's channel followed by its owner alone, the others receive none.
     */
    public long shardWakeUpsReceived() {
        return shardWakeUpsReceived.get();
    }

    /** The shards whose channels this instance follows now (asked for; Redis confirms them a moment later). */
    public Set<Integer> followedShards() {
        Set<Integer> shards = new java.util.TreeSet<>();
        synchronized (subscriptions) {
            for (int s = 0; s < following.length; s++) {
                if (following[s]) {
                    shards.add(s);
                }
            }
        }
        return shards;
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

    /**
     * The shards owned may have changed: follows the channels of those owned now and leaves the others'. Also done
     * every {@value #FOLLOW_RECHECK_MS} ms, since ownership can end and come back without a change being told.
     */
    @Override
    public void ownershipChanged() {
        followOwnedShards();
    }

    private void followOwnedShards() {
        Listener l = listener;
        if (l == null) {
            return;
        }
        synchronized (subscriptions) {
            // not subscribed: the subscriber thread follows the shards owned when it subscribes
            if (closed || !subscription.isSubscribed()) {
                return;
            }
            List<Integer> follow = new ArrayList<>();
            List<Integer> leave = new ArrayList<>();
            for (int s = 0; s < following.length; s++) {
                boolean owned = l.owns(s);
                if (owned != following[s]) {
                    (owned ? follow : leave).add(s);
                }
            }
            // each change is recorded once sent: one that fails is tried again at the next look
            try {
                if (!follow.isEmpty()) {
                    subscription.subscribe(
                            follow.stream().map(this::shardChannel).toArray(String[]::new));
                    follow.forEach(s -> following[s] = true);
                }
                if (!leave.isEmpty()) {
                    subscription.unsubscribe(
                            leave.stream().map(this::shardChannel).toArray(String[]::new));
                    leave.forEach(s -> following[s] = false);
                }
            } catch (JedisException | IllegalStateException e) {
                // the connection is going: the subscriber thread subscribes again, to the shards owned then
                log.debug("could not change the wake-up channels followed: {}", e.toString());
            }
        }
    }

    private void publishUntilClosed() {
        long retryMs = 0;
        long followedAt = System.nanoTime();
        while (!closed) {
            synchronized (pending) {
                try {
                    long deadline = followedAt + TimeUnit.MILLISECONDS.toNanos(FOLLOW_RECHECK_MS);
                    while (!signalled && !closed) {
                        long left = deadline - System.nanoTime();
                        if (left <= 0) {
                            break;
                        }
                        TimeUnit.NANOSECONDS.timedWait(pending, left);
                    }
                } catch (InterruptedException e) {
                    return;
                }
                signalled = false;
            }
            if (System.nanoTime() - followedAt >= TimeUnit.MILLISECONDS.toNanos(FOLLOW_RECHECK_MS)) {
                followedAt = System.nanoTime();
                followOwnedShards();
            }
            List<String[]> messages = drain();
            for (int i = 0; i < messages.size(); i++) {
                try {
                    redis.publish(messages.get(i)[0], messages.get(i)[1]);
                    retryMs = 0;
                } catch (JedisException e) {
                    // hints lost: the receivers' own timers find the jobs a little later
                    retryMs = retryMs == 0 ? 50 : Math.min(retryMs * 2, MAX_RETRY_MS);
                    log.debug("could not publish a wake-up ({}), next try in {} ms", e.toString(), retryMs);
                    pause(retryMs);
                    break;
                }
            }
        }
    }

    /**
     * The accumulated wishes as (channel, message) pairs: one per shard with a wish, to the shard's channel, and one
     * of the ready topics; none when there are no wishes.
     */
    private List<String[]> drain() {
        List<String[]> messages = new ArrayList<>();
        for (int s = 0; s < earliestDue.length(); s++) {
            long due = earliestDue.getAndSet(s, NONE);
            if (due != NONE) {
                messages.add(new String[] {shardChannel(s), origin + " s" + s + ':' + due});
            }
        }
        StringBuilder sb = new StringBuilder(origin);
        int start = sb.length();
        for (Iterator<String> it = readyTopics.iterator(); it.hasNext(); ) {
            sb.append(" r").append(it.next());
            it.remove();
        }
        if (sb.length() > start) {
            messages.add(new String[] {channel, sb.toString()});
        }
        return messages;
    }

    private void subscribeUntilClosed() {
        long retryMs = 0;
        while (!closed) {
            try {
                redis.subscribe(subscription, channelsToFollow());
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

    /** The ready topics' channel and those of the shards owned now, which a new subscription starts with. */
    private String[] channelsToFollow() {
        List<String> channels = new ArrayList<>();
        channels.add(channel);
        synchronized (subscriptions) {
            for (int s = 0; s < following.length; s++) {
                following[s] = listener.owns(s);
                if (following[s]) {
                    channels.add(shardChannel(s));
                }
            }
        }
        return channels.toArray(String[]::new);
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
                    shardWakeUpsReceived.incrementAndGet();
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
                synchronized (subscriptions) {
                    unsubscribe();
                }
                return;
            }
            log.debug("subscribed to wake-ups on {}", ch);
            if (ch.equals(channel)) {
                listener.resynchronize();
                return;
            }
            // a shard followed anew: what was published to its channel before reached nobody
            try {
                int shard = Integer.parseInt(ch.substring(channel.length() + 1));
                if (shard >= 0 && shard < earliestDue.length()) {
                    listener.scheduled(shard, Long.MIN_VALUE);
                }
            } catch (RuntimeException e) {
                listener.resynchronize();
            }
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
        synchronized (subscriptions) {
            if (subscription.isSubscribed()) {
                try {
                    subscription.unsubscribe();
                } catch (RuntimeException e) {
                    log.debug("unsubscribing from {} failed: {}", channel, e.toString());
                }
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
