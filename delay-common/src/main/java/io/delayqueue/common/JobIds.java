package io.delayqueue.common;

import java.security.SecureRandom;
import java.util.regex.Pattern;
import java.util.zip.CRC32;

/**
 * Job ids and the shard they carry.
 *
 * <p>A generated id reads {@code <shard>-<time><random>} (for instance {@code 3-lz4x1k2m9f0c3a7d1q}), so any
 * node finds a job's keys from its id alone. A client-supplied id (pattern {@link #CLIENT_ID}) that does
 * not have that shape is placed by a CRC32 of the id, which is just as deterministic. Both rules depend
 * on the shard count: changing {@code delay.shards} on a live queue strands jobs, so don't.
 */
public final class JobIds {
    /** What a client may choose as a job id. */
    public static final Pattern CLIENT_ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

    private static final Pattern GENERATED = Pattern.compile("(\\d{1,5})-[0-9a-z]{12,40}");
    private static final SecureRandom RANDOM = new SecureRandom();

    private JobIds() {}

    /** A new unique id for a job that lives in {@code shard}. */
    public static String generate(int shard, long nowMillis) {
        long random = RANDOM.nextLong() >>> 1;
        return shard + "-" + Long.toString(nowMillis, 36) + pad(Long.toString(random, 36), 13);
    }

    /** The shard of {@code id} among {@code shards}. */
    public static int shardOf(String id, int shards) {
        var m = GENERATED.matcher(id);
        if (m.matches()) {
            int shard = Integer.parseInt(m.group(1));
            if (shard < shards) {
                return shard;
            }
        }
        CRC32 crc = new CRC32();
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            crc.update(c >>> 8);
            crc.update(c);
        }
        return (int) (crc.getValue() % shards);
    }

    private static String pad(String s, int width) {
        return s.length() >= width ? s : "0".repeat(width - s.length()) + s;
    }
}
