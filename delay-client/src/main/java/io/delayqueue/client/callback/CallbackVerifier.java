package io.delayqueue.client.callback;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.delayqueue.client.callback.CallbackVerificationException.Reason;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Verifies the HTTP callbacks of delay-queue, signed as the Standard Webhooks specification has it: {@code
 * webhook-signature} holds {@code v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">} for each of
 * the service's secrets, separated by spaces. A callback is accepted when any {@code v1} signature matches any of
 * this verifier's secrets (so both sides can rotate: give the service the new secret beside the old, then the
 * receivers, then drop the old), and its timestamp is within the tolerance ({@value #DEFAULT_TOLERANCE_MINUTES}
 * minutes by default) of this machine's clock, either way.
 *
 * <pre>{@code
 * CallbackVerifier verifier = CallbackVerifier.of(System.getenv("DELAY_CALLBACK_SECRET"));
 * try {
 *     VerifiedCallback callback = verifier.verify(request.headers().map(), body);
 *     ... handle the job callback.id() of callback.topic(), then answer 2xx
 * } catch (CallbackVerificationException e) {
 *     ... answer 401, do nothing else
 * }
 * }</pre>
 *
 * <p>Verify the body exactly as it arrived (the bytes, or their UTF-8 text), before any JSON mapping. A signature
 * alone does not stop the same delivery being sent again within the tolerance by whoever saw it: {@link
 * Builder#refuseReplays(int)} remembers accepted deliveries and refuses an exact re-send, while the service's own
 * re-delivery of a job (same id, new timestamp) is accepted.
 *
 * <p>Plain JDK ({@code javax.crypto}); thread safe: one verifier serves every request. Signatures are compared in
 * constant time.
 */
public final class CallbackVerifier {
    public static final String WEBHOOK_ID = "webhook-id";
    public static final String WEBHOOK_TIMESTAMP = "webhook-timestamp";
    public static final String WEBHOOK_SIGNATURE = "webhook-signature";
    public static final String JOB_ID = "X-Delay-Job-Id";
    public static final String TOPIC = "X-Delay-Topic";
    public static final String ATTEMPT = "X-Delay-Attempt";

    static final int DEFAULT_TOLERANCE_MINUTES = 5;
    /** How far a callback's timestamp may be from this machine's clock, either way, by default. */
    public static final Duration DEFAULT_TOLERANCE = Duration.ofMinutes(DEFAULT_TOLERANCE_MINUTES);

    private static final String PREFIX = "whsec_";
    private static final int MIN_BYTES = 24;
    private static final int MAX_BYTES = 64;
    private static final String ALGORITHM = "HmacSHA256";
    private static final JsonFactory JSON = new JsonFactory();
    private static final ThreadLocal<Mac> MACS = ThreadLocal.withInitial(() -> {
        try {
            return Mac.getInstance(ALGORITHM);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no " + ALGORITHM, e);
        }
    });

    private final List<SecretKeySpec> keys;
    private final long toleranceSeconds;
    private final Clock clock;
    private final ReplayGuard replays;

    private CallbackVerifier(Builder b) {
        this.keys = b.keys;
        this.toleranceSeconds = b.tolerance.getSeconds();
        this.clock = b.clock;
        this.replays = b.replayCapacity > 0 ? new ReplayGuard(b.replayCapacity, toleranceSeconds) : null;
    }

    /**
     * A verifier of the given secrets, with the default tolerance, the system clock and no replay memory.
     *
     * @param secrets one or more, each as the service is given it: {@code whsec_<base64>}
     * @throws IllegalArgumentException when none is given or one is not a {@code whsec_} secret of 24 to 64 bytes
     *     (naming it by position, never by value)
     */
    public static CallbackVerifier of(String... secrets) {
        return builder(secrets).build();
    }

    /** A builder of a verifier of the given secrets ({@link #of(String...)}). */
    public static Builder builder(String... secrets) {
        return new Builder(List.of(secrets));
    }

    /** A builder of a verifier of the given secrets ({@link #of(String...)}). */
    public static Builder builder(List<String> secrets) {
        return new Builder(secrets);
    }

    /**
     * Verifies a callback given its headers as a map (a servlet's, Spring's {@code HttpHeaders}, {@code
     * java.net.http.HttpHeaders#map()}, the JDK server's {@code Headers}), names looked up regardless of case.
     *
     * @param body the request body exactly as received
     * @return what the callback is, every value covered by its signature
     * @throws CallbackVerificationException saying why it is refused
     */
    public VerifiedCallback verify(Map<String, ? extends List<String>> headers, byte[] body)
            throws CallbackVerificationException {
        return verify(name -> header(headers, name), body);
    }

    /** {@link #verify(Map, byte[])} of a body received as text (UTF-8, as the service sends it). */
    public VerifiedCallback verify(Map<String, ? extends List<String>> headers, String body)
            throws CallbackVerificationException {
        return verify(headers, body.getBytes(StandardCharsets.UTF_8));
    }

    /** {@link #verify(Function, byte[])} of a body received as text (UTF-8, as the service sends it). */
    public VerifiedCallback verify(Function<String, String> header, String body) throws CallbackVerificationException {
        return verify(header, body.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Verifies a callback given a look-up of its headers.
     *
     * @param header a header's value by name, null when absent ({@code request::getHeader}); a repeated {@code
     *     webhook-signature} may come joined by spaces or commas
     * @param body the request body exactly as received
     * @return what the callback is, every value covered by its signature
     * @throws CallbackVerificationException saying why it is refused
     */
    public VerifiedCallback verify(Function<String, String> header, byte[] body) throws CallbackVerificationException {
        Objects.requireNonNull(body, "body");
        String id = required(header, WEBHOOK_ID);
        String timestampText = required(header, WEBHOOK_TIMESTAMP);
        String signatures = required(header, WEBHOOK_SIGNATURE);
        long timestamp;
        try {
            timestamp = Long.parseLong(timestampText.trim());
        } catch (NumberFormatException e) {
            throw new CallbackVerificationException(
                    Reason.MALFORMED_HEADER,
                    WEBHOOK_TIMESTAMP + " is not a number of seconds: " + shown(timestampText));
        }
        long now = Math.floorDiv(clock.millis(), 1000);
        if (now - timestamp > toleranceSeconds) {
            throw new CallbackVerificationException(
                    Reason.TIMESTAMP_TOO_OLD,
                    WEBHOOK_TIMESTAMP + " " + timestamp + " is " + (now - timestamp) + " s old, more than the "
                            + toleranceSeconds + " s tolerated: an old delivery sent again");
        }
        if (timestamp - now > toleranceSeconds) {
            throw new CallbackVerificationException(
                    Reason.TIMESTAMP_TOO_NEW,
                    WEBHOOK_TIMESTAMP + " " + timestamp + " is " + (timestamp - now) + " s ahead of this clock, more"
                            + " than the " + toleranceSeconds + " s tolerated");
        }
        List<byte[]> given = v1Signatures(signatures);
        byte[] firstExpected = null;
        boolean matched = false;
        for (SecretKeySpec key : keys) {
            byte[] expected = hmac(key, id, timestamp, body);
            if (firstExpected == null) {
                firstExpected = expected;
            }
            for (byte[] g : given) {
                matched |= MessageDigest.isEqual(expected, g);
            }
            if (matched) {
                break;
            }
        }
        if (!matched) {
            throw new CallbackVerificationException(
                    Reason.BAD_SIGNATURE,
                    "no signature in " + WEBHOOK_SIGNATURE + " matches this verifier's " + keys.size() + " secret(s):"
                            + " forged, changed on the way (id, timestamp or body), or signed with another secret");
        }
        VerifiedCallback callback = checkedAgainstBody(header, id, Instant.ofEpochSecond(timestamp), body);
        if (replays != null) {
            replays.admit(firstExpected, timestamp, now);
        }
        return callback;
    }

    /** The topic and attempt from the signed body, and the unsigned {@code X-Delay-*} headers checked against it. */
    private static VerifiedCallback checkedAgainstBody(
            Function<String, String> header, String id, Instant timestamp, byte[] body)
            throws CallbackVerificationException {
        String bodyId = null;
        String topic = null;
        int attempts = -1;
        try (JsonParser p = JSON.createParser(body)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw notAJob("is not a JSON object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if (name.equals("id") && value == JsonToken.VALUE_STRING) {
                    bodyId = p.getText();
                } else if (name.equals("topic") && value == JsonToken.VALUE_STRING) {
                    topic = p.getText();
                } else if (name.equals("attempts") && value == JsonToken.VALUE_NUMBER_INT) {
                    attempts = p.getIntValue();
                } else {
                    p.skipChildren();
                }
            }
        } catch (IOException e) {
            throw notAJob("is not JSON");
        }
        if (bodyId == null || topic == null || attempts < 0) {
            throw notAJob("lacks the job's id, topic or attempts");
        }
        if (!bodyId.equals(id)) {
            throw new CallbackVerificationException(
                    Reason.MISMATCH,
                    "the signed body is job " + shown(bodyId) + ", not " + WEBHOOK_ID + " " + shown(id));
        }
        int attempt = attempts + 1;
        mustAgree(header, JOB_ID, id);
        mustAgree(header, TOPIC, topic);
        mustAgree(header, ATTEMPT, Integer.toString(attempt));
        return new VerifiedCallback(id, timestamp, topic, attempt);
    }

    private static CallbackVerificationException notAJob(String what) {
        return new CallbackVerificationException(
                Reason.MISMATCH, "the signed body " + what + ": not a delay-queue job");
    }

    /** An {@code X-Delay-*} header, when present, says what the signed content says. */
    private static void mustAgree(Function<String, String> header, String name, String signed)
            throws CallbackVerificationException {
        String value = header.apply(name);
        if (value != null && !value.trim().equals(signed)) {
            throw new CallbackVerificationException(
                    Reason.MISMATCH, name + " " + shown(value) + " is not the signed job's " + shown(signed));
        }
    }

    private static String required(Function<String, String> header, String name) throws CallbackVerificationException {
        String value = header.apply(name);
        if (value == null || value.isBlank()) {
            throw new CallbackVerificationException(
                    Reason.MISSING_HEADER, name + " is missing: the callback is not signed");
        }
        return value;
    }

    /** The {@code v1} signatures decoded; others ({@code v1a}, unknown versions, bad Base64) are left out. */
    private static List<byte[]> v1Signatures(String header) throws CallbackVerificationException {
        List<byte[]> out = new ArrayList<>(2);
        for (String token : header.trim().split("\\s+")) {
            String t = token.endsWith(",") ? token.substring(0, token.length() - 1) : token;
            if (t.startsWith("v1,")) {
                try {
                    out.add(Base64.getDecoder().decode(t.substring(3)));
                } catch (IllegalArgumentException badBase64) {
                    // cannot match; another may
                }
            }
        }
        if (out.isEmpty()) {
            throw new CallbackVerificationException(
                    Reason.MALFORMED_HEADER, WEBHOOK_SIGNATURE + " holds no v1,<base64> signature");
        }
        return out;
    }

    private static byte[] hmac(SecretKeySpec key, String id, long timestamp, byte[] body) {
        Mac mac = MACS.get();
        try {
            mac.init(key);
        } catch (InvalidKeyException e) {
            throw new IllegalStateException("an HMAC-SHA256 key was refused", e);
        }
        mac.update(id.getBytes(StandardCharsets.UTF_8));
        mac.update((byte) '.');
        mac.update(Long.toString(timestamp).getBytes(StandardCharsets.US_ASCII));
        mac.update((byte) '.');
        return mac.doFinal(body);
    }

    /** A header's value, any case of its name; a repeated header's values joined by a space. */
    private static String header(Map<String, ? extends List<String>> headers, String name) {
        List<String> values = headers.get(name);
        if (values == null) {
            for (Map.Entry<String, ? extends List<String>> e : headers.entrySet()) {
                if (e.getKey() != null && e.getKey().equalsIgnoreCase(name)) {
                    values = e.getValue();
                    break;
                }
            }
        }
        if (values == null || values.isEmpty()) {
            return null;
        }
        return values.size() == 1 ? values.get(0) : String.join(" ", values);
    }

    /** A value from the request, quoted and cut short: it is the sender's text, not ours. */
    private static String shown(String value) {
        String v = value.length() > 64 ? value.substring(0, 64) + "..." : value;
        return "'" + v.replaceAll("\\p{Cntrl}", "?") + "'";
    }

    /** The settings of a {@link CallbackVerifier}. */
    public static final class Builder {
        private final List<SecretKeySpec> keys;
        private Duration tolerance = DEFAULT_TOLERANCE;
        private Clock clock = Clock.systemUTC();
        private int replayCapacity;

        private Builder(List<String> secrets) {
            if (secrets == null || secrets.isEmpty()) {
                throw new IllegalArgumentException("a callback verifier needs at least one whsec_ secret");
            }
            List<SecretKeySpec> parsed = new ArrayList<>();
            for (int i = 0; i < secrets.size(); i++) {
                parsed.add(key(secrets.get(i), "secret " + (i + 1) + " of " + secrets.size()));
            }
            this.keys = List.copyOf(parsed);
        }

        private static SecretKeySpec key(String secret, String which) {
            String s = secret == null ? "" : secret.trim();
            if (!s.startsWith(PREFIX)) {
                throw new IllegalArgumentException(which + " is not a signing secret: it must be " + PREFIX
                        + "<base64>, as the service is given it");
            }
            byte[] bytes;
            try {
                bytes = Base64.getDecoder().decode(s.substring(PREFIX.length()));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        which + " is not a signing secret: what follows " + PREFIX + " is not standard Base64");
            }
            if (bytes.length < MIN_BYTES || bytes.length > MAX_BYTES) {
                throw new IllegalArgumentException(which + " is not a signing secret: it holds " + bytes.length
                        + " bytes, and must hold " + MIN_BYTES + " to " + MAX_BYTES);
            }
            return new SecretKeySpec(bytes, ALGORITHM);
        }

        /**
         * How far a callback's {@code webhook-timestamp} may be from this verifier's clock, either way ({@link
         * #DEFAULT_TOLERANCE} unless set); whole seconds, at least one.
         */
        public Builder tolerance(Duration tolerance) {
            if (tolerance == null || tolerance.getSeconds() < 1) {
                throw new IllegalArgumentException("tolerance must be at least 1 s");
            }
            this.tolerance = tolerance;
            return this;
        }

        /** The clock timestamps are checked against (the system clock unless set; a fixed one in tests). */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Remember up to {@code capacity} accepted deliveries (each until its timestamp is past the tolerance) and
         * refuse one sent again exactly as it was ({@link Reason#REPLAYED}); the service's own re-delivery of a job
         * carries a new timestamp and is accepted. Size it to the callbacks this receiver takes within the tolerance
         * (rate × 5 minutes; about 100 bytes each): when full, the oldest are forgotten and deliveries signed no later
         * than them refused ({@link Reason#TIMESTAMP_TOO_OLD}), which the service sends again, newly signed. The
         * memory is this process's: receivers behind a load balancer each see only their own.
         */
        public Builder refuseReplays(int capacity) {
            if (capacity < 1) {
                throw new IllegalArgumentException("the replay memory must hold at least 1 delivery");
            }
            this.replayCapacity = capacity;
            return this;
        }

        public CallbackVerifier build() {
            return new CallbackVerifier(this);
        }
    }
}
