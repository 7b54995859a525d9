package io.delayqueue.queue.dispatch.http;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.Base64;
import java.util.List;
import javax.crypto.Mac;

/**
 * Signs HTTP callbacks as the Standard Webhooks specification does: {@code webhook-id} (the job's id, the same on
 * every delivery of the job, so that a receiver can tell a re-delivery), {@code webhook-timestamp} (unix seconds when
 * the callback is sent; each attempt has its own) and {@code webhook-signature}: {@code v1,<base64 HMAC-SHA256 of
 * "<id>.<timestamp>.<body>">} for each of the topic's secrets, separated by spaces.
 *
 * <p>A callback is a hot path (thousands a second): each thread keeps one {@link Mac}, keyed again per signature
 * (two block hashes), and nothing else is allocated beyond the header's text. Safe for any number of threads.
 */
public final class CallbackSigner {
    public static final String ID = "webhook-id";
    public static final String TIMESTAMP = "webhook-timestamp";
    public static final String SIGNATURE = "webhook-signature";
    static final String ALGORITHM = "HmacSHA256";

    private static final ThreadLocal<Mac> MACS = ThreadLocal.withInitial(() -> {
        try {
            return Mac.getInstance(ALGORITHM);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no " + ALGORITHM, e);
        }
    });

    private final CallbackSigning signing;
    private final Clock clock;

    public CallbackSigner(CallbackSigning signing, Clock clock) {
        this.signing = signing;
        this.clock = clock;
    }

    /** The three headers of one send, or null when the topic's callbacks are not signed. */
    public Signature sign(String topic, String id, byte[] body) {
        List<CallbackSecret> secrets = signing.secretsOf(topic);
        if (secrets.isEmpty()) {
            return null;
        }
        long timestamp = Math.floorDiv(clock.millis(), 1000);
        return new Signature(id, timestamp, signature(secrets, id, timestamp, body));
    }

    /** {@code v1,<base64>} for each secret, separated by spaces. */
    static String signature(List<CallbackSecret> secrets, String id, long timestamp, byte[] body) {
        Mac mac = MACS.get();
        byte[] idBytes = id.getBytes(StandardCharsets.UTF_8);
        byte[] timestampBytes = Long.toString(timestamp).getBytes(StandardCharsets.US_ASCII);
        Base64.Encoder base64 = Base64.getEncoder();
        StringBuilder header = new StringBuilder(secrets.size() * 48);
        for (CallbackSecret secret : secrets) {
            try {
                mac.init(secret.key());
            } catch (InvalidKeyException e) {
                throw new IllegalStateException("an HMAC-SHA256 key was refused", e);
            }
            mac.update(idBytes);
            mac.update((byte) '.');
            mac.update(timestampBytes);
            mac.update((byte) '.');
            mac.update(body);
            if (header.length() > 0) {
                header.append(' ');
            }
            header.append("v1,").append(base64.encodeToString(mac.doFinal()));
        }
        return header.toString();
    }

    /** The headers of one signed send. */
    public record Signature(String id, long timestamp, String signature) {}
}
