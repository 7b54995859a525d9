package io.delayqueue.queue.testing;

import io.delayqueue.common.JobIds;
import java.util.concurrent.ThreadLocalRandom;

/** Generated job ids for tests, unique within the test JVM. */
public final class TestIds {
    private static final JobIds.Generator IDS =
            new JobIds.Generator(ThreadLocalRandom.current().nextInt(JobIds.NODES));

    private TestIds() {}

    /** A new generated id. */
    public static String next() {
        return IDS.next(System.currentTimeMillis());
    }

    /** A new generated id that {@link JobIds#shardOf} places in {@code shard} of {@code shards}. */
    public static String inShard(int shard, int shards) {
        while (true) {
            String id = next();
            if (JobIds.shardOf(id, shards) == shard) {
                return id;
            }
        }
    }
}
