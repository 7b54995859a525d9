package io.delayqueue.queue.dispatch.http;

import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.spec.SecretKeySpec;

/**
 * A secret that signs HTTP callbacks, in the Standard Webhooks form {@code whsec_<base64>}: {@value #PREFIX}
 * followed by the standard Base64 of {@value #MIN_BYTES} to {@value #MAX_BYTES} random bytes (make one with {@code
 * echo "whsec_$(openssl rand -base64 32)"}). The decoded bytes are the HMAC-SHA256 key.
 *
 * <p>Never shows its key: {@link #toString()} is {@code whsec_***}, and the errors of {@link #parse} name the
 * property, never the value given. Immutable.
 */
public final class CallbackSecret {
    public static final String PREFIX = "whsec_";
    /** The fewest key bytes: 192 bits, as the Standard Webhooks specification asks. */
    public static final int MIN_BYTES = 24;
    /** The most key bytes the specification allows. */
    public static final int MAX_BYTES = 64;

    private final SecretKeySpec key;

    private CallbackSecret(byte[] bytes) {
        this.key = new SecretKeySpec(bytes, CallbackSigner.ALGORITHM);
    }

    /**
     * @param value a {@code whsec_<base64>} secret
     * @param property the property that gave it, named by the error ({@code delay.http.signing.secrets[1]})
     * @throws IllegalArgumentException naming {@code property} (never the value) when the value is not a {@code
     *     whsec_} secret of {@value #MIN_BYTES} to {@value #MAX_BYTES} bytes
     */
    public static CallbackSecret parse(String value, String property) {
        String v = value == null ? "" : value.trim();
        if (!v.startsWith(PREFIX)) {
            throw new IllegalArgumentException(property + " is not a signing secret: it must be " + PREFIX
                    + "<base64 of " + MIN_BYTES + " to " + MAX_BYTES + " random bytes>, e.g. the output of"
                    + " echo \"whsec_$(openssl rand -base64 32)\"");
        }
        byte[] bytes;
        try {
            bytes = Base64.getDecoder().decode(v.substring(PREFIX.length()));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    property + " is not a signing secret: what follows " + PREFIX + " is not standard Base64");
        }
        if (bytes.length < MIN_BYTES || bytes.length > MAX_BYTES) {
            throw new IllegalArgumentException(property + " is not a signing secret: it holds " + bytes.length
                    + " bytes, and must hold " + MIN_BYTES + " to " + MAX_BYTES + " (whsec_ and the Base64 of them)");
        }
        return new CallbackSecret(bytes);
    }

    /** The HMAC-SHA256 key. */
    SecretKeySpec key() {
        return key;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CallbackSecret other && MessageDigest.isEqual(key.getEncoded(), other.key.getEncoded());
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(key.getEncoded());
    }

    /** Never the key. */
    @Override
    public String toString() {
        return PREFIX + "***";
    }
}
