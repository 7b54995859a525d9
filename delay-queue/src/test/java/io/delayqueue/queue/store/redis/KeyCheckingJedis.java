package io.delayqueue.queue.store.redis;

import io.delayqueue.queue.testing.RedisFixture;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * A client that checks, around each script run, that the keys it changed are among those it declared (it takes a
 * copy, {@code DUMP}, of every key of the pattern before and after the run), and records the KEYS of each run that
 * Redis answered. It sees single runs only, not pipelines.
 */
final class KeyCheckingJedis extends JedisPooled {
    private final String pattern;
    private final List<String> violations = new CopyOnWriteArrayList<>();
    private final List<List<String>> keysOfRuns = new CopyOnWriteArrayList<>();
    private int runs;

    KeyCheckingJedis(String pattern) {
        super(RedisFixture.HOST, RedisFixture.PORT);
        this.pattern = pattern;
    }

    List<String> violations() {
        return violations;
    }

    int runs() {
        return runs;
    }

    /** The KEYS of each run Redis answered (not one it refused, such as a NOSCRIPT), in order. */
    List<List<String>> keysOfRuns() {
        return keysOfRuns;
    }

    @Override
    public Object evalsha(String sha1, List<String> keys, List<String> args) {
        Map<String, byte[]> before = snapshot();
        try {
            Object reply = super.evalsha(sha1, keys, args);
            keysOfRuns.add(List.copyOf(keys));
            return reply;
        } finally {
            check(before, keys, args);
        }
    }

    @Override
    public Object eval(String script, List<String> keys, List<String> args) {
        Map<String, byte[]> before = snapshot();
        try {
            Object reply = super.eval(script, keys, args);
            keysOfRuns.add(List.copyOf(keys));
            return reply;
        } finally {
            check(before, keys, args);
        }
    }

    private void check(Map<String, byte[]> before, List<String> keys, List<String> args) {
        runs++;
        Map<String, byte[]> after = snapshot();
        Set<String> changed = new HashSet<>();
        Set<String> all = new HashSet<>(before.keySet());
        all.addAll(after.keySet());
        for (String key : all) {
            byte[] was = before.get(key);
            byte[] is = after.get(key);
            if (was == null || is == null || !Arrays.equals(was, is)) {
                changed.add(key);
            }
        }
        changed.removeAll(keys);
        if (!changed.isEmpty()) {
            violations.add("a run with KEYS " + keys + " (ARGV " + args + ") changed " + changed);
        }
    }

    private Map<String, byte[]> snapshot() {
        List<String> found = new ArrayList<>();
        ScanParams params = new ScanParams().match(pattern).count(1000);
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
            ScanResult<String> page = scan(cursor, params);
            found.addAll(page.getResult());
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        Map<String, byte[]> values = new HashMap<>();
        for (String key : found) {
            byte[] dump = dump(key);
            if (dump != null) {
                values.put(key, dump);
            }
        }
        return values;
    }
}
