package io.delayqueue.client.callback;

import io.delayqueue.client.callback.CallbackVerificationException.Reason;
import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The deliveries a verifier accepted within its tolerance, so that one sent again exactly as it was is refused. A
 * delivery is remembered by a digest of what its signature covers (id, timestamp, body), whichever of its signatures
 * matched: dropping one signature of a rotated pair makes no new delivery.
 *
 * <p>Bounded: it holds at most {@code capacity} deliveries, and forgets one once its timestamp is past the tolerance
 * (the timestamp check refuses it from then on). When it is full it forgets the oldest it took, and from then on
 * refuses every delivery signed no later than one it forgot ({@link Reason#TIMESTAMP_TOO_OLD}): it never accepts a
 * replay, at worst refuses a genuine delivery that came late, which the service sends again, newly signed. Thread
 * safe; each check holds its lock for a map look-up.
 */
final class ReplayGuard {
    private final int capacity;
    private final long toleranceSeconds;
    /** Digest -> timestamp, in the order accepted. */
    private final LinkedHashMap<ByteBuffer, Long> seen = new LinkedHashMap<>();
    /** Deliveries signed at or before this second are refused: one of them may have been forgotten. */
    private long forgottenUpTo = Long.MIN_VALUE;

    ReplayGuard(int capacity, long toleranceSeconds) {
        this.capacity = capacity;
        this.toleranceSeconds = toleranceSeconds;
    }

    /**
     * Remembers a verified delivery, or refuses it as seen before.
     *
     * @param digest what identifies the delivery: the same for the same id, timestamp and body, whichever signature
     *     matched
     */
    synchronized void admit(byte[] digest, long timestamp, long nowSeconds) throws CallbackVerificationException {
        forgetExpired(nowSeconds);
        if (timestamp <= forgottenUpTo) {
            throw new CallbackVerificationException(
                    Reason.TIMESTAMP_TOO_OLD,
                    "webhook-timestamp " + timestamp + " is no later than a delivery the replay memory had to forget"
                            + " (it holds " + capacity + "): refused, since it cannot tell whether it is a replay");
        }
        if (seen.putIfAbsent(ByteBuffer.wrap(digest), timestamp) != null) {
            throw new CallbackVerificationException(
                    Reason.REPLAYED,
                    "this delivery (webhook-id, webhook-timestamp and body) was accepted before: a replay");
        }
        Iterator<Map.Entry<ByteBuffer, Long>> oldest = seen.entrySet().iterator();
        while (seen.size() > capacity) {
            forget(oldest);
        }
    }

    /** How many deliveries it holds. */
    synchronized int size() {
        return seen.size();
    }

    private void forgetExpired(long nowSeconds) {
        Iterator<Map.Entry<ByteBuffer, Long>> oldest = seen.entrySet().iterator();
        while (oldest.hasNext()) {
            Map.Entry<ByteBuffer, Long> e = oldest.next();
            if (nowSeconds - e.getValue() <= toleranceSeconds) {
                return;
            }
            forgottenUpTo = Math.max(forgottenUpTo, e.getValue());
            oldest.remove();
        }
    }

    private void forget(Iterator<Map.Entry<ByteBuffer, Long>> oldest) {
        Map.Entry<ByteBuffer, Long> e = oldest.next();
        forgottenUpTo = Math.max(forgottenUpTo, e.getValue());
        oldest.remove();
    }
}
