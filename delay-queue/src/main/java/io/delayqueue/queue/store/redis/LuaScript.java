package io.delayqueue.queue.store.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;
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
