package io.delayqueue.client.callback;

/**
 * A callback that {@link CallbackVerifier} refused, and why ({@link #reason()}). Answer it with a 4xx (401, say) and
 * do nothing else: the service delivers a genuine callback that was refused again later, newly signed. The message
 * names the header or check that failed and never shows a secret.
 */
public final class CallbackVerificationException extends Exception {
    private static final long serialVersionUID = 1L;

    /** Why a callback was refused. */
    public enum Reason {
        /** {@code webhook-id}, {@code webhook-timestamp} or {@code webhook-signature} is missing (unsigned). */
        MISSING_HEADER,
        /** A header is there but cannot be read ({@code webhook-timestamp} not a number, say). */
        MALFORMED_HEADER,
        /** No {@code v1} signature matches any of the verifier's secrets: forged, changed, or another secret. */
        BAD_SIGNATURE,
        /**
         * Signed longer ago than the tolerance (or before the oldest delivery a full replay memory still holds): an
         * old delivery sent again.
         */
        TIMESTAMP_TOO_OLD,
        /** Signed further ahead than the tolerance: the sender's clock is wrong, or the timestamp made up. */
        TIMESTAMP_TOO_NEW,
        /** The same signed delivery (id, timestamp and body) was accepted before: sent again as it was. */
        REPLAYED,
        /**
         * Correctly signed, but an {@code X-Delay-*} header (not covered by the signature) disagrees with the signed
         * id or body, or the body is not a delay-queue job.
         */
        MISMATCH
    }

    private final Reason reason;

    public CallbackVerificationException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
