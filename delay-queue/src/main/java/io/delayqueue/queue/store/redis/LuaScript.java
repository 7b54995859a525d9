package io.delayqueue.queue.store.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

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

    Object run(UnifiedJedis redis, List<String> keys, List<String> args) {
        try {
            return redis.evalsha(sha, keys, args);
        } catch (JedisNoScriptException e) {
            return redis.eval(source, keys, args);
        }
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
     */
    List<Object> runAll(UnifiedJedis redis, List<Call> calls) {
        if (calls.isEmpty()) {
            return List.of();
        }
        if (calls.size() == 1) {
            return List.of(run(redis, calls.get(0).keys(), calls.get(0).args()));
        }
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
                if (!String.valueOf(e.getMessage()).startsWith("NOSCRIPT")) {
                    reply = e;
                } else {
                    try {
                        reply = redis.eval(
                                source, calls.get(i).keys(), calls.get(i).args());
                    } catch (JedisException resendFailed) {
                        reply = resendFailed;
                    }
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
