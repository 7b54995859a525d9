package io.delayqueue.common;

import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import java.util.zip.CRC32;

/**
 * Job ids and the shard each one belongs to.
 *
 * <p>A generated id ({@link Generator}) is 14 characters of {@code [0-9a-z]}, for instance {@code
 * 073ur6gjefe0ao}: a 72-bit number in base 36, left-padded with {@code 0}, made of the milliseconds since
 * {@link #EPOCH_MILLIS} (41 bits), the generator's node (19 bits) and a sequence (12 bits), in that order, so
 * ids sort roughly by creation time. It is short on purpose: Redis (jemalloc) keeps a string of up to 14
 * characters in a 16-byte allocation instead of a 32-byte one, and a pending job holds its id twice (pool
 * field and bucket member). Its node is a number no other live instance holds, so ids are unique across
 * instances without coordination per id.
 *
 * <p>Every id is placed in its shard by a CRC32 of the id ({@link #shardOf}), generated or client-supplied
 * (pattern {@link #CLIENT_ID}), so any node finds a job's keys from its id alone. The one exception is the
 * form earlier versions generated, {@code <shard>-<time><random>} ({@code (\d{1,5})-[0-9a-z]{12,40}}): it still
 * names its own shard, so jobs pushed before an upgrade are found where they are. Both rules depend on the
 * shard count: changing {@code delay.shards} on a live queue strands jobs, so don't.
 */
public final class JobIds {
    /** What a client may choose as a job id. */
    public static final Pattern CLIENT_ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

    /**
     * Whether {@code id} matches {@link #CLIENT_ID}, checked without a regex: a batch finish checks a thousand ids
     * per request, where the matcher showed in the profile.
     */
    public static boolean isClientId(String id) {
        int n = id.length();
        if (n < 1 || n > 128) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char c = id.charAt(i);
            boolean allowed = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '.'
                    || c == '_'
                    || c == ':'
                    || c == '-';
            if (!allowed) {
                return false;
            }
        }
        return true;
    }

    /** The time generated ids count from: 2026-01-01T00:00:00Z, in epoch milliseconds. */
    public static final long EPOCH_MILLIS = 1_767_225_600_000L;

    /** The length of a generated id. */
    public static final int GENERATED_LENGTH = 14;

    private static final int TIME_BITS = 41;
    private static final int NODE_BITS = 19;
    private static final int SEQUENCE_BITS = 12;

    /** How many node numbers there are: a {@link Generator}'s node is in {@code [0, NODES)}. */
    public static final int NODES = 1 << NODE_BITS;

    /** The last millisecond (since {@link #EPOCH_MILLIS}) an id can hold, in September 2095. */
    static final long MAX_TIME = (1L << TIME_BITS) - 1;

    /** The largest generator state, {@code time << SEQUENCE_BITS | sequence}. */
    private static final long MAX_STATE = (1L << (TIME_BITS + SEQUENCE_BITS)) - 1;

    private static final char[] DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz".toCharArray();
    /** 36^7: a generated id is two halves of seven digits, each below this. */
    private static final long HALF = 78_364_164_096L;
    /** 2^51 = TWO_51_QUOTIENT * HALF + TWO_51_REMAINDER. */
    private static final long TWO_51_QUOTIENT = (1L << 51) / HALF;

    private static final long TWO_51_REMAINDER = (1L << 51) % HALF;

    private JobIds() {}

    /**
     * Makes unique, increasing ids for one node. Lock-free and thread-safe.
     *
     * <p>Its state is the last {@code (time << 12 | sequence)} handed out; the next id takes the larger of
     * that plus one and the current millisecond with sequence 0. So ids of one generator never repeat and
     * always increase, even when the clock goes back or more than 4096 ids are made in a millisecond: the
     * generator then runs ahead of the clock and the clock catches up later. Times before {@link
     * #EPOCH_MILLIS} count as the epoch itself; times after the last representable millisecond (in 2095)
     * count as that millisecond, and a generator that has used up the last one throws.
     */
    public static final class Generator {
        private final int node;
        private final AtomicLong last = new AtomicLong(-1);

        /** @param node a number in {@code [0, NODES)} that no other live generator of the queue uses */
        public Generator(int node) {
            if (node < 0 || node >= NODES) {
                throw new IllegalArgumentException("node must be in [0, " + NODES + "): " + node);
            }
            this.node = node;
        }

        public int node() {
            return node;
        }

        /**
         * A new id, at {@code nowMillis} or, if this generator is ahead of it, just after its last id.
         *
         * @throws IllegalStateException once the last millisecond ids can hold is used up
         */
        public String next(long nowMillis) {
            long floor = timeSinceEpoch(nowMillis) << SEQUENCE_BITS;
            long previous;
            long state;
            do {
                previous = last.get();
                state = Math.max(previous + 1, floor);
                if (state > MAX_STATE) {
                    throw new IllegalStateException("job ids of node " + node + " are used up (year 2095)");
                }
            } while (!last.compareAndSet(previous, state));
            return format(state, node);
        }
    }

    /** The id a generator of {@code node} makes at {@code msSinceEpoch} with {@code sequence}. */
    static String encode(long msSinceEpoch, int node, int sequence) {
        if (msSinceEpoch < 0 || msSinceEpoch > MAX_TIME) {
            throw new IllegalArgumentException("time out of range: " + msSinceEpoch);
        }
        if (node < 0 || node >= NODES || sequence < 0 || sequence >= 1 << SEQUENCE_BITS) {
            throw new IllegalArgumentException("node " + node + " or sequence " + sequence + " out of range");
        }
        return format(msSinceEpoch << SEQUENCE_BITS | sequence, node);
    }

    private static long timeSinceEpoch(long nowMillis) {
        return nowMillis <= EPOCH_MILLIS ? 0 : Math.min(nowMillis - EPOCH_MILLIS, MAX_TIME);
    }

    /**
     * The base-36 digits of {@code time << 31 | node << 12 | sequence} (72 bits), with two longs: the number is
     * {@code t1 * 2^51 + x}, split by {@code 36^7} into a high and a low half of seven digits each.
     */
    private static String format(long state, int node) {
        long time = state >>> SEQUENCE_BITS;
        long low = (long) node << SEQUENCE_BITS | (state & ((1 << SEQUENCE_BITS) - 1)); // 31 bits
        long t1 = time >>> 20; // 21 bits
        long x = (time & ((1 << 20) - 1)) << 31 | low; // 51 bits
        long rest = t1 * TWO_51_REMAINDER + x; // < 2^21 * 36^7 + 2^51 < 2^58
        long high = t1 * TWO_51_QUOTIENT + rest / HALF;
        long lowHalf = rest % HALF;
        char[] id = new char[GENERATED_LENGTH];
        for (int i = GENERATED_LENGTH - 1; i >= GENERATED_LENGTH / 2; i--) {
            id[i] = DIGITS[(int) (lowHalf % 36)];
            lowHalf /= 36;
        }
        for (int i = GENERATED_LENGTH / 2 - 1; i >= 0; i--) {
            id[i] = DIGITS[(int) (high % 36)];
            high /= 36;
        }
        return new String(id);
    }

    /**
     * The shard of {@code id} among {@code shards}: a CRC32 of the id, or for an id of the old generated form
     * {@code <shard>-...} the shard it names, if that is below {@code shards}.
     */
    public static int shardOf(String id, int shards) {
        int named = shardNamedBy(id);
        if (named >= 0 && named < shards) {
            return named;
        }
        byte[] bytes = new byte[id.length() * 2];
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            bytes[2 * i] = (byte) (c >>> 8);
            bytes[2 * i + 1] = (byte) c;
        }
        CRC32 crc = new CRC32();
        crc.update(bytes);
        return (int) (crc.getValue() % shards);
    }

    /**
     * The shard an id of the form earlier versions generated, {@code (\d{1,5})-[0-9a-z]{12,40}}, names; -1 for
     * any other id (every id generated now, which has no {@code '-'}).
     */
    private static int shardNamedBy(String id) {
        int dash = id.indexOf('-');
        if (dash < 1 || dash > 5) {
            return -1;
        }
        int rest = id.length() - dash - 1;
        if (rest < 12 || rest > 40) {
            return -1;
        }
        int shard = 0;
        for (int i = 0; i < dash; i++) {
            char c = id.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            shard = shard * 10 + (c - '0');
        }
        for (int i = dash + 1; i < id.length(); i++) {
            char c = id.charAt(i);
            if ((c < '0' || c > '9') && (c < 'a' || c > 'z')) {
                return -1;
            }
        }
        return shard;
    }
}
