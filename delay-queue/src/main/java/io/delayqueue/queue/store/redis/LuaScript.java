package io.delayqueue.queue.store.redis;

import dev.failsafe.Failsafe;
import dev.failsafe.RetryPolicy;
import io.delayqueue.queue.store.StoreListener;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.exceptions.JedisRedirectionException;

/**
 * One script of the store, run by EVALSHA. The server caches scripts by SHA1; after a restart or a
 * {@code SCRIPT FLUSH} it answers NOSCRIPT, and the script is sent once in full with EVAL, which caches it
 * again.
 */
final class LuaScript {
    private static final String PRELUDE = resource("lib.lua");

    private final String name;
    private final String source;
    private final String sha;
    private volatile StoreListener listener = StoreListener.NONE;

    private LuaScript(String name, String source) {
        this.name = name;
        this.source = source;
        this.sha = sha1(source);
    }

    /**
     * The script as Redis runs it: the prelude, then the script as the body of a function (its returns end
     * that function), then the prelude's {@code flush_counts}, so that no script can forget to write the
     * status counts it changed.
     */
    static LuaScript load(String name) {
        return new LuaScript(
                name,
                PRELUDE + "\nlocal function main()\n" + resource(name + ".lua")
                        + "\nend\nlocal result = main()\nflush_counts()\nreturn result\n");
    }

    String name() {
        return name;
    }

    /** Who hears each {@link #run} and {@link #runAll} of this script, with the time it took. */
    void setListener(StoreListener listener) {
        this.listener = listener == null ? StoreListener.NONE : listener;
    }

    StoreListener listener() {
        return listener;
    }

    private <T> T timed(java.util.function.Supplier<T> call) {
        long started = System.nanoTime();
        boolean failed = true;
        try {
            T result = call.get();
            failed = false;
            return result;
        } finally {
            listener.roundTrip(name, System.nanoTime() - started, failed);
        }
    }

    /**
     * One run. In a cluster, {@code JedisCluster} follows MOVED (renewing its slot cache) and ASK itself; a
     * TRYAGAIN (the shard's slot is being migrated and its keys are split between the nodes, or some of the
     * script's keys do not exist yet) is tried again until the migration is through, within {@link
     * #MIGRATION_RETRY}. A redirected or TRYAGAIN call was not run: trying it again runs it once.
     */
    Object run(UnifiedJedis redis, List<String> keys, List<String> args) {
        return timed(() -> runFollowingRedirects(redis, keys, args));
    }

    private Object runFollowingRedirects(UnifiedJedis redis, List<String> keys, List<String> args) {
        try {
            return runOnce(redis, keys, args);
        } catch (JedisDataException e) {
            if (!isTryAgain(e)) {
                throw e;
            }
            return Failsafe.with(MIGRATION_RETRY).get(() -> runOnce(redis, keys, args));
        }
    }

    private Object runOnce(UnifiedJedis redis, List<String> keys, List<String> args) {
        try {
            return redis.evalsha(sha, keys, args);
        } catch (JedisNoScriptException e) {
            return redis.eval(source, keys, args);
        }
    }

    private static final RetryPolicy<Object> MIGRATION_RETRY = RetryPolicy.builder()
            .handleIf(LuaScript::isTryAgain)
            .withBackoff(Duration.ofMillis(5), Duration.ofMillis(200))
            .withMaxDuration(Duration.ofSeconds(5))
            .withMaxRetries(-1)
            .build();

    private static boolean isTryAgain(Throwable e) {
        return e instanceof JedisDataException && String.valueOf(e.getMessage()).startsWith("TRYAGAIN");
    }

    /** The arguments of one run: its keys and its arguments. */
    record Call(List<String> keys, List<String> args) {}

    /**
     * Runs the script once per call, all calls in one pipeline (one round trip, even when the calls are in
     * different shards and, in a cluster, on different nodes); the replies in the order of the calls. A call
     * answered NOSCRIPT is sent again in full. The calls are independent: each is atomic on its own, as
     * every script run is. A call that Redis answered with an error (or whose resend failed) has the {@link
     * JedisException} as its reply, so that one failed call fails only its own; a failure of the pipeline as a
     * whole (the connection) is thrown.
     *
     * <p>In a cluster, Jedis's pipeline sends each call to the node its slot cache names, and neither follows
     * a MOVED or ASK reply nor renews the cache; such a call (and one answered TRYAGAIN while its slot
     * migrates) was not run, so it is run again alone by {@link #run}, which follows the redirect and renews
     * the cache for the next pipelines. Only calls redirected pay that round trip; each call still runs once.
     */
    List<Object> runAll(UnifiedJedis redis, List<Call> calls) {
        if (calls.isEmpty()) {
            return List.of();
        }
        if (calls.size() == 1) {
            return List.of(run(redis, calls.get(0).keys(), calls.get(0).args()));
        }
        return timed(() -> runPipelined(redis, calls));
    }

    private List<Object> runPipelined(UnifiedJedis redis, List<Call> calls) {
        List<Response<Object>> responses = new ArrayList<>(calls.size());
        try (AbstractPipeline pipeline = redis.pipelined()) {
            for (Call call : calls) {
                responses.add(pipeline.evalsha(sha, call.keys(), call.args()));
            }
            pipeline.sync();
        }
        List<Object> replies = new ArrayList<>(calls.size());
        for (int i = 0; i < calls.size(); i++) {
            Object reply;
            try {
                reply = responses.get(i).get();
            } catch (JedisDataException e) {
                try {
                    if (e instanceof JedisRedirectionException || isTryAgain(e)) {
                        reply = runFollowingRedirects(
                                redis, calls.get(i).keys(), calls.get(i).args());
                    } else if (String.valueOf(e.getMessage()).startsWith("NOSCRIPT")) {
                        reply = redis.eval(
                                source, calls.get(i).keys(), calls.get(i).args());
                    } else {
                        reply = e;
                    }
                } catch (JedisException resendFailed) {
                    reply = resendFailed;
                }
            }
            replies.add(reply);
        }
        return replies;
    }

    private static String resource(String file) {
        try (InputStream in = LuaScript.class.getResourceAsStream(file)) {
            if (in == null) {
                throw new IllegalStateException("missing script resource " + file);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String sha1(String text) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
