package io.delayqueue.bench;

import java.time.Duration;

/**
 * One system under test. Each method is one run on a clean slate (its own Redis keys, empty journal tables),
 * removes what it wrote before it returns, and throws when the run failed. The harness calls the first run of
 * each kind as a discarded warm-up.
 */
interface BenchTarget extends AutoCloseable {

    /** The kinds of measurement, in the order the harness runs them. */
    enum Kind {
        PUSH_FEW,
        PUSH_SINGLE,
        PUSH_BATCH,
        CALLBACK_BURST,
        PULL_BURST,
        CALLBACK_LATENESS,
        CANARY,
        RETRY_STORM,
        BURST,
        LATENESS,
        MEMORY,
        PURGE,
        TIER_PUSH,
        TIER_LATENESS,
        TIER_MEMORY,
        SCALE_OUT,
        FULL_BURST,
        FULL_PENDING,
        FIRST_BURST,
        TAKE_OVER
    }

    /** Why a system does not measure the scale-out and full-size figures (issue 29, items 5 and 6). */
    String PACKAGED_ONLY = "the packaged service on MariaDB only";

    /** Why a system without tiers does not measure the tier figures. */
    String NO_TIERS = "keeps every pending job in Redis";

    /** Why the in-process engine does not measure the hand-over paths users take. */
    String OVER_HTTP = "measured over HTTP";

    /** Why this system does not measure {@code kind}, or null when it does. */
    default String notMeasured(Kind kind) {
        return switch (kind) {
            case TIER_PUSH, TIER_LATENESS, TIER_MEMORY -> NO_TIERS;
            case CALLBACK_BURST, PULL_BURST, CALLBACK_LATENESS, CANARY, RETRY_STORM -> OVER_HTTP;
            case SCALE_OUT, FULL_BURST, FULL_PENDING, FIRST_BURST, TAKE_OVER -> PACKAGED_ONLY;
            default -> null;
        };
    }

    /**
     * Jobs per second pushed one per call by {@code callers} concurrent callers ({@code jobsPerSecond}), and the
     * calls' latency ({@code callP50Ms}, {@code callP99Ms}).
     */
    RunResult pushSingle(int callers, Duration preRoll, Duration measure) throws Exception;

    /** Jobs per second pushed in batches ({@code jobsPerSecond}). */
    RunResult pushBatch(Duration preRoll, Duration measure) throws Exception;

    /**
     * Loads {@code jobs} jobs all due {@code leadMs} from now, then measures from that instant until the last
     * one was handed over ({@code jobsPerSecond}); {@code overran} in the details when loading took longer than
     * the lead.
     */
    RunResult burst(int jobs, long leadMs) throws Exception;

    /** Lateness of a steady load of {@code rate} jobs per second ({@code p50Ms}, {@code p99Ms}, {@code maxMs}). */
    RunResult lateness(int rate, Duration duration) throws Exception;

    /** Redis memory per pending job ({@code bytesPerJob}) with {@code jobs} pending jobs. */
    RunResult memory(int jobs) throws Exception;

    /**
     * Journal retention under load: {@code rows} final jobs (with three log rows each) older than the retention
     * are put straight into the journal, then single pushes are measured without a purge ({@code
     * pushJobsPerSecond}) and while a purge pass runs ({@code pushDuringPurgeJobsPerSecond}), and the pass's own
     * rate ({@code purgedJobsPerSecond}).
     */
    default RunResult purge(int rows, Duration warmUp, Duration measure) throws Exception {
        throw new UnsupportedOperationException("no journal");
    }

    /** Jobs per second pushed one per call, each due in 7 days: the journal tier only ({@code jobsPerSecond}). */
    default RunResult tierPush(Duration preRoll, Duration measure) throws Exception {
        throw new UnsupportedOperationException(NO_TIERS);
    }

    /**
     * Lateness of a steady load of {@code rate} jobs per second pushed beyond a short tier horizon, so that each is
     * loaded from the journal before it is due ({@code p50Ms}, {@code p99Ms}, {@code maxMs}).
     */
    default RunResult tierLateness(int rate, Duration duration) throws Exception {
        throw new UnsupportedOperationException(NO_TIERS);
    }

    /** Redis memory per pending job ({@code bytesPerJob}) with {@code jobs} jobs due in 7 days, tiers on. */
    default RunResult tierMemory(int jobs) throws Exception {
        throw new UnsupportedOperationException(NO_TIERS);
    }

    /**
     * {@code jobs} jobs due at one instant handed over through the {@code http} dispatcher to a local receiver
     * that answers at once ({@code jobsPerSecond} from the due instant to the last received, {@code lastLateMs}).
     */
    default RunResult callbackBurst(int jobs) throws Exception {
        throw new UnsupportedOperationException(OVER_HTTP);
    }

    /**
     * {@code jobs} jobs of a pull topic due at one instant, reserved and finished by {@code consumers} consumers
     * over HTTP ({@code jobsPerSecond}, {@code lastLateMs}).
     */
    default RunResult pullBurst(int jobs, int consumers) throws Exception {
        throw new UnsupportedOperationException(OVER_HTTP);
    }

    /**
     * A steady {@code rate} of one-job HTTP pushes, each received by the callback receiver at its due time:
     * lateness {@code p50Ms}, {@code p99Ms}, {@code maxMs}.
     */
    default RunResult callbackLateness(int rate, Duration duration) throws Exception {
        throw new UnsupportedOperationException(OVER_HTTP);
    }

    /**
     * A one-topic canary (push p99, lateness p99) beside {@code topics} other topics, and the same canary alone
     * ({@code pushP99Ms}, {@code latenessP99Ms}, {@code alonePushP99Ms}, {@code aloneLatenessP99Ms}).
     */
    default RunResult canary(int topics, int rate, Duration duration) throws Exception {
        throw new UnsupportedOperationException(OVER_HTTP);
    }

    /**
     * One-job pushes at a steady rate, quiet and while another client re-pushes {@code knownIds} known client ids
     * ({@code quietPushP99Ms}, {@code stormPushP99Ms}).
     */
    default RunResult retryStorm(int knownIds, int rate, Duration duration) throws Exception {
        throw new UnsupportedOperationException(OVER_HTTP);
    }

    /**
     * The cost of scaling out ({@link ScaleOut}): the packaged service in cluster mode at each size of {@code
     * --scale-out-instances}, on one Redis and one journal: the whole's hand-over rate, CPU per 1,000 jobs, each
     * instance's share.
     */
    default RunResult scaleOut() throws Exception {
        throw new UnsupportedOperationException(PACKAGED_ONLY);
    }

    /** {@code jobs} jobs due at one instant handed over by HTTP callback ({@code jobsPerSecond}, {@code lastLateMs}). */
    default RunResult fullBurst(int jobs) throws Exception {
        throw new UnsupportedOperationException(PACKAGED_ONLY);
    }

    /**
     * With {@code jobs} jobs pending: the one-job push rate, Redis bytes per pending job, and the time a restart with
     * restore on start takes to put them all back into an emptied Redis ({@link FullPending}).
     */
    default RunResult fullPending(int jobs) throws Exception {
        throw new UnsupportedOperationException(PACKAGED_ONLY);
    }

    /**
     * A fresh service's first burst by HTTP callback beside its settled one ({@link ColdStart#firstBurst}): {@code
     * firstJobsPerSecond}, {@code settledJobsPerSecond}, {@code firstOverSettled}, {@code readySeconds}.
     */
    default RunResult firstBurst() throws Exception {
        throw new UnsupportedOperationException(PACKAGED_ONLY);
    }

    /**
     * A master-slave follower's first burst after its leader was killed, beside the leader's settled one ({@link
     * ColdStart#takeOver}).
     */
    default RunResult takeOver() throws Exception {
        throw new UnsupportedOperationException(PACKAGED_ONLY);
    }

    @Override
    void close() throws Exception;
}
